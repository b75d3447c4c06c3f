package dev.pg2spanner.ddl;

import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds plans in code for the DDL golden tests: only the fields the DDL printer reads are interesting. */
final class PlanFixture {

  private final List<TablePlan> tables = new ArrayList<>();
  private final List<SequencePlan> sequences = new ArrayList<>();

  static PlanFixture plan() {
    return new PlanFixture();
  }

  PlanFixture table(Table table) {
    tables.add(table.build());
    return this;
  }

  PlanFixture sequence(String target, long skipMin, long skipMax, String... usedBy) {
    sequences.add(new SequencePlan("public." + target, target, skipMin, skipMax, List.of(usedBy)));
    return this;
  }

  Plan build() {
    return new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.parse("2026-01-01T00:00:00Z"),
        new Plan.Source("localhost:5432/app", "15.0", List.of("public"), "fingerprint"),
        new Plan.Target("GOOGLE_STANDARD_SQL", true, 3), tables, sequences, List.of());
  }

  static Table table(String target) {
    return new Table(target);
  }

  /** A nullable loaded column. */
  static ColumnPlan col(String name, String type) {
    return new ColumnPlan(name, "text", name, type, false, ValueConversion.STRING, null, null);
  }

  static ColumnPlan notNull(String name, String type) {
    return new ColumnPlan(name, "text", name, type, true, ValueConversion.STRING, null, null);
  }

  static ColumnPlan withDefault(String name, String type, boolean notNull, String expression) {
    return new ColumnPlan(name, "text", name, type, notNull, ValueConversion.STRING, expression, null);
  }

  /** A STORED generated column the plan adds (never loaded). */
  static ColumnPlan generated(String name, String type, String expression) {
    return new ColumnPlan(null, null, name, type, true, ValueConversion.SYNTHETIC, null, expression);
  }

  static KeyPart asc(String column) {
    return KeyPart.asc(column);
  }

  static KeyPart desc(String column) {
    return new KeyPart(column, true);
  }

  static IndexPlan index(String name, boolean unique, boolean nullFiltered, List<KeyPart> columns,
      List<String> storing, String interleaveIn) {
    return new IndexPlan(name, name, columns, unique, nullFiltered, storing, interleaveIn);
  }

  static ForeignKeyPlan fk(String name, List<String> columns, String referenced, List<String> referencedColumns,
      Interleave.OnDelete onDelete) {
    return new ForeignKeyPlan(name, name, columns, referenced, referencedColumns, onDelete);
  }

  /** A table under construction. */
  static final class Table {
    private final String target;
    private final List<ColumnPlan> columns = new ArrayList<>();
    private List<KeyPart> key = List.of();
    private KeyStrategy strategy = KeyStrategy.keep("test");
    private Interleave interleave;
    private final List<IndexPlan> indexes = new ArrayList<>();
    private final List<ForeignKeyPlan> foreignKeys = new ArrayList<>();
    private final List<CheckPlan> checks = new ArrayList<>();

    private Table(String target) {
      this.target = target;
    }

    Table columns(ColumnPlan... columns) {
      this.columns.addAll(Arrays.asList(columns));
      return this;
    }

    Table key(KeyPart... parts) {
      this.key = List.of(parts);
      return this;
    }

    Table strategy(KeyStrategy strategy) {
      this.strategy = strategy;
      return this;
    }

    Table interleaveIn(String parent, Interleave.OnDelete onDelete) {
      this.interleave = new Interleave(parent, onDelete, "fk_" + parent);
      return this;
    }

    Table index(IndexPlan index) {
      indexes.add(index);
      return this;
    }

    Table foreignKey(ForeignKeyPlan fk) {
      foreignKeys.add(fk);
      return this;
    }

    Table check(String name, String expression) {
      checks.add(new CheckPlan(name, name, expression));
      return this;
    }

    TablePlan build() {
      return new TablePlan("public." + target, false, target, 1000.0, 65536L, columns, key, strategy, interleave,
          indexes, foreignKeys, checks, List.of());
    }
  }
}
