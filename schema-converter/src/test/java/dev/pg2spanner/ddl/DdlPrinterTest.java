package dev.pg2spanner.ddl;

import static dev.pg2spanner.ddl.PlanFixture.asc;
import static dev.pg2spanner.ddl.PlanFixture.generated;
import static dev.pg2spanner.ddl.PlanFixture.notNull;
import static dev.pg2spanner.ddl.PlanFixture.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.Interleave.OnDelete;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.ValueConversion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden tests: each case's three migration scripts, concatenated, must equal {@code ddl/<case>.ddl}. To
 * regenerate after an intended change, run with {@code -Dpg2spanner.updateGolden=true} and review the diff.
 */
class DdlPrinterTest {

  static Stream<Arguments> cases() {
    return DdlCases.all().entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void printsTheGoldenDdl(String name, Plan plan) throws IOException {
    String actual = render(plan);
    if (Boolean.getBoolean("pg2spanner.updateGolden")) {
      Path file = Paths.get("src/test/resources/ddl", name + ".ddl");
      Files.writeString(file, actual, StandardCharsets.UTF_8);
    }
    assertThat(actual).isEqualTo(golden(name));
  }

  /** What a golden file holds: every migration's file name, then its script. */
  static String render(Plan plan) {
    return DdlPrinter.migrations(plan).stream()
        .map(m -> "-- >>> " + m.fileName() + "\n" + m.script())
        .collect(Collectors.joining("\n"));
  }

  @Test
  void alwaysThreeMigrationsInPhaseOrder() {
    List<Migration> migrations = DdlPrinter.migrations(DdlCases.noIndexesNoForeignKeys());
    assertThat(migrations).extracting(Migration::fileName)
        .containsExactly("V1__tables.sql", "V2__indexes.sql", "V3__foreign_keys.sql", "V4__checks.sql");
    assertThat(migrations.get(1).statements()).isEmpty();
    assertThat(migrations.get(2).statements()).isEmpty();
    assertThat(migrations.get(1).script()).doesNotContain("CREATE").contains("Nothing to create");
  }

  @Test
  void tablesPhaseHoldsNoIndexesOrForeignKeys() {
    Plan plan = DdlCases.namedSchema();
    assertThat(DdlPrinter.tables(plan)).noneMatch(s -> s.contains("INDEX") || s.contains("FOREIGN KEY"));
    assertThat(DdlPrinter.indexes(plan)).hasSize(1);
    assertThat(DdlPrinter.foreignKeys(plan)).hasSize(1);
  }

  @Test
  void parentsComeFirstWhateverThePlanOrder() {
    List<String> tables = DdlPrinter.tables(DdlCases.interleaveThreeLevels());
    assertThat(tables).extracting(s -> s.substring(0, s.indexOf(" (")))
        .containsExactly("CREATE TABLE customers", "CREATE TABLE orders", "CREATE TABLE order_items");
  }

  @Test
  void anInterleaveParentOutsideThePlanIsAPlanError() {
    Plan plan = PlanFixture.plan().table(table("orders").columns(notNull("id", "INT64")).key(asc("id"))
        .interleaveIn("customers", OnDelete.CASCADE)).build();
    assertThatThrownBy(() -> DdlPrinter.tables(plan)).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("orders interleaves in customers, which is not a table of the plan")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.PLAN_INVALID);
  }

  @Test
  void anInterleaveCycleIsAPlanError() {
    Plan plan = PlanFixture.plan()
        .table(table("a").columns(notNull("id", "INT64")).key(asc("id")).interleaveIn("b", OnDelete.CASCADE))
        .table(table("b").columns(notNull("id", "INT64")).key(asc("id")).interleaveIn("a", OnDelete.CASCADE))
        .build();
    assertThatThrownBy(() -> DdlPrinter.tables(plan)).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("a, b form a cycle");
  }

  @Test
  void aColumnWithDefaultAndGeneratedExpressionIsAPlanError() {
    ColumnPlan both = new ColumnPlan("x", "bigint", "x", "INT64", true, ValueConversion.INT64, "1", "2");
    Plan plan = PlanFixture.plan().table(table("t").columns(notNull("id", "INT64"), both).key(asc("id"))).build();
    assertThatThrownBy(() -> DdlPrinter.tables(plan)).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("column t.x has both a defaultExpression and a generatedExpression");
  }

  @Test
  void generatedColumnIsPrintedAsStored() {
    Plan plan = PlanFixture.plan().table(table("t")
        .columns(generated("shard_id", "INT64", DdlCases.SHARD), notNull("id", "INT64"))
        .key(asc("shard_id"), asc("id"))).build();
    assertThat(DdlPrinter.tables(plan).get(0))
        .contains("  shard_id INT64 NOT NULL AS (" + DdlCases.SHARD + ") STORED,\n");
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = DdlPrinterTest.class.getResourceAsStream("/ddl/" + name + ".ddl")) {
      assertThat(in).as("golden file ddl/%s.ddl (create it with -Dpg2spanner.updateGolden=true)", name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The statements a live run prints for one change, in each dialect's own words. */
  @Test
  void liveChangesArePrintedInEachDialect() {
    Plan google = PlanFixture.plan().table(table("items").columns(notNull("id", "INT64"),
        notNull("name", "STRING(40)")).key(asc("id"))).sequence("items_seq", 1, 1000, "items.id").build();
    Plan postgres = new Plan(google.formatVersion(), google.generatedBy(), google.generatedAt(), google.source(),
        new Plan.Target("POSTGRESQL", false, 3), List.of(table("items").columns(notNull("id", "bigint"),
            notNull("name", "varchar(40)")).key(asc("id")).build()), google.sequences(), List.of());
    assertThat(DdlPrinter.alterSkipRange(google, google.sequences().get(0), 1, 5000))
        .isEqualTo("ALTER SEQUENCE items_seq SET OPTIONS (skip_range_min = 1, skip_range_max = 5000)");
    assertThat(DdlPrinter.alterSkipRange(postgres, postgres.sequences().get(0), 1, 5000))
        .isEqualTo("ALTER SEQUENCE items_seq SKIP RANGE 1 5000");
    assertThat(DdlPrinter.alterColumnType(google, google.tables().get(0), google.tables().get(0).columns().get(1)))
        .isEqualTo("ALTER TABLE items ALTER COLUMN name STRING(40) NOT NULL");
    assertThat(DdlPrinter.alterColumnType(postgres, postgres.tables().get(0),
        postgres.tables().get(0).columns().get(1))).isEqualTo("ALTER TABLE items ALTER COLUMN name TYPE varchar(40)");
  }
}
