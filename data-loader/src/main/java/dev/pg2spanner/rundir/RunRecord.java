package dev.pg2spanner.rundir;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanChanges;
import dev.pg2spanner.plan.PlanFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a run was started with, in {@value RunFiles#RECORD} in its run directory, written before the run's first
 * change to the target: the plan's content hash ({@link PlanChanges#contentHash}: what the plan decides, not when it
 * was written), where the plan was, the source ({@code host:port/database} and user, never a password), the target,
 * the dialect, the runner and whether the run is live. A copy of the plan itself is kept beside it
 * ({@value RunFiles#PLAN_AT_START}), so {@code --resume} can name what an edited plan changed and the original can be
 * given back.
 *
 * @param formatVersion {@link #FORMAT_VERSION}
 * @param planHash {@link PlanChanges#contentHash} of the plan the run started with
 * @param planFile the plan file's absolute path then
 * @param source the source's {@code host:port/database}
 * @param sourceUrl the source's JDBC URL without any password, for the command that resumes the run
 * @param sourceUser the user named in the source URL, or null (the OS user)
 * @param target the target database path
 * @param emulator true when the target is on the Spanner emulator
 * @param dialect the plan's target dialect
 * @param runner in-process, direct, flink or dataflow
 * @param live true for {@code migrate --live}
 * @param startedAt when the run started (ISO-8601)
 */
@JsonPropertyOrder({"formatVersion", "planHash", "planFile", "source", "sourceUrl", "sourceUser", "target", "emulator", "dialect",
    "runner", "live", "startedAt"})
@JsonIgnoreProperties(ignoreUnknown = true)
public record RunRecord(int formatVersion, String planHash, String planFile, String source, String sourceUrl,
    String sourceUser,
    String target, boolean emulator, String dialect, String runner, boolean live, String startedAt) {

  public static final int FORMAT_VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public RunRecord {
    Objects.requireNonNull(planHash, "planHash");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(runner, "runner");
  }

  /** The record in {@code runDirectory}, or empty when no run recorded one there. */
  public static Optional<RunRecord> read(Path runDirectory) {
    Path file = runDirectory.resolve(RunFiles.RECORD);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      RunRecord record = JSON.readValue(file.toFile(), RunRecord.class);
      if (record.formatVersion() != FORMAT_VERSION) {
        throw new Pg2SpannerException(ExitCode.RUN_STATE, file + " has format version " + record.formatVersion()
            + "; this pg2spanner reads version " + FORMAT_VERSION + ". Use the pg2spanner that started the run, or "
            + "start a new run with another --run-dir.");
      }
      return Optional.of(record);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read " + file + " (" + e.getMessage() + "); it "
          + "records what the run was started with. Restore it, or start a new run with another --run-dir.", e);
    }
  }

  /** The plan the run started with, as it was then, if the run directory kept it. */
  public static Optional<Plan> planAtStart(Path runDirectory) {
    Path file = runDirectory.resolve(RunFiles.PLAN_AT_START);
    return Files.isRegularFile(file) ? Optional.of(PlanFiles.read(file)) : Optional.empty();
  }

  /**
   * Writes the record and a copy of the plan's text into {@code runDirectory}, each atomically.
   *
   * @param planText the plan file's text as the run read it
   */
  public void write(Path runDirectory, String planText) {
    try {
      Files.createDirectories(runDirectory);
      AtomicFile.write(runDirectory.resolve(RunFiles.PLAN_AT_START), planText.getBytes(StandardCharsets.UTF_8));
      AtomicFile.write(runDirectory.resolve(RunFiles.RECORD), JSON.writeValueAsBytes(this));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write " + runDirectory.resolve(RunFiles.RECORD) + " ("
          + e.getMessage() + "); free disk space or choose a writable --run-dir. Nothing was changed on the target",
          e);
    }
  }

  /**
   * How {@code now} differs from this record, one phrase each ("plan (table public.t: column note added)", "source
   * (db1:5432/app then, db2:5432/app now)"); empty when {@code now} may continue this run.
   *
   * @param started the plan this run started with, when the run directory kept it (to name what changed)
   * @param plan the plan {@code now} was computed from
   */
  public List<String> differences(RunRecord now, Optional<Plan> started, Plan plan) {
    List<String> differences = new ArrayList<>();
    if (!planHash.equals(now.planHash)) {
      List<String> changes = started.map(p -> PlanChanges.between(p, plan)).orElse(List.of());
      differences.add("plan (" + (changes.isEmpty() ? "its content differs from " + planFile + " as the run "
          + "started" : String.join("; ", changes)) + ")");
    }
    if (!source.equals(now.source) || !Objects.equals(sourceUser, now.sourceUser)) {
      differences.add("source (" + describeSource(source, sourceUser) + " then, "
          + describeSource(now.source, now.sourceUser) + " now)");
    }
    if (!target.equals(now.target) || emulator != now.emulator) {
      differences.add("target (" + describeTarget(target, emulator) + " then, "
          + describeTarget(now.target, now.emulator) + " now)");
    }
    if (!dialect.equals(now.dialect)) {
      differences.add("dialect (" + dialect + " then, " + now.dialect + " now)");
    }
    if (!runner.equals(now.runner)) {
      differences.add("runner (" + runner + " then, " + now.runner + " now)");
    }
    if (live != now.live) {
      differences.add(live ? "setting of --live (the run was started with it)"
          : "setting of --live (the run was started without it)");
    }
    return differences;
  }

  private static String describeSource(String endpoint, String user) {
    return endpoint + (user == null ? "" : " as " + user);
  }

  private static String describeTarget(String path, boolean onEmulator) {
    return path + (onEmulator ? " on the emulator" : " on Spanner");
  }

}
