package dev.pg2spanner.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A sequence and who uses it.
 *
 * @param schema schema name
 * @param name sequence name
 * @param dataType smallint, integer or bigint
 * @param start START WITH
 * @param increment INCREMENT BY (negative for descending sequences)
 * @param min MINVALUE
 * @param max MAXVALUE
 * @param cycle CYCLE
 * @param lastValue {@code pg_sequences.last_value}: null when never used or not readable by this role
 * @param ownedBy "schema.table.column" of the OWNED BY column (serial/identity), or null
 * @param usedBy every "schema.table.column" whose default calls nextval on it or whose identity it is
 */
public record PgSequence(
    String schema,
    String name,
    String dataType,
    long start,
    long increment,
    long min,
    long max,
    boolean cycle,
    Long lastValue,
    String ownedBy,
    List<String> usedBy) {

  public PgSequence {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(name, "name");
    usedBy = List.copyOf(usedBy);
  }

  public String qualifiedName() {
    return schema + "." + name;
  }

  /** True when more than one column draws from this sequence. */
  public boolean isShared() {
    return usedBy.size() > 1;
  }
}
