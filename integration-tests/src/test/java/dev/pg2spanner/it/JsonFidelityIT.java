package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, point 3: json values Spanner's JSON would change (a rounded number, a dropped duplicate key) or refuse
 * (U+0000, a lone surrogate) are predicted by plan, which keeps the column as text; and when a person maps the column
 * to JSON anyway, the loader dead-letters exactly those rows with the reason instead of writing changed values.
 */
@WithPostgres
@WithSpannerEmulator
class JsonFidelityIT {

  @Test
  void planPredictsLossyJsonAndTheLoaderNeverWritesAChangedValue(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute("CREATE TABLE docs (id int PRIMARY KEY, j json)",
        "INSERT INTO docs VALUES (1, '{\"n\": 12345678901234567890123}'), (2, '{\"s\": \"\\ud800\"}'), "
            + "(3, '{\"z\": \"\\u0000\"}'), (4, '{\"k\": 1, \"k\": 2}'), (5, '{\"f\": 0.1, \"u\": 18446744073709551615}')",
        "ANALYZE");
    Path planFile = MigrateSupport.plan(pg, dir.resolve("plan"));
    ColumnPlan j = PlanFiles.read(planFile).tables().get(0).column("j").orElseThrow();
    assertThat(j.targetType()).isEqualTo("STRING(MAX)");
    assertThat(j.conversion()).isEqualTo(ValueConversion.JSON_TEXT);
    // plan ran the loader's own converter over the documents: it refuses exactly the four a JSON column would.
    assertThat(Files.readString(planFile.resolveSibling("report.md")))
        .contains("the loader's converter refused 4 values in the 5 rows it read as JSON")
        .contains("Spanner JSON would round the number 12345678901234567890123");

    CliRunner.Result asText = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")));
    assertThat(asText.exitCode()).as(asText.out() + asText.err()).isZero();
    assertThat(asText.out()).contains("all match");

    // Mapped back to JSON by hand: the four documents Spanner would change or refuse are dead letters, with reasons.
    MigrateSupport.editColumn(planFile, "public.docs", "j", "JSON", "JSON");
    String other = spanner.id().getInstanceId().getName() + "/databases/asjson";
    CliRunner.Result asJson = MigrateSupport.cli(migrateArgs(planFile, pg, other, spanner.emulatorHost(),
        dir.resolve("run-json"), "--max-bad-rows", "10"));
    assertThat(asJson.exitCode()).as(asJson.out() + asJson.err()).isZero();
    assertThat(asJson.out()).contains("4 row(s) rejected").contains("all match");
    List<String> dead = Files.readAllLines(dir.resolve("run-json/dead-letter.jsonl"));
    assertThat(dead).hasSize(4);
    assertThat(String.join("\n", dead)).contains("would round the number 12345678901234567890123")
        .contains("unpaired surrogate").contains("U+0000").contains("duplicate keys");
  }
}
