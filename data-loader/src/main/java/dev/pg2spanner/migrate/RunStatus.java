package dev.pg2spanner.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.LiveRun;
import dev.pg2spanner.live.LiveState;
import dev.pg2spanner.load.Checkpoint;
import dev.pg2spanner.load.JsonLinesFile;
import dev.pg2spanner.rundir.RunDirectoryLock;
import dev.pg2spanner.rundir.RunFiles;
import dev.pg2spanner.rundir.RunRecord;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code pg2spanner status --run-dir DIR}: what a run directory holds and how far its run got, read only (nothing is
 * created or locked). A live run is shown by {@link LiveRun#status}; any other migrate by its record, its checkpoint
 * and its progress log: whether a process runs it now, pieces done, rows copied, and how it ended.
 */
public final class RunStatus {

  private RunStatus() {}

  /**
   * Prints the run's status.
   *
   * @return 0
   * @throws Pg2SpannerException RUN_STATE when the directory holds no run
   */
  public static int print(Path runDirectory, PrintWriter out) {
    if (LiveState.read(runDirectory).isPresent()) {
      return LiveRun.status(runDirectory, out);
    }
    Optional<RunRecord> record = RunRecord.read(runDirectory);
    Checkpoint.State checkpoint = Files.isDirectory(runDirectory) ? Checkpoint.read(runDirectory)
        : new Checkpoint.State(Optional.empty(), 0);
    List<JsonNode> progress = JsonLinesFile.read(runDirectory.resolve(RunFiles.PROGRESS));
    if (record.isEmpty() && checkpoint.savedPieces().isEmpty() && progress.isEmpty()) {
      throw new Pg2SpannerException(ExitCode.RUN_STATE, runDirectory + " holds no run (no " + RunFiles.RECORD + ", "
          + RunFiles.PIECES + ", " + RunFiles.PROGRESS + " or " + RunFiles.LIVE_STATE + "); name the --run-dir of a "
          + "migrate (default: run/ beside the plan)");
    }
    Optional<RunDirectoryLock.Holder> holder = RunDirectoryLock.holder(runDirectory);
    JsonNode end = last(progress, MigrateRun.RUN_END);
    JsonNode load = last(progress, "progress");
    JsonNode loadSummary = last(progress, "summary");

    out.println("Run in " + runDirectory);
    String state;
    if (holder.isPresent()) {
      state = "running: " + holder.get().describe();
    } else if (end != null) {
      state = end.path("status").asText().startsWith("completed") ? "completed" : "ended, "
          + end.path("status").asText();
    } else {
      state = "not running, and it did not finish (stopped or killed): continue it with the same migrate command "
          + "plus --resume";
    }
    out.println("  state        " + state);
    record.ifPresent(r -> {
      out.println("  started      " + r.startedAt() + (r.live() ? " (--live)" : "") + ", runner " + r.runner());
      out.println("  plan         " + r.planFile());
      out.println("  source       " + r.source() + (r.sourceUser() == null ? "" : " as " + r.sourceUser()));
      out.println("  target       " + r.target() + (r.emulator() ? " on the emulator" : ""));
    });
    if (checkpoint.savedPieces().isPresent()) {
      int total = checkpoint.savedPieces().get().size();
      out.println(String.format(Locale.ROOT, "  load         %d of %d pieces done (%.0f%%)", checkpoint.done(), total,
          total == 0 ? 100.0 : 100.0 * checkpoint.done() / total));
    }
    JsonNode latest = loadSummary != null ? loadSummary : load;
    if (latest != null) {
      long rows = loadSummary != null ? loadSummary.path("rowsWritten").asLong() : load.path("rows").asLong();
      out.println("  rows         " + rows + " copied, as of " + latest.path("at").asText()
          + (loadSummary != null ? " (the load " + loadSummary.path("status").asText("ended") + ")" : ""));
      for (JsonNode table : latest.path("tables")) {
        out.println("               " + table.path("table").asText() + ": " + table.path("rows").asLong() + " rows"
            + (table.has("pieces") ? ", " + table.path("piecesDone").asLong() + " of " + table.path("pieces").asLong()
            + " pieces" : "") + (table.path("rejected").asLong() > 0 ? ", " + table.path("rejected").asLong()
            + " rejected" : ""));
      }
    }
    if (end != null && !end.path("next").isNull() && !end.path("next").asText().isEmpty()) {
      out.println("  next         " + end.path("next").asText());
    }
    if (Files.exists(runDirectory.resolve(RunFiles.SUMMARY))) {
      out.println("  summary      " + runDirectory.resolve(RunFiles.SUMMARY));
    }
    out.flush();
    return 0;
  }

  private static JsonNode last(List<JsonNode> lines, String type) {
    JsonNode found = null;
    for (JsonNode line : lines) {
      if (type.equals(line.path("type").asText())) {
        found = line;
      }
    }
    return found;
  }
}
