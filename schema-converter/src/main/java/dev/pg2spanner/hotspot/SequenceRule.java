package dev.pg2spanner.hotspot;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A column fed by a sequence: serial/bigserial, identity ALWAYS or BY DEFAULT, or any {@code DEFAULT nextval(...)}
 * (owned or not, shared or not). The catalog reader resolves which sequence from the default's dependency.
 */
public final class SequenceRule implements MonotonicRule {

  @Override
  public Optional<Monotonicity> detect(PgCatalog catalog, PgTable table, PgColumn column, KeySample sample) {
    if (column.sequence() == null && column.identity() == PgColumn.Identity.NONE) {
      return Optional.empty();
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    String how = column.identity() != PgColumn.Identity.NONE
        ? "an identity column (GENERATED " + column.identity().name().replace('_', ' ') + ")"
        : "DEFAULT " + column.defaultExpression();
    evidence.put("source", how);
    boolean descending = false;
    PgSequence sequence = null;
    if (column.sequence() != null) {
      evidence.put("sequence", column.sequence());
      int dot = column.sequence().indexOf('.');
      sequence = catalog.sequence(column.sequence().substring(0, dot), column.sequence().substring(dot + 1))
          .orElse(null);
    }
    if (sequence != null) {
      descending = sequence.increment() < 0;
      evidence.put("increment", sequence.increment());
      if (sequence.lastValue() != null) {
        evidence.put("lastValue", sequence.lastValue());
      }
      if (sequence.isShared()) {
        evidence.put("sharedWith", sequence.usedBy());
      }
      if (sequence.ownedBy() == null) {
        evidence.put("ownedBy", "nobody");
      }
    }
    String explanation = column.name() + " takes its values from " + (column.sequence() == null
        ? "an identity sequence" : "sequence " + column.sequence()) + " (" + how + "), so every new row gets "
        + (descending ? "a smaller" : "a larger") + " value than the last"
        + (sequence != null && sequence.isShared() ? "; the sequence is shared by " + sequence.usedBy().size()
            + " columns" : "") + ".";
    return Optional.of(new Monotonicity(column.name(), Monotonicity.Cause.SEQUENCE, descending, evidence,
        explanation));
  }
}
