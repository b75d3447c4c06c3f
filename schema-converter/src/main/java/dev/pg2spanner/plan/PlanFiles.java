package dev.pg2spanner.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.spanner.SpannerLimits;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The plan's file form: {@code plan.yaml}, written by {@code plan}, reviewed and edited by a person, read by
 * {@code migrate}, the Beam pipeline and {@code verify}. Reading is strict (unknown fields, wrong types, unknown
 * enum values, missing required fields and semantic problems are all errors) because a hand edit that is silently
 * ignored would migrate something other than what the person reviewed. Every error names the field by its path,
 * e.g. {@code tables[3].keyStrategy.kind}.
 */
public final class PlanFiles {

  /** At most this many problems are listed in one error message; the rest are counted. */
  static final int MAX_LISTED = 20;

  /** SnakeYAML refuses documents above 3 MB by default; a plan for thousands of tables is bigger than that. */
  private static final int MAX_PLAN_CHARS = 512 * 1024 * 1024;

  private static final ObjectMapper YAML = yamlMapper();

  private PlanFiles() {}

  /**
   * Writes {@code plan} as YAML (see {@link #toYaml}), replacing the file.
   *
   * @throws Pg2SpannerException LOCAL_IO naming the file when it cannot be written
   */
  public static void write(Plan plan, Path file) {
    String body = toYaml(plan);
    // The first line records a hash of what follows, so a later run of plan can tell an untouched file (replaced
    // freely) from one a person edited (kept unless asked); see isUntouched.
    String yaml = GENERATED_MARK + sha256(body) + "\n" + body;
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot write the plan file " + file + ": " + describe(e)
          + "; check that the directory is writable and the disk is not full", e);
    }
  }

  /**
   * The plan as YAML: a header comment that says how to edit it, then the fields in a stable order. The same plan
   * always gives the same text (line feeds, no trailing document marker, map entries sorted by key).
   */
  public static String toYaml(Plan plan) {
    try {
      return header(plan) + YAML.writeValueAsString(plan);
    } catch (JsonProcessingException e) {
      // Every value in a Plan is a record, list, string, number, boolean or Instant: this is a bug.
      throw new IllegalStateException("cannot serialise the plan: " + e.getOriginalMessage(), e);
    }
  }

  /** The first line of a plan file that plan wrote; the hash of the rest follows it. */
  static final String GENERATED_MARK = "# written by pg2spanner plan; content sha256: ";

  /**
   * True when {@code file} is exactly as {@code plan} wrote it (its recorded hash matches), so replacing it loses
   * nothing; false when a person edited it, or it was not written by plan.
   */
  public static boolean isUntouched(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return false;
    }
    int nl = text.indexOf('\n');
    if (!text.startsWith(GENERATED_MARK) || nl < 0) {
      return false;
    }
    return text.substring(GENERATED_MARK.length(), nl).strip().equals(sha256(text.substring(nl + 1)));
  }

  private static String sha256(String text) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
    }
  }

  /**
   * Reads and validates a plan file.
   *
   * @throws Pg2SpannerException LOCAL_IO when the file cannot be read; PLAN_INVALID listing every problem found,
   *     one per line, each with the path of the field
   */
  public static Plan read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new Pg2SpannerException(ExitCode.PLAN_INVALID, "plan file " + file + " does not exist; "
          + "run `pg2spanner plan` to write one, or pass the path of an existing plan.yaml with --plan", e);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read the plan file " + file + ": " + describe(e)
          + "; check that it is a readable UTF-8 text file", e);
    }
    return fromYaml(text, file.toString());
  }

  /**
   * Parses and validates plan YAML.
   *
   * @param fileName how error messages name the file (e.g. its path)
   * @throws Pg2SpannerException PLAN_INVALID listing every problem found
   */
  public static Plan fromYaml(String yaml, String fileName) {
    PlanReadErrors.Scan scan;
    try (JsonParser parser = YAML.createParser(yaml)) {
      scan = PlanReadErrors.scan(parser, Plan.class);
    } catch (JsonProcessingException e) {
      throw invalid(fileName, List.of(PlanReadErrors.syntax(e)));
    } catch (IOException e) {
      throw new IllegalStateException("reading YAML from a string failed", e);
    }
    if (scan.duplicate() != null) {
      throw invalid(fileName, List.of(scan.duplicate()));
    }
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw invalid(fileName, List.of(PlanReadErrors.syntax(e)));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw invalid(fileName, List.of("the file is empty; run `pg2spanner plan` to write a plan"));
    }
    if (!tree.isObject()) {
      throw invalid(fileName, List.of("the file is not a plan: its top level must be a mapping of fields "
          + "(formatVersion, generatedBy, source, target, tables, ...); run `pg2spanner plan` to write one"));
    }
    String version = versionProblem(tree);
    if (version != null) {
      throw invalid(fileName, List.of(version));
    }
    if (!scan.unknownFields().isEmpty()) {
      throw invalid(fileName, scan.unknownFields());
    }
    Plan plan;
    try {
      plan = YAML.readValue(yaml, Plan.class);
    } catch (JsonProcessingException e) {
      // Jackson stops at the first binding problem; semantic checks run only on a plan that bound cleanly.
      throw invalid(fileName, List.of(PlanReadErrors.binding(e, tree)));
    }
    List<String> semantic = PlanValidator.problems(plan);
    if (!semantic.isEmpty()) {
      throw invalid(fileName, semantic);
    }
    return plan;
  }

  /** Null when the version is 1, else the problem. Checked before binding: another version may differ in shape. */
  private static String versionProblem(JsonNode root) {
    JsonNode version = root.get("formatVersion");
    String writer = root.path("generatedBy").isTextual() ? root.path("generatedBy").asText() : null;
    if (version == null || version.isNull()) {
      return "formatVersion: is required; a plan written by pg2spanner starts with `formatVersion: "
          + Plan.FORMAT_VERSION + "` (add it if the file was written by hand)";
    }
    if (!version.isIntegralNumber()) {
      return "formatVersion: '" + version.asText() + "' is not a format version; this pg2spanner reads "
          + "formatVersion " + Plan.FORMAT_VERSION;
    }
    if (version.asLong() != Plan.FORMAT_VERSION) {
      return "formatVersion: " + version.asText() + " is not supported; this pg2spanner reads formatVersion "
          + Plan.FORMAT_VERSION + " only, so use the pg2spanner version that wrote the file"
          + (writer == null ? "" : " (" + writer + ")") + " or re-run `pg2spanner plan` with this one";
    }
    return null;
  }

  private static Pg2SpannerException invalid(String fileName, List<String> problems) {
    StringBuilder message = new StringBuilder();
    int listed = Math.min(problems.size(), MAX_LISTED);
    for (int i = 0; i < listed; i++) {
      if (i > 0) {
        message.append('\n');
      }
      message.append("plan file ").append(fileName).append(": ").append(problems.get(i));
    }
    if (problems.size() > listed) {
      message.append('\n').append("plan file ").append(fileName).append(": and ").append(problems.size() - listed)
          .append(" more; fix the problems above and run again to see the rest");
    }
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, message.toString());
  }

  private static String header(Plan plan) {
    String by = plan.generatedBy() == null ? "pg2spanner" : plan.generatedBy();
    return """
        # pg2spanner migration plan, generated by %s from %s.
        # Review it (with report.md beside it), edit it if you want, then run:
        #   pg2spanner migrate --plan plan.yaml --target ...
        # migrate validates every field first and names the field of any problem.
        #
        # Safe to edit:
        #   tables[].target, columns[].target       Spanner names ([A-Za-z][A-Za-z0-9_]*, at most %d
        #                                            characters, unique ignoring case; rename references too)
        #   columns[].targetType, columns[].notNull  within what the conversion allows (see docs/plan-yaml.md)
        #   tables[].keyStrategy                     kind: keep | bit-reversed | hash-shard | uuid | swap | synthetic
        #                                            with its parameters, and reason (why; keep it truthful)
        #   tables[].interleave                      a parent table, or null for a top-level table
        #   indexes, foreignKeys, checks             delete entries you do not want; rename targets
        # Do not edit: formatVersion, source (its fingerprint guards against schema changes), columns[].source,
        # columns[].sourceType, columns[].conversion, findings (rewritten by the next `pg2spanner plan`).
        """.formatted(by, plan.source().endpoint().replace('\n', ' '),
        SpannerLimits.GOOGLE_STANDARD_SQL.maxIdentifierLength());
  }

  private static String describe(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + " "
        + e.getMessage();
  }

  private static ObjectMapper yamlMapper() {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(MAX_PLAN_CHARS);
    YAMLFactory factory = YAMLFactory.builder()
        .loaderOptions(loader)
        .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
        .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
        // A string such as "123" in a finding's evidence must stay a string when read back.
        .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
        // Long messages stay on one line: a folded line is legal YAML but easy to break while editing.
        .disable(YAMLGenerator.Feature.SPLIT_LINES)
        .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
        // Duplicate fields are found by PlanReadErrors.scan before reading, with path and line.
        .build();
    YAMLMapper mapper = YAMLMapper.builder(factory)
        .addModule(new JavaTimeModule())
        .addModule(new SimpleModule("plain-doubles")
            .addSerializer(Double.class, new PlainDoubleSerializer())
            .addSerializer(double.class, new PlainDoubleSerializer()))
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(MapperFeature.AUTO_DETECT_IS_GETTERS)
        .serializationInclusion(JsonInclude.Include.NON_NULL)
        // Findings are ALWAYS-included for report.json's fixed shape; in the plan their absent fields are noise.
        .addMixIn(Finding.class, OmitNulls.class)
        .build();
    // An absent or empty list means "none" (a hand-written index needs no `storing: []`); the validator then
    // says when a list must not be empty (columns, primaryKey, ...).
    mapper.configOverride(List.class).setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY));
    mapper.configOverride(Map.class).setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY));
    return mapper;
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  private abstract static class OmitNulls {}

  /**
   * Writes 52000000.0 rather than 5.2E7: a person reads row estimates. Keeps a decimal point so that a double in
   * a finding's evidence reads back as a double.
   */
  private static final class PlainDoubleSerializer extends StdSerializer<Double> {
    private static final long serialVersionUID = 1L;

    PlainDoubleSerializer() {
      super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      double abs = Math.abs(value);
      if (value.isNaN() || value.isInfinite() || (abs != 0 && (abs < 1e-6 || abs >= 1e18))) {
        gen.writeNumber(value);
        return;
      }
      String plain = BigDecimal.valueOf(value).toPlainString();
      gen.writeNumber(plain.contains(".") ? plain : plain + ".0");
    }
  }
}
