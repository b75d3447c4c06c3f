package dev.pg2spanner.load;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

  public static final String PIECES_FILE = "pieces.json";
  public static final String DONE_FILE = "done.jsonl";

  private static final Logger LOG = LoggerFactory.getLogger(Checkpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path directory;
  private final Path doneFile;
  private final Set<String> done = new HashSet<>();
  private FileChannel doneChannel;

  private Checkpoint(Path directory) {
    this.directory = directory;
    this.doneFile = directory.resolve(DONE_FILE);
  }

  /** Creates the run directory if needed, or reopens an earlier run's checkpoint. */
  public static Checkpoint open(Path runDirectory) {
    Checkpoint checkpoint = new Checkpoint(runDirectory);
    try {
      Files.createDirectories(runDirectory);
      boolean created = !Files.exists(checkpoint.doneFile);
      checkpoint.doneChannel = FileChannel.open(checkpoint.doneFile, StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      checkpoint.recover();
      if (created) {
        forceDirectory(runDirectory);
      }
    } catch (IOException e) {
      checkpoint.close();
      throw ioFailure("open the checkpoint in " + runDirectory, e);
    }
    return checkpoint;
  }

  /** Reads the done log, cutting a torn last line so the next append starts on a line of its own. */
  private void recover() throws IOException {
    long size = doneChannel.size();
    ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(size));
    while (all.hasRemaining() && doneChannel.read(all, all.position()) >= 0) {
      // read until full
    }
    byte[] bytes = all.array();
    int end = bytes.length;
    while (end > 0 && bytes[end - 1] != '\n') {
      end--;
    }
    if (end < bytes.length) {
      LOG.warn("Ignoring a torn last line in {} (the process stopped while writing it); that piece is loaded again",
          doneFile);
      doneChannel.truncate(end);
      doneChannel.force(true);
    }
    String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
    int lineNumber = 0;
    for (String line : text.split("\n")) {
      lineNumber++;
      if (line.isBlank()) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(line);
        JsonNode piece = node == null ? null : node.get("piece");
        if (piece == null || !piece.isTextual()) {
          throw new IOException("no \"piece\" field");
        }
        done.add(piece.asText());
      } catch (IOException e) {
        LOG.warn("Ignoring unreadable line {} of {} ({}); that piece is loaded again", lineNumber, doneFile,
            e.getMessage());
      }
    }
    doneChannel.position(doneChannel.size());
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
      throw new Pg2SpannerException(ErrorCode.PLAN_INVALID, "The run directory " + directory
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
      forceDirectory(directory);
    } catch (IOException e) {
      throw ioFailure("write " + file, e);
    }
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
      throw new Pg2SpannerException(ErrorCode.LOCAL_IO, "Cannot read the saved pieces in " + file + " ("
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
    if (doneChannel == null) {
      throw new IllegalStateException("checkpoint is closed");
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("piece", piece.id());
    line.put("table", piece.table());
    line.put("rows", rows);
    line.put("at", Instant.now().toString());
    try {
      ByteBuffer buffer = ByteBuffer.wrap((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
      while (buffer.hasRemaining()) {
        doneChannel.write(buffer);
      }
      doneChannel.force(true);
    } catch (IOException e) {
      throw ioFailure("append to " + doneFile, e);
    }
    done.add(piece.id());
  }

  /** The ids of the pieces done so far (a copy). */
  public synchronized Set<String> done() {
    return Set.copyOf(done);
  }

  @Override
  public synchronized void close() {
    if (doneChannel != null) {
      try {
        doneChannel.close();
      } catch (IOException e) {
        LOG.warn("Closing {} failed: {}", doneFile, e.getMessage());
      }
      doneChannel = null;
    }
  }

  /** Makes a new file's directory entry durable; not every platform can open a directory, which is fine. */
  private static void forceDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.debug("Cannot force directory {}: {}", dir, e.getMessage());
    }
  }

  private static Pg2SpannerException ioFailure(String what, IOException e) {
    return new Pg2SpannerException(ErrorCode.LOCAL_IO, "Cannot " + what + " (" + e.getMessage()
        + "); check free disk space and permissions, then rerun with --resume.", e);
  }
}
