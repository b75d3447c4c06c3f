package dev.pg2spanner.planner;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.INTEGER;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.TIMESTAMPTZ;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.fk;
import static dev.pg2spanner.fixtures.PgFixtures.index;
import static dev.pg2spanner.fixtures.PgFixtures.nullable;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withCorrelation;
import static dev.pg2spanner.fixtures.PgFixtures.withStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.PlanValidator;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.spanner.SpannerLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, point 2, as a property: whatever catalog PostgreSQL can hold, the plan the planner writes passes the
 * validator migrate runs. Catalogs are generated from a seed (printed with any failure, so a failure replays) and
 * push each Spanner limit from both sides: key columns, index columns, interleave depth (with the shard column a
 * hash-sharded root adds to every descendant's key), name length and reserved or case-colliding names, columns per
 * table. What the planner cannot design around (more columns than Spanner allows) is left out of the plan with an
 * error that names the table and the way back, and every other table is still planned (issue 28).
 */
class PlanValidityPropertyTest {

  private static final Instant NOW = Instant.parse("2026-11-24T00:00:00Z");
  private static final SpannerLimits LIMITS = SpannerLimits.GOOGLE_STANDARD_SQL;
  private static final int CATALOGS = 400;

  @Test
  void everyGeneratedCatalogIsPlannedIntoAPlanTheValidatorAccepts() {
    int hashSharded = 0;
    int interleaved = 0;
    int synthetic = 0;
    int splitTables = 0;
    for (long seed = 1; seed <= CATALOGS; seed++) {
      Generated g = new Generator(seed).generate();
      Plan plan;
      try {
        plan = plan(g);
      } catch (RuntimeException e) {
        throw new AssertionError("seed " + seed + ": the planner failed on " + g.describe(), e);
      }
      assertThat(PlanValidator.problems(plan)).as("seed %d: %s", seed, g.describe()).isEmpty();
      // A message says what happened to this table; the code's generic next step is its remedy, rendered once.
      for (dev.pg2spanner.finding.Finding f : Stream.concat(plan.findings().stream(),
          plan.tables().stream().flatMap(t -> t.findings().stream())).toList()) {
        assertThat(f.message()).as("seed %d: %s", seed, f.code()).doesNotContain(f.code().remedy());
      }
      for (TablePlan t : plan.tables()) {
        hashSharded += t.keyStrategy().kind() == dev.pg2spanner.plan.KeyStrategy.Kind.HASH_SHARD ? 1 : 0;
        interleaved += t.interleave() != null ? 1 : 0;
        synthetic += t.keyStrategy().kind() == dev.pg2spanner.plan.KeyStrategy.Kind.SYNTHETIC ? 1 : 0;
        splitTables += t.splitPoints().isEmpty() ? 0 : 1;
      }
    }
    // The generator must reach the designs that interact with the limits, or the property proves little.
    assertThat(hashSharded).as("hash-sharded tables generated").isGreaterThan(50);
    assertThat(interleaved).as("interleaved tables generated").isGreaterThan(100);
    assertThat(synthetic).as("synthetic keys generated").isGreaterThan(20);
    assertThat(splitTables).as("tables given split points").isGreaterThan(30);
  }

  @Test
  void aRootWhoseDescendantHasSixteenKeyColumnsIsNotShardedAndSaysWhy() {
    // A shard column would lead every interleaved descendant's key: the 16-column child key would become 17.
    List<PgTable> tables = new ArrayList<>();
    PgTable root = withStats(table("root", 1, List.of(withCorrelation(column("id", TEXT), 0.999)), List.of(),
        List.of()), busy());
    tables.add(root);
    List<PgColumn> childColumns = new ArrayList<>();
    childColumns.add(column("id", TEXT));
    for (int i = 1; i < LIMITS.maxKeyColumns(); i++) {
      childColumns.add(column("k" + i, BIGINT));
    }
    tables.add(table("child", LIMITS.maxKeyColumns(), childColumns, List.of(fk("child_root_fkey", List.of("id"),
        "root", List.of("id"), PgForeignKey.Action.CASCADE)), List.of()));
    Plan plan = plan(new Generated(catalog(tables, List.of()), Map.of("public.root", risingSample("root", "id")),
        List.of("busy root with rising keys, child with 16 key columns")));
    TablePlan planned = plan.tableBySource("public.root").orElseThrow();
    assertThat(planned.keyStrategy().kind()).isEqualTo(dev.pg2spanner.plan.KeyStrategy.Kind.KEEP);
    assertThat(planned.findings()).filteredOn(f -> f.code() == dev.pg2spanner.finding.FindingCode.HOTSPOT_KEY)
        .singleElement().satisfies(f -> {
          assertThat(f.severity()).isEqualTo(dev.pg2spanner.finding.Severity.WARNING);
          assertThat(f.message()).contains("cannot add a shard column").contains("child, interleaved under it,")
              .contains("16 key columns");
        });
    assertThat(plan.tableBySource("public.child").orElseThrow().primaryKey()).hasSize(LIMITS.maxKeyColumns());
    assertThat(PlanValidator.problems(plan)).isEmpty();

    // One column fewer in the child: the shard column fits, and leads both keys.
    Plan roomy = plan(new Generated(catalog(List.of(root, table("child", LIMITS.maxKeyColumns() - 1,
        childColumns.subList(0, LIMITS.maxKeyColumns() - 1), List.of(fk("child_root_fkey", List.of("id"), "root",
            List.of("id"), PgForeignKey.Action.CASCADE)), List.of())), List.of()),
        Map.of("public.root", risingSample("root", "id")), List.of("child with 15 key columns")));
    assertThat(roomy.tableBySource("public.root").orElseThrow().keyStrategy().kind())
        .isEqualTo(dev.pg2spanner.plan.KeyStrategy.Kind.HASH_SHARD);
    assertThat(roomy.tableBySource("public.child").orElseThrow().primaryKey()).hasSize(LIMITS.maxKeyColumns());
    assertThat(PlanValidator.problems(roomy)).isEmpty();
  }

  @Test
  void aTableOfAsManyColumnsAsSpannerAllowsIsPlannedOneMoreIsLeftOutWithAnErrorAndTheRestIsPlanned() {
    Plan widest = plan(new Generated(catalog(List.of(table("widest", 1, columns(LIMITS.maxColumnsPerTable()),
        List.of(), List.of())), List.of()), Map.of(), List.of("1024 columns")));
    assertThat(PlanValidator.problems(widest)).isEmpty();
    PlanRun.requireValid(widest);

    // Issue 28: one table Spanner cannot hold never costs the other tables their plan.
    PgTable tooWide = table("too_wide", 1, columns(LIMITS.maxColumnsPerTable() + 1), List.of(), List.of());
    PgTable child = table("child", 1, List.of(column("id", BIGINT), column("wide_id", BIGINT)),
        List.of(fk("child_wide_fkey", List.of("wide_id"), "too_wide", List.of("c0"), PgForeignKey.Action.CASCADE)),
        List.of());
    Generated g = new Generated(catalog(List.of(tooWide, table("fine", 1, columns(3), List.of(), List.of()), child),
        List.of()), Map.of(), List.of("1025 columns"));
    Plan first = plan(g);
    assertThat(PlanValidator.problems(first)).singleElement().asString()
        .contains("has 1025 columns; Spanner allows at most 1024 per table");
    Map.Entry<Plan, List<String>> held = PlanRun.leaveOutWhatSpannerCannotHold(first,
        new PlanInputs(g.catalog, Map.of(), g.samples, Map.of()), planner());
    Plan plan = held.getKey();
    assertThat(held.getValue()).containsExactly("public.too_wide");
    assertThat(PlanValidator.problems(plan)).isEmpty();
    PlanRun.requireValid(plan);
    assertThat(plan.tables()).extracting(TablePlan::source).containsExactlyInAnyOrder("public.fine", "public.child");
    // The child's foreign key to it is reported, not written against a table that will not exist.
    assertThat(plan.tableBySource("public.child").orElseThrow().foreignKeys()).isEmpty();
    assertThat(plan.findings()).filteredOn(f -> f.code() == dev.pg2spanner.finding.FindingCode.TABLE_LEFT_OUT)
        .singleElement().satisfies(f -> {
          assertThat(f.severity()).isEqualTo(dev.pg2spanner.finding.Severity.ERROR);
          assertThat(f.table()).isEqualTo("public.too_wide");
          assertThat(f.message()).startsWith("public.too_wide is left out of the plan: it has 1025 columns")
              .contains("INTERLEAVE IN PARENT").doesNotContain("tables[");
        });
    // Recorded so that migrate and verify leave it out on purpose, and only it.
    String excluded = PlanRun.excluded(null, held.getValue());
    assertThat(java.util.regex.Pattern.compile(excluded).matcher("public.too_wide").find()).isTrue();
    assertThat(java.util.regex.Pattern.compile(excluded).matcher("public.too_widest").find()).isFalse();
    assertThat(PlanRun.excluded("^audit\\.", held.getValue())).isEqualTo("(?:^audit\\.)|^(?:public\\.too_wide)$");
  }

  @Test
  void columnCountsSayWhichColumnsThePlanAdded() {
    // No primary key: the plan adds row_id, which makes 1,024 source columns one too many.
    PgTable keyless = table("keyless", 0, columns(LIMITS.maxColumnsPerTable()), List.of(), List.of());
    Plan plan = plan(new Generated(catalog(List.of(keyless), List.of()), Map.of(), List.of("keyless")));
    assertThat(PlanValidator.problems(plan)).singleElement().asString()
        .contains("has 1025 columns (1024 from the source and 1 the plan added: row_id)");
  }

  private static Planner planner() {
    return new Planner(new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 1.0));
  }

  private static Plan plan(Generated g) {
    PlannerOptions options = new PlannerOptions(3, true, "pg2spanner test", "db:5432/app", List.of(), NOW, 1.0);
    return new Planner(options).plan(new PlanInputs(g.catalog, Map.of(), g.samples, Map.of()));
  }

  private static PgTableStats busy() {
    Duration window = Duration.ofDays(7);
    return new PgTableStats(1e6, 100, 1 << 20, 1 << 20, window.toSeconds() * 50, 0L, 0L, NOW.minus(window), null);
  }

  /** Busy and 2 GiB: plan proposes split points for such a root (validated like everything else). */
  private static PgTableStats huge() {
    Duration window = Duration.ofDays(7);
    return new PgTableStats(1e8, 262_144, 2L << 30, 2L << 30, window.toSeconds() * 50, 0L, 0L, NOW.minus(window),
        null);
  }

  private static List<PgColumn> columns(int n) {
    List<PgColumn> columns = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      columns.add(i == 0 ? column("c0", BIGINT) : nullable("c" + i, i % 2 == 0 ? TEXT : BIGINT));
    }
    return columns;
  }

  private static KeySample risingSample(String table, String column) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rows.add(List.of(String.format("01J%09d", i)));
    }
    return new KeySample("public." + table, List.of(column), rows, true);
  }

  /** A generated catalog, the key samples that go with it, and what was generated (for the failure message). */
  record Generated(PgCatalog catalog, Map<String, KeySample> samples, List<String> notes) {
    String describe() {
      return String.join("; ", notes);
    }
  }

  /** One catalog per seed: a few hierarchies and loose tables, each pushing some limit. */
  private static final class Generator {
    /** Reserved in GoogleSQL, or colliding once case is ignored, or at PostgreSQL's 63-character name limit. */
    private static final List<String> AWKWARD_NAMES = List.of("order", "select", "group", "Order", "ORDER", "hash",
        "t".repeat(63), "x".repeat(58) + "_shard", "row_id", "shard_id", "Mixed Case", "ünïcode");
    private static final List<PgType> TYPES = List.of(BIGINT, INTEGER, TEXT, UUID, TIMESTAMPTZ);

    private final Random random;
    private final long seed;
    private final List<PgTable> tables = new ArrayList<>();
    private final List<PgSequence> sequences = new ArrayList<>();
    private final Map<String, KeySample> samples = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Set<String> tableNames = new LinkedHashSet<>();

    Generator(long seed) {
      this.seed = seed;
      this.random = new Random(seed);
    }

    Generated generate() {
      int hierarchies = 1 + random.nextInt(3);
      for (int h = 0; h < hierarchies; h++) {
        hierarchy(h);
      }
      return new Generated(catalog(tables, sequences), samples, notes);
    }

    /** A root and a chain of children under it, each keyed by its parent's key plus one or more columns. */
    private void hierarchy(int h) {
      int depth = pick(1, 2, 3, 6, 7, 8, 9);
      List<PgColumn> key = new ArrayList<>();
      String parent = null;
      List<String> parentKey = List.of();
      for (int level = 0; level < depth; level++) {
        String name = tableName("h" + h + "_l" + level);
        int added = level == 0 ? pick(0, 1, 1, 1, 2, 15, 16, 17) : pick(1, 1, 1, 2, 5, 8);
        if (level > 0 && parentKey.isEmpty()) {
          added = Math.max(added, 1);
        }
        List<PgColumn> columns = new ArrayList<>(key);
        Set<String> used = columns.stream().map(PgColumn::name).collect(Collectors.toCollection(LinkedHashSet::new));
        boolean sequenceLead = level == 0 && added > 0 && random.nextInt(3) == 0;
        for (int i = 0; i < added; i++) {
          String column = columnName(used, "k" + level + "_" + i);
          if (i == 0 && sequenceLead) {
            String seq = name.replaceAll("[^A-Za-z0-9_]", "") + "_seq";
            columns.add(serial(column, "public", seq));
            sequences.add(sequence("public", seq, 1, 1000L, "public." + name + "." + column));
          } else {
            PgColumn c = column(column, TYPES.get(random.nextInt(TYPES.size())));
            columns.add(i == 0 && random.nextBoolean() ? withCorrelation(c, 0.999) : c);
          }
        }
        int payload = pick(0, 1, 3, 10);
        for (int i = 0; i < payload; i++) {
          columns.add(nullable(columnName(used, "v" + i), TYPES.get(random.nextInt(TYPES.size()))));
        }
        int keySize = key.size() + added;
        List<PgForeignKey> fks = parent == null || parentKey.isEmpty() ? List.of()
            : List.of(fk(name + "_fkey", parentKey, parent, parentKey, random.nextBoolean()
                ? PgForeignKey.Action.CASCADE : PgForeignKey.Action.NO_ACTION));
        List<PgIndex> indexes = indexes(name, columns);
        PgTable table = table(name, keySize, columns, fks, indexes);
        table = withStats(table, random.nextInt(3) == 0 ? PgTableStats.unknown() : random.nextBoolean() ? busy()
            : huge());
        tables.add(table);
        if (keySize > 0 && level == 0) {
          samples.put("public." + name, sample(name, columns.get(0)));
        }
        notes.add(name + "(key " + keySize + ", columns " + columns.size() + ", indexes "
            + indexes.stream().map(i -> String.valueOf(i.elements().size())).collect(Collectors.joining(",")) + ")"
            + (parent == null ? "" : " under " + parent));
        if (keySize == 0 || keySize > LIMITS.maxKeyColumns()) {
          return; // nothing can interleave under a table without a usable key: the hierarchy ends here
        }
        key = new ArrayList<>(columns.subList(0, keySize));
        parentKey = key.stream().map(PgColumn::name).toList();
        parent = name;
      }
    }

    /** Up to three indexes over 1 to 17 of the table's columns, in random order. */
    private List<PgIndex> indexes(String table, List<PgColumn> columns) {
      List<PgIndex> indexes = new ArrayList<>();
      int n = columns.isEmpty() ? 0 : pick(0, 0, 1, 2, 3);
      for (int i = 0; i < n; i++) {
        int width = Math.min(columns.size(), pick(1, 1, 2, 15, 16, 17));
        List<String> names = new ArrayList<>(columns.stream().map(PgColumn::name).toList());
        java.util.Collections.shuffle(names, random);
        indexes.add(index(table + "_idx" + i, random.nextInt(4) == 0,
            names.subList(0, width).toArray(new String[0])));
      }
      return indexes;
    }

    /**
     * Values for the lead column, of the Java types KeySampler reads (Long, String, epoch seconds as Double): rising
     * or random, so that every strategy is reached.
     */
    private KeySample sample(String table, PgColumn lead) {
      List<List<Object>> rows = new ArrayList<>();
      boolean rising = random.nextBoolean();
      for (int i = 0; i < 300; i++) {
        Object v = lead.type() == TEXT ? (rising ? String.format("01J%09d", i) : Long.toHexString(random.nextLong()))
            : lead.type() == UUID ? java.util.UUID.randomUUID().toString()
            : lead.type() == TIMESTAMPTZ ? (double) NOW.plusSeconds(rising ? i : random.nextInt(1_000_000))
                .getEpochSecond()
            : (Object) (rising ? 1000L + i : random.nextLong());
        rows.add(List.of(v));
      }
      return new KeySample("public." + table, List.of(lead.name()), rows, true);
    }

    private String tableName(String fallback) {
      String name = random.nextInt(4) == 0 ? AWKWARD_NAMES.get(random.nextInt(AWKWARD_NAMES.size())) : fallback;
      if (!tableNames.add(name)) {
        name = fallback;
        tableNames.add(name);
      }
      return name;
    }

    private String columnName(Set<String> used, String fallback) {
      String name = random.nextInt(5) == 0 ? AWKWARD_NAMES.get(random.nextInt(AWKWARD_NAMES.size())) : fallback;
      if (!used.add(name)) {
        name = fallback;
        used.add(name);
      }
      return name;
    }

    private int pick(int... choices) {
      return choices[random.nextInt(choices.length)];
    }

    @Override
    public String toString() {
      return "seed " + seed;
    }
  }
}
