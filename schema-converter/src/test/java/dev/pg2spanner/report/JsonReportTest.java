package dev.pg2spanner.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.plan.Golden;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonReportTest {

  @Test
  void matchesTheGoldenFile() throws Exception {
    Golden.assertMatches("report/report.json.golden", JsonReport.render(PlanFixtures.shop()));
  }

  @Test
  void keepsTheDocumentedShape() throws Exception {
    JsonNode root = new ObjectMapper().readTree(JsonReport.render(PlanFixtures.shop()));
    assertThat(root.get("formatVersion").asInt()).isEqualTo(1);
    JsonNode orders = root.get("tables").get(0);
    assertThat(names(orders).subList(0, 4)).containsExactly("source", "target", "keyStrategy", "interleaveParent");
    assertThat(orders.get("source").asText()).isEqualTo("public.orders");
    assertThat(orders.get("keyStrategy").asText()).isEqualTo("bit-reversed");
    assertThat(orders.get("interleaveParent").isNull()).isTrue();
    assertThat(root.get("tables").get(1).get("interleaveParent").asText()).isEqualTo("orders");
    JsonNode first = root.get("findings").get(0);
    assertThat(names(first)).containsExactly("code", "severity", "table", "column", "index", "message", "evidence");
    assertThat(first.get("table").isNull()).isTrue();
    JsonNode hotspot = root.get("findings").findParents("code").stream()
        .filter(f -> f.get("code").asText().equals("HOTSPOT_KEY") && f.get("table").asText().equals("public.orders"))
        .findFirst().orElseThrow();
    assertThat(hotspot.get("severity").asText()).isEqualTo("warning");
    assertThat(hotspot.get("evidence").get("correlation").asDouble()).isEqualTo(0.999);
  }

  @Test
  void listsDatabaseAndTableFindingsBySeverityThenTableThenCode() throws Exception {
    Plan plan = PlanFixtures.shop();
    List<Finding> dbWide = new ArrayList<>(plan.findings());
    dbWide.add(Finding.of(FindingCode.UNSUPPORTED_TYPE, "public.zzz", "geom", null, "no type", null));
    plan = new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(), plan.target(),
        plan.tables(), plan.sequences(), dbWide);
    JsonNode findings = new ObjectMapper().readTree(JsonReport.render(plan)).get("findings");
    int total = plan.findings().size() + plan.tables().stream().mapToInt(t -> t.findings().size()).sum();
    assertThat(findings).hasSize(total);
    assertThat(findings.get(0).get("severity").asText()).isEqualTo("error");
    java.util.Comparator<JsonNode> documented = java.util.Comparator
        .comparing((JsonNode f) -> rank(f.get("severity").asText()))
        .thenComparing(f -> f.get("table").isNull() ? "" : f.get("table").asText())
        .thenComparing(f -> f.get("code").asText());
    for (int i = 1; i < findings.size(); i++) {
      assertThat(documented.compare(findings.get(i - 1), findings.get(i))).as("finding %d before %d", i - 1, i)
          .isLessThanOrEqualTo(0);
    }
  }

  @Test
  void addsEachCodesCatalogueEntryOnceHoweverManyFindingsItHas() throws Exception {
    Plan plan = PlanFixtures.shop();
    String json = JsonReport.render(plan);
    JsonNode root = new ObjectMapper().readTree(json);
    // Added beside the documented fields, which keep their names and order.
    assertThat(names(root)).containsSubsequence("formatVersion", "source", "target", "summary", "codes", "tables",
        "findings");
    List<Finding> findings = ReportFindings.all(plan);
    JsonNode codes = root.get("codes");
    assertThat(names(codes)).containsExactlyElementsOf(findings.stream().map(f -> f.code().name()).distinct()
        .sorted().toList());
    for (FindingCode code : List.of(FindingCode.NOT_MIGRATED, FindingCode.HOTSPOT_KEY)) {
      assertThat(findings.stream().filter(f -> f.code() == code).count()).as(code.name()).isGreaterThan(1);
      JsonNode entry = codes.get(code.name());
      assertThat(names(entry)).containsExactly("title", "severity", "remedy");
      assertThat(entry.get("title").asText()).isEqualTo(code.title());
      assertThat(entry.get("severity").asText()).isEqualTo(code.defaultSeverity().json());
      assertThat(entry.get("remedy").asText()).isEqualTo(code.remedy());
      assertThat(MarkdownReportTest.occurrences(json, code.remedy())).as(code.name()).isEqualTo(1);
    }
    assertThat(new ObjectMapper().readTree(JsonReport.render(PlanFixtures.withoutFindings(plan))).get("codes"))
        .isEmpty();
  }

  @Test
  void isDeterministicAndWritesTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("out/report.json");
    JsonReport.write(PlanFixtures.shop(), file);
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo(JsonReport.render(PlanFixtures.shop()));
  }

  private static String rank(String severity) {
    return switch (severity) {
      case "error" -> "0";
      case "warning" -> "1";
      default -> "2";
    };
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }
}
