package dev.pg2spanner.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.error.WayOn;
import dev.pg2spanner.load.row.RejectedRow;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rejected rows, one JSON object per line with the fields of {@link RejectedRow} ({@code table}, {@code key},
 * {@code column}, {@code valueExcerpt}, {@code reason}; absent values are {@code null}), written through
 * {@link JsonLinesFile} (so a crash loses no line and a torn last line is cut when the file is reopened).
 *
 * <p>The file holds <b>one line per row</b> across runs: a resumed run that rejects a row an earlier run already
 * listed (same table and key) does not list it again. {@link #listed()} counts the rows of the whole run (every
 * process that wrote the file: what {@code --max-bad-rows}, the summary and the run summary count);
 * {@link #count()} the rejections through this instance. Thread-safe.
 */
public final class DeadLetterFile implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JsonLinesFile file;
  private final Set<String> listed;
  private final java.util.Map<String, Long> listedByTable = new java.util.HashMap<>();
  private final AtomicLong count = new AtomicLong();

  private DeadLetterFile(JsonLinesFile file, Set<String> listed) {
    this.file = file;
    this.listed = listed;
    for (String identity : listed) {
      listedByTable.merge(identity.substring(0, identity.indexOf('\0')), 1L, Long::sum);
    }
  }

  /**
   * Opens {@code file} for appending, creating it and its directory when missing.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be opened
   */
  public static DeadLetterFile open(Path file) {
    JsonLinesFile lines = JsonLinesFile.open(file, "the dead-letter file", false,
        WayOn.resume("free disk space or choose another dead-letter file, then rerun with --resume"));
    return new DeadLetterFile(lines, listedRows(file));
  }

  /** The (table, key) identities of the rows a dead-letter file lists; empty when there is none. */
  public static Set<String> listedRows(Path file) {
    Set<String> keys = new HashSet<>();
    for (JsonNode node : JsonLinesFile.read(file)) {
      keys.add(identity(node.path("table").asText(), node.path("key").asText()));
    }
    return keys;
  }

  /** The identity {@link #listedRows} holds for a row of {@code table} named {@code key} ({@link RowKey}). */
  public static String identity(String table, String key) {
    return table + '\0' + key;
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
   * Lists one row (unless the file already does) and counts it.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be written (disk full, ...)
   */
  public void write(RejectedRow row) {
    synchronized (this) {
      if (listed.add(identity(row.table(), row.key()))) {
        file.append(row);
        listedByTable.merge(row.table(), 1L, Long::sum);
      }
      count.incrementAndGet();
    }
  }

  /** Rows rejected through this instance (whether or not an earlier run had listed them). */
  public long count() {
    return count.get();
  }

  /** Rows the file lists: every row the whole run rejected, over all the processes that wrote it. */
  public synchronized long listed() {
    return listed.size();
  }

  /** Rows of {@code table} the file lists (the whole run's). */
  public synchronized long listed(String table) {
    return listedByTable.getOrDefault(table, 0L);
  }

  public Path path() {
    return file.path();
  }

  @Override
  public void close() {
    file.close();
  }
}
