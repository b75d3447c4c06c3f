package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.pg2spanner.finding.Finding;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The contract between {@code plan} and everything after it: {@code migrate}, the Beam pipeline and {@code verify}
 * read only this (plus the live rows) and never re-derive a decision from the catalog.
 *
 * @param formatVersion the file format version ({@link #FORMAT_VERSION})
 * @param generatedBy "pg2spanner VERSION"
 * @param generatedAt when plan ran
 * @param source what was read
 * @param target what the DDL is written for
 * @param tables tables in dependency order (parents before interleaved children)
 * @param sequences Spanner sequences the DDL creates
 * @param findings database-wide findings (objects not migrated, ...); table findings live on the table
 */
@JsonPropertyOrder({"formatVersion", "generatedBy", "generatedAt", "source", "target", "tables", "sequences",
    "findings"})
public record Plan(
    int formatVersion,
    String generatedBy,
    Instant generatedAt,
    Source source,
    Target target,
    List<TablePlan> tables,
    List<SequencePlan> sequences,
    List<Finding> findings) {

  public static final int FORMAT_VERSION = 1;

  /**
   * @param endpoint "host:port/database" (never a user or password)
   * @param serverVersion the PostgreSQL version
   * @param schemas the schemas read
   * @param fingerprint a hash of the catalog shape of the planned tables (names, columns, types, keys); migrate
   *     compares it with the live source to catch schema changes since plan
   * @param excludeTables the {@code --exclude-tables} expression plan ran with, or null: tables it matches are left
   *     out on purpose, every other table of {@code schemas} is expected in the plan
   */
  public record Source(String endpoint, String serverVersion, List<String> schemas, String fingerprint,
      String excludeTables) {
    @com.fasterxml.jackson.annotation.JsonCreator
    public Source {
      Objects.requireNonNull(endpoint, "endpoint");
      schemas = List.copyOf(schemas);
      Objects.requireNonNull(fingerprint, "fingerprint");
    }

    public Source(String endpoint, String serverVersion, List<String> schemas, String fingerprint) {
      this(endpoint, serverVersion, schemas, fingerprint, null);
    }

    /** This source, recording the {@code --exclude-tables} expression. */
    public Source excluding(String pattern) {
      return new Source(endpoint, serverVersion, schemas, fingerprint, pattern);
    }
  }

  /**
   * @param dialect always "GOOGLE_STANDARD_SQL" for now
   * @param namedSchemas true when non-default PostgreSQL schemas become Spanner named schemas (else a prefix)
   * @param nodes expected node count (sizes shards and the write-skew model)
   */
  public record Target(String dialect, boolean namedSchemas, int nodes) {
    public Target {
      Objects.requireNonNull(dialect, "dialect");
    }

    /**
     * The dialect {@link #dialect} names.
     *
     * @throws IllegalArgumentException naming the text when it names no dialect (a hand-edited plan; the plan
     *     validator reports it)
     */
    public dev.pg2spanner.spanner.SpannerDialect spannerDialect() {
      return dev.pg2spanner.spanner.SpannerDialect.named(dialect);
    }
  }

  public Plan {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    tables = List.copyOf(tables);
    sequences = sequences == null ? List.of() : List.copyOf(sequences);
    findings = findings == null ? List.of() : List.copyOf(findings);
  }

  public Optional<TablePlan> tableBySource(String sourceName) {
    return tables.stream().filter(t -> t.source().equals(sourceName)).findFirst();
  }

  /** This plan with the table of the same target replaced by {@code table} (a revision: a column changed). */
  public Plan withTable(TablePlan table) {
    List<TablePlan> revised = tables.stream().map(t -> t.target().equals(table.target()) ? table : t).toList();
    return new Plan(formatVersion, generatedBy, generatedAt, source, target, revised, sequences, findings);
  }

  /** This plan with {@code table} added last, and the sequences its columns use that the plan lacks (a new table). */
  public Plan withTableAdded(TablePlan table, List<SequencePlan> newSequences) {
    List<TablePlan> revised = new java.util.ArrayList<>(tables);
    revised.add(table);
    List<SequencePlan> seqs = new java.util.ArrayList<>(sequences);
    for (SequencePlan s : newSequences) {
      if (seqs.stream().noneMatch(have -> have.target().equals(s.target()))) {
        seqs.add(s);
      }
    }
    return new Plan(formatVersion, generatedBy, generatedAt, source, target, revised, seqs, findings);
  }

  /** This plan without the table {@code targetName} (a table dropped on the source). */
  public Plan withoutTable(String targetName) {
    List<TablePlan> revised = tables.stream().filter(t -> !t.target().equals(targetName)).toList();
    return new Plan(formatVersion, generatedBy, generatedAt, source, target, revised, sequences, findings);
  }

  public Optional<TablePlan> tableByTarget(String targetName) {
    return tables.stream().filter(t -> t.target().equals(targetName)).findFirst();
  }
}
