package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code migrate --runner direct} watches the running job's metrics: it stops the job early once more rows than
 * {@code --max-bad-rows} are rejected, as the in-process runner does. (Its own class: the Spanner test database is
 * one per class, and this run leaves tables in it.)
 */
@WithPostgres
@WithSpannerEmulator
class BeamDirectRunnerEarlyStopIT {

  /**
   * With {@code --max-bad-rows 0} and a bad row in every piece, the job is cancelled as soon as its metrics show a
   * dead-lettered row: the run fails as the after-the-job check would (DATA_REJECTED), says it stopped early, and has
   * not read every row.
   */
  @Test
  void directRunnerStopsEarlyOnceMoreRowsThanMaxBadRowsAreRejected(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path out) throws Exception {
    long rows = 400_000;
    // Every 100th row is NaN, which Spanner's NUMERIC cannot hold: bad rows all through the table's physical order,
    // so whichever pieces the runner reads first already hold some.
    pg.execute("CREATE TABLE readings (id bigint PRIMARY KEY, amount numeric, note text)",
        "INSERT INTO readings SELECT g, CASE WHEN g % 100 = 0 THEN 'NaN' ELSE g / 4.0 END, 'reading ' || g "
            + "FROM generate_series(1, " + rows + ") g",
        "ANALYZE");
    Path plan = MigrateSupport.plan(pg, out.resolve("plan"));
    // The planner chose STRING(MAX) for a numeric with NaN; edited back to NUMERIC, the NaN rows are rejected.
    MigrateSupport.editColumn(plan, "public.readings", "amount", "NUMERIC", "NUMERIC");
    Path dead = out.resolve("dead.jsonl");

    CliRunner.Result r = MigrateSupport.cli(MigrateSupport.migrateArgs(plan, pg, spanner.path(),
        spanner.emulatorHost(), out.resolve("run"), "--runner", "direct", "--workers", "2", "--max-bad-rows", "0",
        "--dead-letter", dead.toString(), "--progress-interval", "1"));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.DATA_REJECTED.exitCode());
    assertThat(r.err()).contains("(limit --max-bad-rows 0): stopped early").doesNotContain("\tat ");
    java.util.regex.Matcher read = java.util.regex.Pattern.compile("after reading ([\\d,]+) of ~[\\d,]+ rows")
        .matcher(r.err());
    assertThat(read.find()).as(r.err()).isTrue();
    long readRows = Long.parseLong(read.group(1).replace(",", ""));
    assertThat(readRows).as(r.out() + r.err()).isPositive().isLessThan(rows);
    assertThat(r.out()).doesNotContain("== 3/4").doesNotContain("loaded ");
    // As the message says: a cancelled job does not write the dead-letter file.
    assertThat(dead).doesNotExist();
  }

}
