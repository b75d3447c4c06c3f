package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Dialect;
import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.planner.PlanRun;
import dev.pg2spanner.planner.PlannerOptions;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden files for the mapping table and the DDL printer, end to end: each case is PostgreSQL DDL (and a few rows
 * where values decide) in {@code golden/<case>.sql}, planned by the real planner against real PostgreSQL, printed,
 * compared with {@code golden/<case>.ddl}, and applied by Flyway on the emulator; then planned again for a
 * PostgreSQL-dialect database, compared with {@code golden/<case>.pg.ddl} and applied, phase by phase, to a
 * PostgreSQL-dialect database on the emulator. Run with {@code -Dgolden.update=true} to rewrite the expected files
 * after a deliberate change, then review the diff.
 */
@WithPostgres
@WithSpannerEmulator
class GoldenDdlIT {

  private static final Path GOLDEN = Path.of("src/test/resources/golden");

  @TestFactory
  Stream<DynamicTest> everyCase(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path out) throws Exception {
    List<Path> cases;
    try (Stream<Path> files = Files.list(GOLDEN)) {
      cases = files.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
    }
    assertThat(cases).hasSizeGreaterThanOrEqualTo(6);
    return cases.stream().flatMap(sql -> Stream.of(
        DynamicTest.dynamicTest(name(sql), () -> check(pg, spanner, out, sql)),
        DynamicTest.dynamicTest(name(sql) + " (PostgreSQL dialect)", () -> checkPostgres(pg, spanner, out, sql))));
  }

  private static void checkPostgres(PgTestDatabase pg, SpannerTestDatabase spanner, Path out, Path sql)
      throws Exception {
    Plan plan = planAndCompare(pg, out, sql, SpannerDialect.POSTGRESQL);
    assertThat(plan.target().dialect()).isEqualTo("POSTGRESQL");

    // A PostgreSQL-dialect database, created with no statements, then each phase in one request.
    String database = databaseName("p-", name(sql));
    DatabaseAdminClient admin = spanner.admin();
    admin.createDatabase(admin.newDatabaseBuilder(DatabaseId.of(spanner.id().getInstanceId(), database))
        .setDialect(Dialect.POSTGRESQL).build(), List.of()).get(1, TimeUnit.MINUTES);
    for (List<String> phase : List.of(DdlPrinter.tables(plan), DdlPrinter.indexes(plan), DdlPrinter.foreignKeys(plan),
        DdlPrinter.checks(plan))) {
      if (!phase.isEmpty()) {
        admin.updateDatabaseDdl(spanner.id().getInstanceId().getInstance(), database, phase, null)
            .get(1, TimeUnit.MINUTES);
      }
    }
    // The emulator's GetDatabase leaves the dialect out; the client asks the database itself.
    assertThat(spanner.spanner().getDatabaseClient(DatabaseId.of(spanner.id().getInstanceId(), database))
        .getDialect()).isEqualTo(Dialect.POSTGRESQL);
  }

  /**
   * Loads the case into PostgreSQL, plans it for {@code dialect} and compares the DDL with its golden file
   * ({@code <case>.ddl}, or {@code <case>.pg.ddl} for the PostgreSQL dialect); returns the plan.
   */
  private static Plan planAndCompare(PgTestDatabase pg, Path out, Path sql, SpannerDialect dialect) throws Exception {
    String name = name(sql);
    pg.execute("DROP SCHEMA public CASCADE", "CREATE SCHEMA public");
    pg.execute(Files.readString(sql, StandardCharsets.UTF_8));
    pg.execute("ANALYZE");
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner golden", "golden", List.of(),
        Instant.parse("2026-01-01T00:00:00Z"), 0).withDialect(dialect);
    String suffix = dialect.isPostgres() ? ".pg" : "";
    Plan plan = PlanRun.execute(new SourceConnector(new SourceConfig(pg.jdbcUrl(), null)), CatalogFilter.all(),
        options, out.resolve(name + suffix)).plan();
    String actual = render(plan);
    Path expectedFile = GOLDEN.resolve(name + suffix + ".ddl");
    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(expectedFile, actual, StandardCharsets.UTF_8);
    }
    assertThat(expectedFile).as("golden file for case %s (run with -Dgolden.update=true to create it)", name)
        .exists();
    assertThat(actual).as("case %s, %s", name, dialect)
        .isEqualTo(Files.readString(expectedFile, StandardCharsets.UTF_8));
    return plan;
  }

  private static String databaseName(String prefix, String caseName) {
    String database = prefix + caseName.replace('_', '-');
    return database.length() > 30 ? database.substring(0, 30) : database;
  }

  private static String render(Plan plan) {
    return "-- V1 tables\n" + String.join(";\n\n", DdlPrinter.tables(plan)) + ";\n\n-- V2 indexes\n"
        + String.join(";\n\n", DdlPrinter.indexes(plan)) + (DdlPrinter.indexes(plan).isEmpty() ? "" : ";")
        + "\n\n-- V3 foreign keys\n" + String.join(";\n\n", DdlPrinter.foreignKeys(plan))
        + (DdlPrinter.foreignKeys(plan).isEmpty() ? "" : ";") + "\n\n-- V4 checks\n"
        + String.join(";\n\n", DdlPrinter.checks(plan)) + (DdlPrinter.checks(plan).isEmpty() ? "" : ";") + "\n";
  }

  private static String name(Path sql) {
    String file = sql.getFileName().toString();
    return file.substring(0, file.length() - ".sql".length());
  }

  private static void check(PgTestDatabase pg, SpannerTestDatabase spanner, Path out, Path sql) throws Exception {
    planAndCompare(pg, out, sql, SpannerDialect.GOOGLE_STANDARD_SQL);

    // The emulator must accept every phase, applied by Flyway, in a database of its own.
    String database = databaseName("g-", name(sql));
    spanner.admin().createDatabase(spanner.id().getInstanceId().getInstance(), database, List.of())
        .get(1, TimeUnit.MINUTES);
    SpannerTarget target = SpannerTarget.parse(spanner.id().getInstanceId().getName() + "/databases/" + database,
        spanner.emulatorHost());
    assertThat(new FlywayMigrator(target, out.resolve(name(sql)).resolve("migrations")).migrateTo(4))
        .containsExactly(1, 2, 3, 4);
  }
}
