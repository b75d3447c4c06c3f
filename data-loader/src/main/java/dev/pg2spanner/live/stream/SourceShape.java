package dev.pg2spanner.live.stream;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The source relations a live run streams and the shape each had at the load's snapshot: the contract the change
 * stream must keep. A planned table is one relation, or, when partitioned, its leaf partitions (the stream names
 * the partition a row is in); an inheritance parent is itself only ({@code FROM ONLY}).
 *
 * <p>Generated columns are left out: logical replication does not send them (their values are read from the
 * source when a change needs them). Needs PostgreSQL 12 or later ({@code attgenerated}).
 *
 * <p>A change for a relation whose shape no longer matches (a column added, dropped, renamed or retyped since the
 * snapshot) must stop the stream: the plan's converters would otherwise write the wrong values.
 */
public final class SourceShape {

  private static final String SQL = dev.pg2spanner.load.source.PiecePlanner.RELATION_TREE + """
      SELECT c.oid::int AS relid, n.nspname AS schema_name, c.relname AS relation_name, c.relkind::text AS kind,
             a.attname AS column_name, a.atttypid::int AS type_oid, a.atttypmod AS type_modifier,
             format_type(a.atttypid, a.atttypmod) AS type_name, a.attnum::int AS attnum
      FROM tree t JOIN pg_class c ON c.oid = t.oid JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relkind <> 'p'
      ORDER BY c.oid, a.attnum
      """;

  private SourceShape() {}

  /**
   * A source column as the stream sends it.
   *
   * @param typeName the type as {@code format_type} prints it (for casts in lookups)
   * @param attnum its number in the table ({@code pg_attribute.attnum}): a renamed column keeps it; 0 when unknown
   *     (a run started by an earlier version)
   */
  public record Column(String name, int typeOid, int typeModifier, String typeName, int attnum) {
    public Column(String name, int typeOid, int typeModifier, String typeName) {
      this(name, typeOid, typeModifier, typeName, 0);
    }
  }

  /**
   * One streamed relation.
   *
   * @param relationId its OID, which every change message carries
   * @param table the plan's target table its rows go to
   * @param source the plan's source table, "schema.name" (the partitioned parent for a partition)
   * @param copiedTo for a table created on the source while streaming, the consistent point of the snapshot its rows
   *     were copied from: its changes in transactions committed before it are in the copy and skipped; else null
   */
  public record Relation(int relationId, String schema, String name, String table, String source,
      List<Column> columns, Long copiedTo) {
    public Relation {
      Objects.requireNonNull(schema, "schema");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(table, "table");
      columns = List.copyOf(columns);
    }

    public Relation(int relationId, String schema, String name, String table, String source, List<Column> columns) {
      this(relationId, schema, name, table, source, columns, null);
    }

    /** This relation copied from a snapshot whose consistent point is {@code lsn}. */
    public Relation copiedTo(long lsn) {
      return new Relation(relationId, schema, name, table, source, columns, lsn);
    }

    /** "schema.name" of this relation. */
    @JsonIgnore
    public String qualifiedName() {
      return schema + "." + name;
    }

    /** True for a partition of a partitioned table (its rows go to the parent's table). */
    @JsonIgnore
    public boolean isPartition() {
      return !qualifiedName().equals(source);
    }
  }

  /**
   * Reads the shape of every planned table's relations.
   *
   * @param inSnapshot a connection inside the load's snapshot, so the shapes are those the loaded rows have
   * @throws Pg2SpannerException PLAN_INVALID when a planned table does not exist
   */
  public static List<Relation> read(Connection inSnapshot, Plan plan) throws SQLException {
    List<Relation> relations = new ArrayList<>();
    try (PreparedStatement ps = inSnapshot.prepareStatement(SQL)) {
      for (TablePlan table : plan.tables()) {
        ps.setString(1, table.source());
        Map<Integer, Builder> found = new LinkedHashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            int relid = rs.getInt("relid");
            Builder b = found.computeIfAbsent(relid, id -> new Builder(id, rowString(rs, "schema_name"),
                rowString(rs, "relation_name")));
            b.columns.add(new Column(rs.getString("column_name"), rs.getInt("type_oid"), rs.getInt("type_modifier"),
                rs.getString("type_name"), rs.getInt("attnum")));
          }
        }
        if (found.isEmpty()) {
          throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "planned table " + table.source() + " does not "
              + "exist on the source (or has no columns); run plan again");
        }
        for (Builder b : found.values()) {
          relations.add(new Relation(b.id, b.schema, b.name, table.target(), table.source(), b.columns));
        }
      }
    }
    return List.copyOf(relations);
  }

  private static String rowString(ResultSet rs, String column) {
    try {
      return rs.getString(column);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Builder {
    final int id;
    final String schema;
    final String name;
    final List<Column> columns = new ArrayList<>();

    Builder(int id, String schema, String name) {
      this.id = id;
      this.schema = schema;
      this.name = name;
    }
  }
}
