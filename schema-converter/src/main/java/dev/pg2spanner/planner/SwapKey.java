package dev.pg2spanner.planner;

import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import java.util.ArrayList;
import java.util.List;

/**
 * The swap strategy: a composite key reordered so that a well-distributed column leads and the monotonic one follows
 * (descending, for time); interleaved descendants follow the new column order. No value changes.
 */
final class SwapKey {

  private SwapKey() {}

  /** @return what the plan does, for the finding */
  static String apply(KeyDrafts drafts, KeyDraft d, ColumnPlan lead, boolean time, String newLead) {
    List<KeyPart> key = new ArrayList<>();
    key.add(KeyPart.asc(newLead));
    for (KeyPart part : d.primaryKey) {
      if (part.column().equals(newLead)) {
        continue;
      }
      key.add(part.column().equals(lead.target()) ? new KeyPart(part.column(), time || part.descending()) : part);
    }
    List<KeyPart> oldKey = d.primaryKey;
    d.primaryKey = key;
    d.strategy = KeyStrategy.swap(newLead + " is well distributed and now leads the key; " + lead.target()
        + " follows" + (time ? " in descending order" : ""));
    for (KeyDraft child : drafts.descendants(d)) {
      List<KeyPart> childKey = new ArrayList<>(key);
      childKey.addAll(child.primaryKey.subList(oldKey.size(), child.primaryKey.size()));
      child.primaryKey = childKey;
      child.strategy = KeyStrategy.swap("interleaved in " + d.target() + ": its key prefix follows the parent's new "
          + "column order");
    }
    return "The plan reorders the key to (" + String.join(", ", key.stream().map(p -> p.column()
        + (p.descending() ? " DESC" : "")).toList()) + "): " + newLead + " is well distributed and now leads instead "
        + "of " + lead.target() + ", so inserts spread across its values. No value changes. "
        + KeyConsequences.inFinding(KeyConsequences.swap(newLead));
  }
}
