package dev.pg2spanner.fallback;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.rundir.AtomicFile;
import dev.pg2spanner.rundir.RunFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The change stream {@code cutover} created so that the application's writes to Spanner can be brought back to the
 * source, in {@value #FILE} in the run directory. The position fallback reached is not here but in the source (the
 * table {@link FallbackPosition#TABLE}, written in the same transaction as the changes it covers).
 *
 * @param stream the change stream's name
 * @param startTimestamp the commit time (RFC 3339) the stream is read from: taken after the stream existed and
 *     before cutover told the user to point the application at Spanner
 * @param tables the Spanner tables the stream watches
 * @param phase how far the way back got
 */
@JsonPropertyOrder({"formatVersion", "stream", "startTimestamp", "tables", "phase"})
@JsonIgnoreProperties(ignoreUnknown = false)
public record FallbackState(int formatVersion, String stream, String startTimestamp, List<String> tables,
    Phase phase) {

  public static final String FILE = RunFiles.FALLBACK_STATE;
  public static final int FORMAT_VERSION = 1;
  /** The change stream's name: one per target database (a run migrates into one database). */
  public static final String STREAM = "pg2spanner_fallback";

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** How far the way back got. */
  public enum Phase {
    /** The stream records every write to the migrated tables; fallback may read it. */
    RECORDING,
    /** cutover --back verified the source equal to Spanner; sequences, stream and position are being removed. */
    BACK,
    /** cutover --back finished: the source is the database again; the stream is dropped. */
    DONE
  }

  public FallbackState {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(startTimestamp, "startTimestamp");
    Objects.requireNonNull(phase, "phase");
    tables = tables == null ? List.of() : List.copyOf(tables);
  }

  public FallbackState withPhase(Phase next) {
    return new FallbackState(formatVersion, stream, startTimestamp, tables, next);
  }

  /** The state in {@code runDirectory}, or empty when cutover created no change stream there. */
  public static Optional<FallbackState> read(Path runDirectory) {
    Path file = runDirectory.resolve(FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readValue(file.toFile(), FallbackState.class));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read " + file + " (" + e.getMessage() + "); it "
          + "names the change stream fallback reads. Restore it from a backup of the run directory", e);
    }
  }

  /** Writes the state atomically. */
  public void write(Path runDirectory) {
    Path file = runDirectory.resolve(FILE);
    try {
      AtomicFile.write(file, JSON.writeValueAsBytes(this));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write " + file + " (" + e.getMessage() + "); free "
          + "disk space and run the command again", e);
    }
  }
}
