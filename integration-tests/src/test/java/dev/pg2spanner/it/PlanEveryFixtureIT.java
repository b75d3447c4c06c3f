package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, point 2, over real catalogs: every fixture the project holds (Pagila and the project's own hard cases),
 * loaded into PostgreSQL and planned by the real {@code plan} command, gives a plan that the validator {@code migrate}
 * runs accepts. The generated catalogs at each Spanner limit are in schema-converter's PlanValidityPropertyTest.
 */
@WithPostgres
class PlanEveryFixtureIT {

  /** Each fixture: its name and the scripts that build it (schema first). */
  private static final Map<String, List<String>> FIXTURES = new java.util.LinkedHashMap<>();

  static {
    FIXTURES.put("pagila", List.of("pagila", "fixtures/pagila-data.sql"));
    for (String f : List.of("catalog-zoo", "hotspots", "fidelity", "load-fixture", "uuid-key", "beam-fixture")) {
      FIXTURES.put(f, List.of("fixtures/" + f + ".sql"));
    }
  }

  @Test
  void everyFixtureIsPlannedIntoAPlanMigrateAccepts(PgTestDatabase pg, @TempDir Path dir) throws Exception {
    List<String> planned = new ArrayList<>();
    for (Map.Entry<String, List<String>> fixture : FIXTURES.entrySet()) {
      reset(pg);
      for (String script : fixture.getValue()) {
        if (script.equals("pagila")) {
          pg.runScript(Fixtures.pagilaSchema());
        } else {
          pg.execute(Fixtures.resource(script));
        }
      }
      pg.execute("ANALYZE");
      Path out = dir.resolve(fixture.getKey());
      // Exit 0, or 14 when the fixture holds something the plan reports as an error (every file is still written).
      Path planFile = MigrateSupport.plan(pg, out);
      // PlanFiles.read runs the same validator migrate runs, and throws with every problem listed.
      Plan plan = PlanFiles.read(planFile);
      assertThat(PlanValidator.problems(plan)).as(fixture.getKey()).isEmpty();
      assertThat(plan.tables()).as(fixture.getKey()).isNotEmpty();
      assertThat(DdlPrinter.migrations(plan)).as(fixture.getKey()).isNotEmpty();
      planned.add(fixture.getKey() + ": " + plan.tables().size() + " tables");
    }
    assertThat(planned).hasSize(FIXTURES.size());
  }

  /** An empty database again: every schema the fixtures create dropped, {@code public} recreated. */
  private static void reset(PgTestDatabase pg) throws Exception {
    List<String> schemas = new ArrayList<>();
    try (var c = pg.connect(); var s = c.createStatement(); var rs = s.executeQuery(
        "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'")) {
      while (rs.next()) {
        schemas.add(rs.getString(1));
      }
    }
    for (String schema : schemas) {
      pg.execute("DROP SCHEMA " + PgNames.quote(schema) + " CASCADE");
    }
    pg.execute("CREATE SCHEMA public");
  }
}
