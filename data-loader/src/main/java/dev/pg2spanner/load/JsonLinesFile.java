package dev.pg2spanner.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only file of JSON objects, one per line: the run directory's checkpoint ({@code done.jsonl}), dead
 * letters and progress log all use it, so they behave alike.
 *
 * <p>One behaviour, documented once:
 * <ul>
 *   <li><b>Opening</b> creates the file and its directory when missing. An existing file is kept; a last line
 *       without its newline (the process stopped while writing it) is cut off, so the next line starts on a line of
 *       its own.</li>
 *   <li><b>Appending</b> writes the whole line with one write call, then forces it to disk when the file is
 *       {@code durable} (the checkpoint: a piece counts as done only once its line is on disk) or hands it to the
 *       operating system otherwise. Either way a line is complete in the file when {@link #append} returns, so a
 *       crash of this process loses none.</li>
 *   <li><b>Failures</b> (disk full, permissions) throw {@link Pg2SpannerException} LOCAL_IO naming the file and the
 *       caller's next step; the file stays usable for reading. What a failure means is the caller's decision: the
 *       load stops for the checkpoint and dead letters, the progress log only warns.</li>
 *   <li><b>Reading</b> ({@link #read}) returns every line that parses; a line that does not is skipped with a
 *       warning.</li>
 * </ul>
 * Thread-safe.
 */
public final class JsonLinesFile implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JsonLinesFile.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path path;
  private final String name;
  private final boolean durable;
  private final WayOn nextStep;
  private FileChannel channel;

  private JsonLinesFile(Path path, String name, boolean durable, WayOn nextStep, FileChannel channel) {
    this.path = path;
    this.name = name;
    this.durable = durable;
    this.nextStep = nextStep;
    this.channel = channel;
  }

  /**
   * Opens {@code path} for appending.
   *
   * @param what what the file is, for messages: "the dead-letter file", "the checkpoint"
   * @param durable force every line to disk before {@link #append} returns
   * @param nextStep what the user should do when the file cannot be written, e.g. "free disk space, then rerun
   *     with --resume", and whether that continues the run
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be opened
   */
  public static JsonLinesFile open(Path path, String what, boolean durable, WayOn nextStep) {
    FileChannel channel = null;
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      boolean created = !Files.exists(path);
      channel = openAtEnd(path);
      if (created && durable && parent != null) {
        forceDirectory(parent);
      }
      return new JsonLinesFile(path, what, durable, nextStep, channel);
    } catch (IOException e) {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // already failing
        }
      }
      throw failure("open " + what, path, nextStep, e);
    }
  }

  /**
   * Every line of {@code path} that parses as JSON, in order; empty when it does not exist or is not a regular
   * file. A torn or unreadable line is skipped with a warning.
   *
   * @throws Pg2SpannerException LOCAL_IO when the file exists but cannot be read
   */
  public static List<JsonNode> read(Path path) {
    List<JsonNode> nodes = new ArrayList<>();
    // Only a regular file holds lines to read back (a device such as /dev/full reads forever).
    if (path == null || !Files.isRegularFile(path)) {
      return nodes;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw failure("read", path, WayOn.fixFirst("check that this user may read it"), e);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(line);
        if (node != null && node.isObject()) {
          nodes.add(node);
          continue;
        }
        LOG.warn("Ignoring line {} of {}: not a JSON object", i + 1, path);
      } catch (JsonProcessingException e) {
        LOG.warn("Ignoring line {} of {} ({})", i + 1, path, e.getOriginalMessage());
      }
    }
    return nodes;
  }

  /**
   * Appends {@code value} (serialised by Jackson) as one line.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be written
   */
  public void append(Object value) {
    byte[] line;
    try {
      line = (JSON.writeValueAsString(value) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a line of " + path, e);
    }
    synchronized (this) {
      if (channel == null) {
        throw new IllegalStateException(path + " is closed");
      }
      // A FileChannel closes itself, for every writer, when the thread writing is interrupted (a verifier stopped by
      // the cutover, a worker stopped by a failure): the interrupt is held off during the write and kept for the
      // caller; one arriving during the write closes the channel, which is then reopened and the line written again.
      boolean interrupted = Thread.interrupted();
      try {
        try {
          write(line);
        } catch (java.nio.channels.ClosedByInterruptException e) {
          interrupted |= Thread.interrupted();
          channel = openAtEnd(path);
          write(line);
        }
      } catch (IOException e) {
        throw failure("write " + name, path, nextStep, e);
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private void write(byte[] line) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(line);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
    if (durable) {
      channel.force(true);
    }
  }

  /** A channel at the end of {@code path}, a torn last line (a crash's, an interrupted write's) cut off. */
  private static FileChannel openAtEnd(Path path) throws IOException {
    FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    if (Files.isRegularFile(path)) {
      try {
        cutTornLine(path, channel);
        channel.position(channel.size());
      } catch (IOException e) {
        channel.close();
        throw e;
      }
    }
    return channel;
  }

  public Path path() {
    return path;
  }

  @Override
  public synchronized void close() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        LOG.warn("Closing {} failed: {}", path, e.getMessage());
      }
      channel = null;
    }
  }

  /** Cuts a last line that has no newline, so the next append starts on a line of its own. */
  private static void cutTornLine(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    long end = size;
    ByteBuffer one = ByteBuffer.allocate(1);
    while (end > 0) {
      one.clear();
      channel.read(one, end - 1);
      if (one.get(0) == '\n') {
        break;
      }
      end--;
    }
    if (end < size) {
      LOG.warn("Ignoring a torn last line in {} (the process stopped while writing it)", path);
      channel.truncate(end);
      channel.force(true);
    }
  }

  /** Makes a new file's directory entry durable; not every platform can open a directory, which is fine. */
  static void forceDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.debug("Cannot force directory {}: {}", dir, e.getMessage());
    }
  }

  private static Pg2SpannerException failure(String what, Path path, WayOn nextStep, IOException e) {
    return new Pg2SpannerException(ExitCode.LOCAL_IO, nextStep.next(), "Cannot " + what + " " + path + " ("
        + e.getMessage() + "); " + nextStep.words() + ".", e);
  }
}
