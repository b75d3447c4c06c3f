package dev.pg2spanner.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rejected rows, one JSON object per line with the fields of {@link RejectedRow} ({@code table}, {@code key},
 * {@code column}, {@code valueExcerpt}, {@code reason}; absent values are {@code null}). The file is appended to
 * (an earlier run's lines stay); {@link #count()} counts the rows written through this instance. Each line is
 * flushed as it is written, so a crash loses none. Thread-safe.
 */
public final class DeadLetterFile implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path path;
  private final AtomicLong count = new AtomicLong();
  private Writer writer;

  private DeadLetterFile(Path path, Writer writer) {
    this.path = path;
    this.writer = writer;
  }

  /**
   * Opens {@code file} for appending, creating it and its directory when missing.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be opened
   */
  public static DeadLetterFile open(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      return new DeadLetterFile(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
    } catch (IOException e) {
      throw failure(file, e);
    }
  }

  /** One row as a dead-letter line, without the newline: the one serialisation every runner writes. */
  public static String line(RejectedRow row) {
    try {
      return JSON.writeValueAsString(row);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise a rejected row", e);
    }
  }

  /**
   * Appends one row and counts it.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be written (disk full, ...)
   */
  public void write(RejectedRow row) {
    String line = line(row) + "\n";
    synchronized (this) {
      if (writer == null) {
        throw new IllegalStateException("dead-letter file " + path + " is closed");
      }
      try {
        writer.write(line);
        writer.flush();
      } catch (IOException e) {
        throw failure(path, e);
      }
      count.incrementAndGet();
    }
  }

  /** Rows written through this instance. */
  public long count() {
    return count.get();
  }

  public Path path() {
    return path;
  }

  @Override
  public synchronized void close() {
    if (writer != null) {
      try {
        writer.close();
      } catch (IOException e) {
        throw failure(path, e);
      } finally {
        writer = null;
      }
    }
  }

  private static Pg2SpannerException failure(Path file, IOException e) {
    return new Pg2SpannerException(ErrorCode.LOCAL_IO, "Cannot write the dead-letter file " + file + " ("
        + e.getMessage() + "); free disk space or choose another dead-letter file, then rerun with --resume.", e);
  }
}
