package dev.pg2spanner.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The monitoring options are checked before anything is read or contacted (usage errors, exit 2). */
class MigrateMonitorOptionsTest {

  private static String[] migrate(String... extra) {
    List<String> args = new ArrayList<>(List.of("migrate", "--plan", "/nonexistent/plan.yaml", "--source",
        "jdbc:postgresql://127.0.0.1:1/none", "--target", "projects/p/instances/i/databases/d"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  private static String usageError(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = Pg2Spanner.commandLine(Map.of());
    cl.setOut(new PrintWriter(new StringWriter(), true));
    cl.setErr(new PrintWriter(err, true));
    assertThat(cl.execute(args)).as(err.toString()).isEqualTo(2);
    return err.toString();
  }

  @Test
  void slotWalLimitsGoWithLive() {
    assertThat(usageError(migrate("--max-slot-wal", "20GB"))).contains("--max-slot-wal and --stop-slot-wal go with "
        + "--live");
  }

  @Test
  void theStopLimitMustBeAboveTheWarning() {
    assertThat(usageError(migrate("--live", "--max-slot-wal", "20GB", "--stop-slot-wal", "10GB")))
        .contains("--stop-slot-wal (10.0 GB) must be more than --max-slot-wal (20.0 GB)");
  }

  @Test
  void aSizeThatIsNotOneSaysWhatIsExpected() {
    assertThat(usageError(migrate("--live", "--max-slot-wal", "lots"))).contains("'lots' is not a size")
        .contains("20GB");
  }

  @Test
  void aPortOutOfRangeIsRefused() {
    assertThat(usageError(migrate("--metrics-port", "70000"))).contains("--metrics-port must be 0 to 65535");
  }
}
