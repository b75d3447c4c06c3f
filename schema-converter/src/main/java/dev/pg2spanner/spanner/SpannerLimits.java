package dev.pg2spanner.spanner;

/**
 * Spanner's limits, one set per dialect ({@link SpannerDialect#limits()}): the one place the tool writes them down.
 * Every check against a Spanner limit (planner, plan validator, type mapping, DDL types, loader, Beam pipeline) asks
 * this class.
 *
 * <p>Source: Google's "Quotas and limits" page, <a href="https://cloud.google.com/spanner/quotas">
 * https://cloud.google.com/spanner/quotas</a> (its tables are not per dialect: a limit it lists holds for both), and
 * for the type limits the data type references, <a
 * href="https://cloud.google.com/spanner/docs/reference/standard-sql/data-types">GoogleSQL data types</a> and <a
 * href="https://cloud.google.com/spanner/docs/storing-numeric-data">Store arbitrary precision numeric data</a>.
 * Each value below names the row of the page it comes from. The Spanner emulator (1.5.28, checked 2026-11-23)
 * rejects DDL over the schema limits with the same numbers (e.g. "Table T7 is too deeply nested; the limit is 7",
 * "Table A has too many keys (17); the limit is 16"), but enforces neither the key size nor the per-commit limits,
 * so the tool must.
 *
 * <p>Where the PostgreSQL dialect's limit is the same, both sets share the value (the methods below that take no
 * field); only {@code NUMERIC} differs today.
 */
public final class SpannerLimits {

  /** A GoogleSQL-dialect database's: {@code NUMERIC} holds 38 digits, 9 after the decimal point. */
  public static final SpannerLimits GOOGLE_STANDARD_SQL = new SpannerLimits(38, 9);

  /**
   * A PostgreSQL-dialect database's. Its {@code numeric} has arbitrary precision: up to 147,455 digits, of which up to
   * 16,383 after the decimal point ("Store arbitrary precision numeric data").
   */
  public static final SpannerLimits POSTGRESQL = new SpannerLimits(147_455, 16_383);

  private final int numericPrecision;
  private final int numericScale;

  private SpannerLimits(int numericPrecision, int numericScale) {
    this.numericPrecision = numericPrecision;
    this.numericScale = numericScale;
  }

  /** "Number of columns in a table key": 16, including the key columns shared with any parent table. */
  public int maxKeyColumns() {
    return 16;
  }

  /**
   * "Number of columns in an index key": 16. Google counts the indexed columns (not the STORING ones) plus the
   * primary key columns of the base table; the emulator counts each column once (16 columns including the key
   * column pass, 16 columns besides a one-column key are rejected with "Index I has too many keys (17); the limit
   * is 16"). The planner and the plan validator count only the indexed columns so far.
   */
  public int maxIndexKeyColumns() {
    return 16;
  }

  /**
   * "Total size of a table or index key": 8 KiB, all key columns of a row together. The emulator does not enforce
   * it.
   */
  public long maxKeyBytes() {
    return 8L << 10;
  }

  /**
   * "Size of data per column": 10 MiB for one cell, a whole array included; no column type holds more. It is also
   * the largest length a {@code BYTES(n)} column can declare, 10,485,760.
   */
  public int maxCellBytes() {
    return 10 << 20;
  }

  /** The largest length a {@code STRING(n)} column can declare, in characters: 2,621,440 (GoogleSQL data types). */
  public int maxStringLength() {
    return 2_621_440;
  }

  /** "Columns per table": 1,024. */
  public int maxColumnsPerTable() {
    return 1_024;
  }

  /** "Table name length", "Column name length", "Index name length": 1 to 128 characters. */
  public int maxIdentifierLength() {
    return 128;
  }

  /**
   * "Table interleaving depth": 7. A top-level table is one level deep, a table interleaved in it two, and so on,
   * so one hierarchy holds a top-level table and at most six levels of interleaved tables below it (older versions
   * of the page wrote the same limit as 6, counting from the top-level table's children; the emulator rejects the
   * eighth level with "Table T7 is too deeply nested; the limit is 7"). Compare with
   * {@code InterleaveTree.depth}, which counts the same way.
   */
  public int maxInterleaveDepth() {
    return 7;
  }

  /**
   * "Mutations per commit (including indexes)": 80,000, where a row write counts its cells (columns written) times
   * one plus the number of secondary indexes on the table. The emulator does not enforce it.
   */
  public int maxMutationsPerCommit() {
    return 80_000;
  }

  /** "Commit size (including indexes)": 100 MiB per commit request. */
  public long maxCommitBytes() {
    return 100L << 20;
  }

  /** The most digits a {@code NUMERIC} value holds: 38 in GoogleSQL. */
  public int numericPrecision() {
    return numericPrecision;
  }

  /** The most digits after the decimal point a {@code NUMERIC} value holds: 9 in GoogleSQL. */
  public int numericScale() {
    return numericScale;
  }

  /** The most digits before the decimal point: precision − scale, 29 in GoogleSQL. */
  public int numericIntegerDigits() {
    return numericPrecision - numericScale;
  }
}
