package dev.pg2spanner.live;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.SourceShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a live run has set up and how far it got, in {@value #FILE} in the run directory: the source objects it
 * created (replication slot, publication), where the change stream starts, the table shapes the stream must keep,
 * and the phase. Written atomically at every phase change, so {@code migrate --live --resume}, {@code cutover} and
 * {@code status} (in other processes, also after {@code kill -9}) know what exists. Holds no password.
 *
 * @param slot the logical replication slot on the source
 * @param publication the publication the slot streams
 * @param createdPublication true when this run created the publication (and so drops it at cutover)
 * @param consistentPoint the slot's consistent point: the load's snapshot ends and the stream starts here
 * @param planFile the plan the run carries out (absolute)
 * @param sourceUrl the source JDBC URL without any password
 * @param target the target database path
 * @param emulatorHost the emulator the target is on, or null for real Spanner
 * @param deadLetterFile where rejected rows and changes are listed
 * @param maxBadRows rejected rows and changes tolerated (the run's --max-bad-rows)
 * @param phase how far the run got
 * @param relations the source relations the stream delivers and the shape each had at the snapshot
 * @param startedAt when the run began (ISO-8601)
 * @param planRevision the file in the run directory holding the plan as revised by schema changes followed while
 *     streaming, or null while there were none
 * @param loadedTables the target tables that held rows when the bulk phase ended, where the run looked (a Beam
 *     load, which keeps no checkpoint); null otherwise
 */
@JsonPropertyOrder({"formatVersion", "slot", "publication", "createdPublication", "consistentPoint", "planFile",
    "sourceUrl", "target", "emulatorHost", "deadLetterFile", "maxBadRows", "phase", "startedAt", "relations",
    "planRevision", "loadedTables"})
@JsonIgnoreProperties(ignoreUnknown = false)
@JsonInclude(JsonInclude.Include.ALWAYS)
public record LiveState(int formatVersion, String slot, String publication, boolean createdPublication,
    String consistentPoint, String planFile, String sourceUrl, String target, String emulatorHost,
    String deadLetterFile, long maxBadRows, Phase phase, String startedAt, List<SourceShape.Relation> relations,
    String planRevision, List<String> loadedTables) {

  public static final String FILE = dev.pg2spanner.rundir.RunFiles.LIVE_STATE;
  public static final int FORMAT_VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** How far a live run got; each phase is entered once, in this order. */
  public enum Phase {
    /** Slot and publication exist; the bulk load from the slot's snapshot is running. */
    LOAD,
    /** The load is done; indexes, foreign keys and CHECKs are being created. */
    SCHEMA,
    /** Changes are streamed into Spanner. */
    STREAM,
    /** Cutover caught up and verified with the source's writes stopped; the slot and position are being removed. */
    CUTOVER,
    /** Cutover ran: verified, sequences moved, slot and publication dropped. */
    DONE
  }

  public LiveState {
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(publication, "publication");
    Objects.requireNonNull(consistentPoint, "consistentPoint");
    Objects.requireNonNull(phase, "phase");
    relations = relations == null ? List.of() : List.copyOf(relations);
    loadedTables = loadedTables == null ? null : List.copyOf(loadedTables);
  }

  public LiveState withPhase(Phase next) {
    return new LiveState(formatVersion, slot, publication, createdPublication, consistentPoint, planFile, sourceUrl,
        target, emulatorHost, deadLetterFile, maxBadRows, next, startedAt, relations, planRevision, loadedTables);
  }

  /**
   * With the target tables found holding rows when the bulk phase ended ({@code loadedTables}; null when not
   * looked at): a resume checks they still do, where no checkpoint counts them (a load on a Beam runner).
   */
  public LiveState withLoadedTables(List<String> tables) {
    return new LiveState(formatVersion, slot, publication, createdPublication, consistentPoint, planFile, sourceUrl,
        target, emulatorHost, deadLetterFile, maxBadRows, phase, startedAt, relations, planRevision, tables);
  }

  /** After a schema change followed while streaming: the revised plan's file (in the run directory) and the shape. */
  LiveState revised(String revisionFile, SourceShape.Relation shape) {
    List<SourceShape.Relation> shapes = new java.util.ArrayList<>();
    boolean replaced = false;
    for (SourceShape.Relation r : relations) {
      if (r.relationId() == shape.relationId()) {
        shapes.add(shape);
        replaced = true;
      } else {
        shapes.add(r);
      }
    }
    if (!replaced) {
      shapes.add(shape);
    }
    return new LiveState(formatVersion, slot, publication, createdPublication, consistentPoint, planFile, sourceUrl,
        target, emulatorHost, deadLetterFile, maxBadRows, phase, startedAt, shapes,
        revisionFile != null ? revisionFile : planRevision, loadedTables);
  }

  /**
   * After tables were created or dropped on the source while streaming: the revised plan's file, the relations of the
   * tables added, and the target tables whose relations are gone.
   */
  LiveState reconciled(String revisionFile, List<SourceShape.Relation> added, List<String> droppedTables) {
    List<SourceShape.Relation> shapes = new java.util.ArrayList<>();
    for (SourceShape.Relation r : relations) {
      if (!droppedTables.contains(r.table()) && added.stream().noneMatch(a -> a.relationId() == r.relationId())) {
        shapes.add(r);
      }
    }
    shapes.addAll(added);
    return new LiveState(formatVersion, slot, publication, createdPublication, consistentPoint, planFile, sourceUrl,
        target, emulatorHost, deadLetterFile, maxBadRows, phase, startedAt, shapes,
        revisionFile != null ? revisionFile : planRevision, loadedTables);
  }

  /**
   * The plan the run converts by now: the latest revision a followed schema change wrote into the run directory, else
   * {@code started} (the plan the run was started with).
   */
  public dev.pg2spanner.plan.Plan plan(Path runDirectory, dev.pg2spanner.plan.Plan started) {
    return planRevision == null ? started : dev.pg2spanner.plan.PlanFiles.read(runDirectory.resolve(planRevision));
  }

  /** The state in {@code runDirectory}, or empty when no live run was started there. */
  public static Optional<LiveState> read(Path runDirectory) {
    Path file = runDirectory.resolve(FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      LiveState state = JSON.readValue(file.toFile(), LiveState.class);
      if (state.formatVersion != FORMAT_VERSION) {
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, file + " has format version " + state.formatVersion
            + "; this pg2spanner reads version " + FORMAT_VERSION + ". Use the pg2spanner that started the run.");
      }
      return Optional.of(state);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read " + file + " (" + e.getMessage() + "); it "
          + "records the live run's replication slot. Restore it, or drop the slot named in it by hand.", e);
    }
  }

  /** Writes the state to {@code runDirectory} atomically (a crash leaves the old or the new file, never half). */
  public void write(Path runDirectory) {
    Path file = runDirectory.resolve(FILE);
    try {
      dev.pg2spanner.rundir.AtomicFile.write(file, JSON.writeValueAsBytes(this));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, NextStep.RESUME,
          "cannot write " + file + " (" + e.getMessage() + "); free "
          + "disk space, then rerun with --resume. The source's replication slot " + slot + " exists and holds "
          + "WAL until it is used or dropped.", e);
    }
  }

  /**
   * Refuses a fallback from a live run that was not cut over: the source is still the database then.
   *
   * @param runDirectory where this state was read, for the message
   */
  public void requireCutOver(Path runDirectory) {
    if (phase() != Phase.DONE) {
      throw new Pg2SpannerException(ExitCode.FALLBACK_NOT_READY, "the live run in " + runDirectory + " has not "
          + "been cut over (it is in its " + phase().name().toLowerCase(Locale.ROOT) + " phase): the source "
          + "is still the database, there is nothing to fall back from. Run cutover first");
    }
  }
}
