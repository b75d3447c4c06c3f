package dev.pg2spanner.plan;

import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.Objects;

/** A key column's DEFAULT that a key strategy sets, printed per dialect. */
public sealed interface KeyDefault extends KeyExpression {

  /** A random (version 4) UUID: {@code GENERATE_UUID()}, in the PostgreSQL dialect {@code spanner.generate_uuid()}. */
  KeyDefault UUID = new RandomUuid();

  /** The next value of the bit-reversed Spanner sequence {@code sequence} (its plan target name). */
  static KeyDefault nextValue(String sequence) {
    return new NextSequenceValue(sequence);
  }

  /** See {@link KeyDefault#UUID}. */
  record RandomUuid() implements KeyDefault {
    @Override
    public String expression(SpannerDialect dialect) {
      return dialect.isPostgres() ? "spanner.generate_uuid()" : "GENERATE_UUID()";
    }
  }

  /**
   * {@code GET_NEXT_SEQUENCE_VALUE(SEQUENCE name)}; in the PostgreSQL dialect {@code nextval('name')}, with the name
   * as it is in a string literal: Spanner looks it up without PostgreSQL's case folding, and with the quotes of
   * "Name" it finds nothing.
   *
   * @param sequence the sequence's target name, as {@link SequencePlan#target()}
   */
  record NextSequenceValue(String sequence) implements KeyDefault {
    public NextSequenceValue {
      Objects.requireNonNull(sequence, "sequence");
    }

    @Override
    public String expression(SpannerDialect dialect) {
      return dialect.isPostgres() ? "nextval('" + sequence.replace("'", "''") + "')"
          : "GET_NEXT_SEQUENCE_VALUE(SEQUENCE " + SpannerNames.quote(sequence) + ")";
    }
  }
}
