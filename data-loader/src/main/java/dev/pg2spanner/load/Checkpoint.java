package dev.pg2spanner.load;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.source.Piece;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load's progress on disk, in a run directory, so {@code --resume} continues after a crash.
 *
 * <ul>
 *   <li>{@value #PIECES_FILE}: the cut of pieces, written once at the first run (atomically) and reused on resume,
 *       because the piece ids in the done log only mean something for that exact cut;</li>
 *   <li>{@value #DONE_FILE}: one JSON line per finished piece, appended and forced to disk before
 *       {@link #markDone} returns. A line torn by a crash (or any line that does not parse) is ignored: the piece
 *       is simply loaded again, which blind insert-or-update makes harmless.</li>
 * </ul>
 * Thread-safe.
 */
public final class Checkpoint implements AutoCloseable {

  public static final String PIECES_FILE = dev.pg2spanner.rundir.RunFiles.PIECES;
  public static final String DONE_FILE = dev.pg2spanner.rundir.RunFiles.DONE;

  private static final Logger LOG = LoggerFactory.getLogger(Checkpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path directory;
  private final Set<String> done = new HashSet<>();
  private JsonLinesFile doneLog;

  private Checkpoint(Path directory) {
    this.directory = directory;
  }

  /** Creates the run directory if needed, or reopens an earlier run's checkpoint. */
  public static Checkpoint open(Path runDirectory) {
    Checkpoint checkpoint = new Checkpoint(runDirectory);
    Path doneFile = runDirectory.resolve(DONE_FILE);
    checkpoint.doneLog = JsonLinesFile.open(doneFile, "the checkpoint", true,
        WayOn.resume("check free disk space and permissions, then rerun with --resume"));
    // A line that does not name a piece only means that piece is loaded again.
    for (JsonNode line : JsonLinesFile.read(doneFile)) {
      JsonNode piece = line.get("piece");
      if (piece != null && piece.isTextual()) {
        checkpoint.done.add(piece.asText());
      } else {
        LOG.warn("Ignoring a line of {} without a \"piece\" field; that piece is loaded again", doneFile);
      }
    }
    return checkpoint;
  }

  /**
   * Records the cut of pieces, once. Saving the same pieces again does nothing.
   *
   * @throws Pg2SpannerException PLAN_INVALID when the directory already holds a different cut, LOCAL_IO when the
   *     file cannot be written
   */
  public synchronized void savePieces(List<Piece> pieces) {
    Optional<List<Piece>> saved = savedPieces();
    if (saved.isPresent()) {
      if (Set.copyOf(saved.get()).equals(Set.copyOf(pieces))) {
        return;
      }
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.RESUME, "The run directory " + directory
          + " already holds a different cut of pieces; continue that run with --resume, or choose an empty run "
          + "directory to start over.");
    }
    Path file = directory.resolve(PIECES_FILE);
    Path temp = directory.resolve(PIECES_FILE + ".tmp");
    try {
      byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(pieces);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      JsonLinesFile.forceDirectory(directory);
    } catch (IOException e) {
      throw ioFailure("write " + file, e);
    }
  }

  /**
   * What a run directory records, read before a run starts.
   *
   * @param savedPieces the cut of an earlier run, or empty
   * @param done how many of its pieces are done
   */
  public record State(Optional<List<Piece>> savedPieces, int done) {}

  /** The saved cut and how many pieces are done. */
  public synchronized State state() {
    return new State(savedPieces(), done.size());
  }

  /**
   * What {@code runDirectory} records, read without opening it for writing (for {@code status}, which only reads):
   * nothing is created.
   */
  public static State read(Path runDirectory) {
    Checkpoint reader = new Checkpoint(runDirectory);
    Set<String> pieces = new HashSet<>();
    for (JsonNode line : JsonLinesFile.read(runDirectory.resolve(DONE_FILE))) {
      JsonNode piece = line.get("piece");
      if (piece != null && piece.isTextual()) {
        pieces.add(piece.asText());
      }
    }
    return new State(reader.savedPieces(), pieces.size());
  }

  /** The cut saved by the first run, or empty when none was saved yet. */
  public synchronized Optional<List<Piece>> savedPieces() {
    Path file = directory.resolve(PIECES_FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(List.copyOf(JSON.readValue(file.toFile(), new TypeReference<List<Piece>>() {})));
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "Cannot read the saved pieces in " + file + " ("
          + e.getMessage() + "); delete the run directory " + directory + " to start the load over.", e);
    }
  }

  public synchronized boolean isDone(String pieceId) {
    return done.contains(pieceId);
  }

  /**
   * Records that every row of {@code piece} is committed (or dead-lettered). Durable when it returns: the line is
   * appended and forced to disk.
   *
   * @param rows rows committed for the piece (informational)
   */
  public synchronized void markDone(Piece piece, long rows) {
    if (doneLog == null) {
      throw new IllegalStateException("checkpoint is closed");
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("piece", piece.id());
    line.put("table", piece.table());
    line.put("rows", rows);
    line.put("at", Instant.now().toString());
    doneLog.append(line);
    done.add(piece.id());
  }

  /**
   * Rows the checkpoint records as committed, per target table, over every process of the run (read from the run
   * directory; a table with no finished piece is absent).
   */
  public static Map<String, Long> rowsByTable(Path runDirectory) {
    Map<String, Long> rows = new java.util.HashMap<>();
    for (JsonNode line : JsonLinesFile.read(runDirectory.resolve(DONE_FILE))) {
      if (line.path("table").isTextual()) {
        rows.merge(line.path("table").asText(), line.path("rows").asLong(), Long::sum);
      }
    }
    return rows;
  }

  /** The ids of the pieces done so far (a copy). */
  public synchronized Set<String> done() {
    return Set.copyOf(done);
  }

  @Override
  public synchronized void close() {
    if (doneLog != null) {
      doneLog.close();
      doneLog = null;
    }
  }

  private static Pg2SpannerException ioFailure(String what, IOException e) {
    return new Pg2SpannerException(ExitCode.LOCAL_IO, NextStep.RESUME, "Cannot " + what + " (" + e.getMessage()
        + "); check free disk space and permissions, then rerun with --resume.", e);
  }
}
