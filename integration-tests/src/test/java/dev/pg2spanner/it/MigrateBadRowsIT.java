package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5: rows that cannot be loaded go to the dead-letter file, one JSON line each with table, key, column and
 * reason — values the converter refuses (a timestamp of infinity, a NaN numeric, a string longer than its edited
 * STRING(5)) and rows Spanner itself refuses (interleaved children whose parent row was refused) — and
 * {@code --max-bad-rows} decides whether the run fails or loads every other row.
 *
 * <p>After a tolerant run, migrate's verify leaves out exactly the rows the dead-letter file lists, so it passes when
 * those rows are the only difference.
 */
@WithPostgres
@WithSpannerEmulator
class MigrateBadRowsIT {

  private static final long READINGS = 1000;
  private static final long NOTES = 100;

  /** (table, key) of every bad row, with the column the converter names (null: Spanner refused the whole row). */
  private static final Map<String, String> CONVERTER_REJECTS = Map.of(
      "readings/10", "taken", "readings/20", "amount", "readings/30", "code");
  private static final List<String> SPANNER_REJECTS = List.of("reading_notes/10, 1", "reading_notes/20, 1",
      "reading_notes/30, 1");

  @Test
  void badRowsAreDeadLetteredWithAReasonAndTheLimitDecides(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    pg.execute(
        "CREATE TABLE readings (id int PRIMARY KEY, taken timestamp, amount numeric, code text)",
        "INSERT INTO readings SELECT g, timestamp '2024-01-01 00:00:00' + g * interval '1 hour', g / 4.0, "
            + "'c' || (g % 100) FROM generate_series(1, " + READINGS + ") g",
        "UPDATE readings SET taken = 'infinity' WHERE id = 10",
        "UPDATE readings SET amount = 'NaN' WHERE id = 20",
        "UPDATE readings SET code = 'much too long' WHERE id = 30",
        // Children of readings 10, 20 and 30 are valid rows, but their parent rows never reach Spanner.
        "CREATE TABLE reading_notes (reading_id int NOT NULL REFERENCES readings (id), n int NOT NULL, note text, "
            + "PRIMARY KEY (reading_id, n))",
        "INSERT INTO reading_notes SELECT g, 1, 'note ' || g FROM generate_series(1, " + NOTES + ") g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    assertThat(PlanFiles.read(plan).tableBySource("public.reading_notes").orElseThrow().interleave())
        .as("reading_notes is interleaved in readings (so Spanner refuses orphans)").isNotNull();
    // The planner chose STRING(MAX) for the columns with values Spanner's types cannot hold; a person edits them
    // back, as report.md explains, and narrows code to STRING(5).
    MigrateSupport.editColumn(plan, "public.readings", "taken", "TIMESTAMP", "TIMESTAMP_WALL_CLOCK_AS_UTC");
    MigrateSupport.editColumn(plan, "public.readings", "amount", "NUMERIC", "NUMERIC");
    MigrateSupport.editColumn(plan, "public.readings", "code", "STRING(5)", "STRING");

    // --max-bad-rows 0: the first bad row fails the run, naming the dead-letter file.
    Path strictRun = dir.resolve("strict-run");
    CliRunner.Result strict = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
        strictRun, "--workers", "2", "--max-bad-rows", "0"));
    Path strictDeadLetter = strictRun.resolve("dead-letter.jsonl");
    assertThat(strict.exitCode()).as(strict.out() + strict.err()).isEqualTo(ExitCode.DATA_REJECTED.exitCode());
    assertThat(strict.err()).contains(strictDeadLetter.toString()).contains("--max-bad-rows 0")
        .doesNotContain("\tat ");
    List<JsonNode> strictLines = MigrateSupport.jsonLines(strictDeadLetter);
    assertThat(strictLines).isNotEmpty();
    assertWellFormed(strictLines);

    // --max-bad-rows 10 into a fresh database and run directory: every good row is loaded, every bad one listed.
    String freshPath = DatabaseId.of(spanner.id().getInstanceId(), "fresh-target").getName();
    Path deadLetter = dir.resolve("rejected.jsonl");
    CliRunner.Result tolerant = MigrateSupport.cli(migrateArgs(plan, pg, freshPath, spanner.emulatorHost(),
        dir.resolve("tolerant-run"), "--workers", "2", "--max-bad-rows", "10", "--dead-letter",
        deadLetter.toString()));
    // Verify leaves out exactly the dead-lettered rows: the run passes because they are the only difference.
    assertThat(tolerant.exitCode()).as(tolerant.out() + tolerant.err()).isZero();
    assertThat(tolerant.out()).contains("6 row(s) rejected (within --max-bad-rows): see " + deadLetter)
        .containsPattern("(?m)^readings +\\| +1,000 \\| +3 \\| +997 \\| equal")
        .containsPattern("(?m)^reading_notes +\\| +100 \\| +3 \\| +97 \\| equal")
        .contains("readings: 1,000 source rows, 3 rejected to the dead-letter file, 997 compared")
        .contains("rows listed in the dead-letter file " + deadLetter + " were left out of the comparison");
    List<JsonNode> lines = MigrateSupport.jsonLines(deadLetter);
    assertWellFormed(lines);
    assertThat(lines).extracting(MigrateBadRowsIT::tableAndKey)
        .containsExactlyInAnyOrderElementsOf(
            Stream.concat(CONVERTER_REJECTS.keySet().stream(), SPANNER_REJECTS.stream()).toList());

    DatabaseClient fresh = spanner.spanner().getDatabaseClient(DatabaseId.of(freshPath));
    assertThat(spannerLong(fresh, "SELECT COUNT(*) FROM readings")).isEqualTo(READINGS - 3);
    assertThat(spannerLong(fresh, "SELECT COUNT(*) FROM readings WHERE id IN (10, 20, 30)")).isZero();
    assertThat(spannerLong(fresh, "SELECT COUNT(*) FROM reading_notes")).isEqualTo(NOTES - 3);
    assertThat(spannerLong(fresh, "SELECT COUNT(*) FROM reading_notes WHERE id IN (10, 20, 30)")).isZero();
  }

  private static String tableAndKey(JsonNode line) {
    return line.get("table").asText() + "/" + line.get("key").asText();
  }

  /** One line per bad row, each with table, key, column (when a value was refused) and a reason. */
  private static void assertWellFormed(List<JsonNode> lines) {
    assertThat(lines.stream().map(MigrateBadRowsIT::tableAndKey).collect(Collectors.toSet()))
        .as("one line per row").hasSameSizeAs(lines);
    for (JsonNode line : lines) {
      String row = tableAndKey(line);
      assertThat(line.get("reason").asText()).as("reason of " + row).isNotBlank();
      if (CONVERTER_REJECTS.containsKey(row)) {
        assertThat(line.get("column").asText()).as("column of " + row).isEqualTo(CONVERTER_REJECTS.get(row));
        assertThat(line.get("reason").asText()).as("reason of " + row).containsAnyOf("infinity", "NaN", "holds at most 5");
      } else {
        assertThat(SPANNER_REJECTS).as("an expected bad row").contains(row);
        assertThat(line.get("reason").asText()).as("reason of " + row).contains("Spanner refused the row")
            .containsIgnoringCase("parent");
      }
    }
  }
}
