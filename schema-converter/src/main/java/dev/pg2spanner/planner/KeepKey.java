package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.hotspot.WriteRate;
import dev.pg2spanner.plan.KeyStrategy;
import java.util.Locale;
import java.util.Map;

/** The keep strategy: the key stays as in PostgreSQL, with the reason the policy kept it. */
final class KeepKey {

  private KeepKey() {}

  /**
   * Keeps the key of {@code d} for the reason {@code decision} gives.
   *
   * @return what the plan does, for the finding; null for a key with nothing to report (not monotonic, or remapped
   *     to UUIDs by another table's request)
   */
  static String apply(KeyDraft d, KeyDecision decision) {
    KeyEvidence e = decision.evidence();
    String lead = e.lead().target();
    WriteRate rate = e.writeRate();
    String threshold = KeyPolicy.threshold(e.lowWriteInsertsPerSecond());
    switch (decision.reason()) {
      case REMAPPED_REFERENCE -> {
        // A referencing column remapped by another table's uuid strategy: its values are now random UUIDs.
        d.strategy = KeyStrategy.keep("the key leads with " + lead + ", whose values become UUIDs of the key it "
            + "references, spread evenly");
        return null;
      }
      case NOT_MONOTONIC -> {
        d.strategy = KeyStrategy.keep("the key leads with " + lead + ", which shows no sign of growing "
            + "monotonically (no sequence or time default" + correlationNote(e.leadSource()) + ")"
            + (e.requested() == null ? "" : "; keep was also requested with --key-strategy"));
        return null;
      }
      case REQUESTED -> {
        d.strategy = KeyStrategy.keep("requested with --key-strategy: the hotspot is accepted");
        return "The plan keeps the key because --key-strategy asked for it: every insert still goes to the end of "
            + "the key range.";
      }
      case ORDER_ONLY -> {
        d.strategy = KeyStrategy.keep("values arrive in order but nothing generates them (no sequence, identity or "
            + "time default): kept without a trusted insert rate of at least " + threshold + " inserts/s ("
            + rate.describe() + ")");
        return "Nothing generates these values, and a natural or externally assigned key that was loaded in order "
            + "(product codes, device ids from another system, invoice numbers) looks exactly like this, so the plan "
            + "keeps the key: changing a key is the most invasive change pg2spanner makes to an application. Insert "
            + "rate: " + rate.describe() + "; order alone changes a key only at " + threshold + " inserts/s or more, "
            + "measured over at least " + WriteRate.MIN_TRUSTED_WINDOW.toHours() + " hours of statistics. If new "
            + "rows do take ever larger values, every insert goes to the last key range: opt in with --key-strategy "
            + e.table() + "=" + decision.optIn().json() + ".";
      }
      case LOW_WRITE -> {
        d.strategy = KeyStrategy.keep("low write rate: " + rate.describe() + ", below "
            + e.lowWriteInsertsPerSecond() + " inserts/s; the hotspot is accepted");
        d.findings.add(Finding.of(FindingCode.LOW_WRITE_RATE, e.table(), e.leadSource().name(), null,
            "Key of " + e.table() + " kept despite the hotspot: " + rate.describe() + ".",
            Map.of("insertsPerSecond", rate.insertsPerSecond(), "threshold", e.lowWriteInsertsPerSecond())));
        return "The plan keeps the key because the table is written rarely (" + rate.describe() + "): a single "
            + "split absorbs that easily. Change keyStrategy in plan.yaml if the write load will grow.";
      }
      case NO_ROOM_FOR_SHARD -> {
        if (e.fullestKey() == null) {
          String wide = e.fullestTable();
          int columns = KeyDrafts.LIMITS.maxColumnsPerTable();
          d.strategy = KeyStrategy.keep("no room for a shard column: " + wide + " already has " + columns
              + " columns, Spanner's limit per table; the hotspot remains");
          return "The plan cannot add a shard column: " + wide + (wide.equals(d.target()) ? ""
              : ", interleaved under it,") + " already has " + columns + " columns, Spanner's limit per table, and "
              + "the shard column would be one more. The key is kept and every insert still goes to the end of the "
              + "key range: drop a column of " + wide + " in the source (or split the table) and plan again, or "
              + "choose --key-strategy " + e.table() + "=bit-reversed (a sequence-fed key) or swap.";
        }
        String full = e.fullestKey();
        int limit = KeyDrafts.LIMITS.maxKeyColumns();
        d.strategy = KeyStrategy.keep("no room for a shard column: " + full + " already has " + limit
            + " key columns, Spanner's limit; the hotspot remains");
        return "The plan cannot add a shard column in front of the key: " + full + (full.equals(d.target()) ? ""
            : ", interleaved under it,") + " already has " + limit + " key columns, Spanner's limit, and the shard "
            + "column would lead every key in the hierarchy. The key is kept and every insert still goes to the end "
            + "of the key range: shorten " + full + "'s key in plan.yaml (or make it top-level) and plan again with "
            + "--key-strategy " + e.table() + "=hash-shard.";
      }
      default -> throw new IllegalStateException("not a reason to keep a key: " + decision.reason());
    }
  }

  private static String correlationNote(PgColumn c) {
    return c.stats() == null || c.stats().correlation() == null ? ""
        : String.format(Locale.ROOT, "; pg_stats.correlation %.2f", c.stats().correlation());
  }
}
