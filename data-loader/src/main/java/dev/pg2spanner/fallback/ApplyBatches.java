package dev.pg2spanner.fallback;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.Timestamp;
import dev.pg2spanner.fallback.ChangeStreamReader.Change;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A window's changes cut into source transactions: many changes each (one round trip and one commit for many rows,
 * instead of one per change), bounded by a count and an estimate of their bytes so that no transaction holds its
 * locks, its memory or its WAL for long. A cut falls only between two commit timestamps, never inside one: the
 * position stored with a batch is the commit time up to which every change is applied, so a Spanner transaction is
 * applied whole or not at all, and a batch replayed after a crash applies the same rows again (idempotent).
 */
final class ApplyBatches {

  /** The most changes one source transaction holds (unless one Spanner commit alone holds more). */
  static final int MAX_CHANGES = 10_000;
  /** The most bytes of values (estimated) one source transaction holds (unless one Spanner commit alone holds more). */
  static final long MAX_BYTES = 32L << 20;

  /**
   * One source transaction's changes and the position stored with them.
   *
   * @param changes in commit order
   * @param appliedTo the commit time up to which every change is applied once this batch commits
   */
  record Batch(List<Change> changes, Timestamp appliedTo) {}

  private ApplyBatches() {}

  /**
   * Cuts {@code window} (every change committed in (position, end], in commit order) into batches; the last one's
   * position is {@code end}. An empty window gives one empty batch, which moves the position to {@code end}.
   */
  static List<Batch> cut(List<Change> window, Timestamp end, int maxChanges, long maxBytes) {
    List<Batch> batches = new ArrayList<>();
    int from = 0;
    long bytes = 0;
    int i = 0;
    while (i < window.size()) {
      Timestamp commit = window.get(i).commitTimestamp();
      int j = i;
      long commitBytes = 0;
      while (j < window.size() && window.get(j).commitTimestamp().equals(commit)) {
        commitBytes += bytes(window.get(j));
        j++;
      }
      if (i > from && (j - from > maxChanges || bytes + commitBytes > maxBytes)) {
        batches.add(new Batch(List.copyOf(window.subList(from, i)), window.get(i - 1).commitTimestamp()));
        from = i;
        bytes = 0;
      }
      bytes += commitBytes;
      i = j;
    }
    batches.add(new Batch(List.copyOf(window.subList(from, window.size())), end));
    return batches;
  }

  /** A change's size, estimated from its values: text as its length, anything else as 8 bytes. */
  static long bytes(Change c) {
    return 64 + bytes(c.keys()) + bytes(c.newValues()) + bytes(c.oldValues());
  }

  private static long bytes(Map<String, JsonNode> values) {
    long n = 0;
    for (Map.Entry<String, JsonNode> e : values.entrySet()) {
      n += e.getKey().length() + bytes(e.getValue());
    }
    return n;
  }

  private static long bytes(JsonNode v) {
    if (v == null) {
      return 0;
    }
    if (v.isTextual()) {
      return v.textValue().length();
    }
    if (v.isContainerNode()) {
      long n = 0;
      for (JsonNode e : v) {
        n += bytes(e);
      }
      return n + 8;
    }
    return 8;
  }
}
