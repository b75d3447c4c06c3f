package dev.pg2spanner.planner;

import dev.pg2spanner.plan.HashShard;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import java.util.ArrayList;
import java.util.List;

/**
 * The hash-shard strategy: a stored shard column, {@code MOD(ABS(FARM_FINGERPRINT(key)), shards)}, leads the key of
 * the table and of every table interleaved under it; existing key values are unchanged.
 */
final class HashShardKey {

  private HashShardKey() {}

  /** @return what the plan does, for the finding */
  static String apply(KeyDrafts drafts, KeyDraft root, PlannerOptions options) {
    return apply(drafts, root, options, "the key grows monotonically; a stored shard column derived from it leads the "
        + "key");
  }

  /**
   * @param reason the root's strategy reason
   * @return what the plan does, for the finding
   */
  static String apply(KeyDrafts drafts, KeyDraft root, PlannerOptions options, String reason) {
    int shards = options.shards();
    List<KeyPart> originalKey = List.copyOf(root.primaryKey);
    List<KeyDraft> family = new ArrayList<>();
    family.add(root);
    family.addAll(drafts.descendants(root));
    String shardColumn = KeyDrafts.freeName("shard_id", family);
    HashShard shard = KeyDrafts.hashShard(root, originalKey.stream().map(KeyPart::column).toList(), shards);
    for (KeyDraft member : family) {
      member.addShardColumn(shardColumn, true, shard, true);
      List<KeyPart> key = new ArrayList<>();
      key.add(KeyPart.asc(shardColumn));
      key.addAll(member.primaryKey);
      member.primaryKey = key;
      member.strategy = KeyStrategy.hashShard(member == root
          ? reason
          : "interleaved in the hash-sharded " + root.target() + ": carries the same shard column", shardColumn,
          shards, originalKey.stream().map(KeyPart::column).toList());
    }
    String keyList = String.join(", ", originalKey.stream().map(KeyPart::column).toList());
    // The expression the plan's DDL creates, in the plan's dialect.
    return "The plan adds " + shardColumn + " = " + shard.expression(options.dialect()) + " as a stored "
        + "generated column in front of the key (" + shards + " shards, from --nodes " + options.nodes() + ")"
        + (family.size() > 1 ? ", and the same column in front of the keys of its interleaved descendants ("
            + String.join(", ", family.subList(1, family.size()).stream().map(KeyDraft::target).toList()) + ")" : "")
        + ", so concurrent inserts spread over " + shards + " places. Existing key values are unchanged. "
        + KeyConsequences.inFinding(KeyConsequences.hashShard(keyList, shardColumn, shards));
  }
}
