package dev.pg2spanner.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code report.json}: the plan's decisions and findings for machines (CI gates, dashboards). Its shape is a
 * stable contract documented in {@code docs/report-json.md}: fields may be added, never renamed or removed.
 * Rendered from the plan only, pretty-printed, and byte-for-byte deterministic.
 */
public final class JsonReport {

  /** The version of report.json's shape (independent of the plan's formatVersion). */
  public static final int FORMAT_VERSION = 1;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .build();

  private JsonReport() {}

  /** The report as pretty-printed JSON ending with a line feed. */
  public static String render(Plan plan) {
    ObjectNode root = JSON.createObjectNode();
    root.put("formatVersion", FORMAT_VERSION);
    // Additions to the documented minimum come before the long lists, so a person opening the file sees them.
    root.put("generatedBy", plan.generatedBy());
    root.put("generatedAt", plan.generatedAt() == null ? null : plan.generatedAt().toString());
    ObjectNode source = root.putObject("source");
    source.put("endpoint", plan.source().endpoint());
    source.put("serverVersion", plan.source().serverVersion());
    ArrayNode schemas = source.putArray("schemas");
    plan.source().schemas().forEach(schemas::add);
    source.put("fingerprint", plan.source().fingerprint());
    ObjectNode target = root.putObject("target");
    target.put("dialect", plan.target().dialect());
    target.put("namedSchemas", plan.target().namedSchemas());
    target.put("nodes", plan.target().nodes());

    List<Finding> findings = ReportFindings.all(plan);
    ObjectNode summary = root.putObject("summary");
    summary.put("tables", plan.tables().size());
    ReportFindings.Totals totals = ReportFindings.totals(plan);
    summary.put("rowsEstimate", totals.rows());
    summary.put("tablesWithoutRowsEstimate", totals.tablesWithoutRows());
    summary.put("bytesEstimate", totals.bytes());
    counts(summary.putObject("findingCounts"), findings);
    // The catalogue entry of each code that occurs, once (added in format version 1: consumers ignore what they
    // do not know).
    ObjectNode codes = root.putObject("codes");
    for (FindingCode code : ReportFindings.codes(findings).keySet()) {
      ObjectNode entry = codes.putObject(code.name());
      entry.put("title", code.title());
      entry.put("severity", code.defaultSeverity().json());
      entry.put("remedy", code.remedy());
    }

    ArrayNode tables = root.putArray("tables");
    for (TablePlan t : plan.tables()) {
      ObjectNode table = tables.addObject();
      table.put("source", t.source());
      table.put("target", t.target());
      table.put("keyStrategy", t.keyStrategy().kind().json());
      table.put("interleaveParent", t.interleave() == null ? null : t.interleave().parent());
      table.put("keyStrategyReason", t.keyStrategy().reason());
      ArrayNode key = table.putArray("primaryKey");
      t.primaryKey().forEach(p -> key.add(p.column()));
      table.put("rowsEstimate", ReportFindings.rows(t));
      table.put("bytesEstimate", t.bytesEstimate());
      table.put("indexes", t.indexes().size());
      table.put("foreignKeys", t.foreignKeys().size());
      counts(table.putObject("findingCounts"), t.findings());
    }

    ArrayNode list = root.putArray("findings");
    for (Finding f : findings) {
      ObjectNode finding = list.addObject();
      finding.put("code", f.code().name());
      finding.put("severity", f.severity().json());
      finding.put("table", f.table());
      finding.put("column", f.column());
      finding.put("index", f.index());
      finding.put("message", f.message());
      finding.set("evidence", JSON.valueToTree(f.evidence()));
    }
    try {
      return JSON.writer(new Printer()).writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      // The tree holds only strings, numbers, booleans, nulls and evidence values: this is a bug.
      throw new IllegalStateException("cannot render report.json: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Writes {@link #render} to {@code file}, creating its directory.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be written
   */
  public static void write(Plan plan, Path file) {
    writeReport(render(plan), file);
  }

  static void writeReport(String text, Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write the report " + file + ": "
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage())
          + "; check that the directory is writable and the disk is not full", e);
    }
  }

  private static void counts(ObjectNode node, List<Finding> findings) {
    for (Map.Entry<Severity, Integer> e : ReportFindings.counts(findings).entrySet()) {
      node.put(e.getKey().json(), e.getValue());
    }
  }

  /** Two-space indents, "key": value, line feeds on every platform, [] and {} for empty containers. */
  private static final class Printer extends DefaultPrettyPrinter {
    private static final long serialVersionUID = 1L;

    Printer() {
      DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
      indentObjectsWith(indenter);
      indentArraysWith(indenter);
    }

    Printer(Printer base) {
      super(base);
    }

    @Override
    public DefaultPrettyPrinter createInstance() {
      return new Printer(this);
    }

    @Override
    public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
      g.writeRaw(": ");
    }

    @Override
    public void writeEndObject(JsonGenerator g, int nrOfEntries) throws IOException {
      if (!_objectIndenter.isInline()) {
        --_nesting;
      }
      if (nrOfEntries > 0) {
        _objectIndenter.writeIndentation(g, _nesting);
      }
      g.writeRaw('}');
    }

    @Override
    public void writeEndArray(JsonGenerator g, int nrOfValues) throws IOException {
      if (!_arrayIndenter.isInline()) {
        --_nesting;
      }
      if (nrOfValues > 0) {
        _arrayIndenter.writeIndentation(g, _nesting);
      }
      g.writeRaw(']');
    }
  }
}
