package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.expression.ExpressionTranslator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A date or timestamp column, or any column whose default is the current time: rows written now carry the
 * largest value so far.
 */
public final class TemporalKeyRule implements MonotonicRule {

  private static final Set<String> TEMPORAL_TYPES = Set.of("date", "timestamp", "timestamptz");

  @Override
  public Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    PgType base = column.type();
    while (base.kind() == PgType.Kind.DOMAIN && base.domainBase() != null) {
      base = base.domainBase();
    }
    boolean temporalType = !base.array() && TEMPORAL_TYPES.contains(base.name());
    boolean nowDefault = ExpressionTranslator.readsCurrentTime(column.defaultExpression());
    if (!temporalType && !nowDefault) {
      return Optional.empty();
    }
    String why = nowDefault
        ? "its default " + column.defaultExpression() + " stamps each new row with the current time"
        : "it is a " + column.type().display().toLowerCase(Locale.ROOT) + " column, and rows are written at (or near) "
            + "the time they record";
    return Optional.of(new Monotonicity(column.name(), Monotonicity.Cause.TEMPORAL, false,
        nowDefault ? Map.of("type", column.type().display(), "default", column.defaultExpression())
            : Map.of("type", column.type().display()),
        column.name() + " grows with time: " + why + "."));
  }
}
