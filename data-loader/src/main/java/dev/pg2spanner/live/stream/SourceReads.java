package dev.pg2spanner.live.stream;

import java.util.List;
import java.util.Map;

/**
 * What the live applier reads from the source while it applies changes, as an interface (tests give their own; the
 * production form is {@link SourceLookup}, one connection opened on first use).
 */
public interface SourceReads {

  /**
   * The current text of {@code wanted} columns of the row whose key columns hold {@code keyTexts}, or null when no
   * such row exists now (a later change removes or moves it).
   *
   * @param relation the relation, "schema.name" (read with ONLY: a partition or a table)
   * @param keyColumns the key column names
   * @param keyTypes their types as {@code format_type} prints them (the key texts are cast to them)
   */
  Map<String, String> row(String relation, List<String> keyColumns, List<String> keyTypes, List<String> keyTexts,
      List<String> wanted);

  /**
   * The partitioned table {@code relationId} is a partition of, "schema.name" of its root, or null when it is no
   * partition (or no longer exists).
   */
  String partitionRoot(int relationId);
}
