package dev.pg2spanner.expression;

import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.List;

/**
 * A sentence about an expression that names Spanner types or expressions, kept typed so that each dialect prints them
 * its own way ("the column is INT64" in GoogleSQL, "the column is bigint" in the PostgreSQL dialect); no code rewrites
 * the printed text.
 *
 * @param parts the sentence in order: {@link SpannerType}s, {@link SpannerExpression}s, and anything else as text
 */
public record Prose(List<Object> parts) {

  public Prose {
    parts = List.copyOf(parts);
  }

  static Prose of(Object... parts) {
    return new Prose(List.of(parts));
  }

  /** This sentence, then {@code more}. */
  Prose plus(Prose more) {
    List<Object> all = new ArrayList<>(parts);
    all.addAll(more.parts);
    return new Prose(all);
  }

  /** The sentence with types and expressions as {@code dialect} writes them. */
  public String in(SpannerDialect dialect) {
    StringBuilder s = new StringBuilder();
    for (Object part : parts) {
      if (part instanceof SpannerType type) {
        s.append(type.ddl(dialect));
      } else if (part instanceof SpannerExpression e) {
        s.append(e.in(dialect).orElseGet(e::googleSql));
      } else {
        s.append(part);
      }
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return in(SpannerDialect.GOOGLE_STANDARD_SQL);
  }
}
