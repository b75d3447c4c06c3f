package dev.pg2spanner.plan;

import static dev.pg2spanner.plan.PlanFixtures.shop;
import static dev.pg2spanner.plan.PlanFixtures.withTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.finding.Finding;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PlanValidatorTest {

  /** Table indexes in the fixture. */
  private static final int ORDERS = 0;
  private static final int ITEMS = 1;
  private static final int EVENTS = 2;
  private static final int AUDIT = 3;

  @Test
  void theFixtureIsValid() {
    assertThat(PlanValidator.problems(shop())).isEmpty();
  }

  // ---- names ----

  @Test
  void namesThatDifferOnlyInCaseCollideAcrossTablesIndexesConstraintsAndSequences() {
    Plan plan = withTable(shop(), EVENTS, t -> edit(t, b -> b.indexes = List.of(
        new IndexPlan(null, "Orders", List.of(KeyPart.asc("order_id")), false, false, List.of(), null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[2].indexes[0].target: the index name "
        + "'Orders' is already used by tables[0].target ('orders'); tables, indexes, constraints and sequences "
        + "share one namespace per schema and Spanner ignores case in names, so pick another name");

    Plan sequenceClash = withTable(shop(), ORDERS, t -> edit(t, b -> b.checks = List.of(
        new CheckPlan(null, "ORDERS_ORDER_ID_SEQ", "total >= 0"))));
    assertThat(PlanValidator.problems(sequenceClash)).containsExactly("sequences[0].target: the sequence name "
        + "'orders_order_id_seq' is already used by tables[0].checks[0].target ('ORDERS_ORDER_ID_SEQ'); tables, "
        + "indexes, constraints and sequences share one namespace per schema and Spanner ignores case in names, "
        + "so pick another name");
  }

  @Test
  void columnNamesAreUniqueIgnoringCase() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.columns.set(5,
        new ColumnPlan("Note|Text", "text", "Total", "STRING(MAX)", false, ValueConversion.STRING, null, null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].columns[5].target: 'Total' is already "
        + "used by columns[3] ('total'); Spanner column names are case-insensitive, pick another name");
  }

  @Test
  void namesMustBeLegalSpannerIdentifiers() {
    Plan plan = withTable(shop(), AUDIT, t -> edit(t, b -> b.target = "audit log"));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[3].target: 'audit log' is not a legal "
        + "Spanner name; use letters, digits and underscores, starting with a letter, at most 128 characters");
    Plan longest = withTable(shop(), AUDIT, t -> edit(t, b -> b.target = "a".repeat(128)));
    assertThat(PlanValidator.problems(longest)).isEmpty();
    Plan tooLong = withTable(shop(), AUDIT, t -> edit(t, b -> b.target = "a".repeat(129)));
    assertThat(PlanValidator.problems(tooLong)).singleElement().asString().contains("(129 characters)");
    Plan qualified = withTable(shop(), AUDIT, t -> edit(t, b -> b.target = "audit.log_entries"));
    assertThat(PlanValidator.problems(qualified)).containsExactly("tables[3].target: 'audit.log_entries' names a "
        + "schema, but target.namedSchemas is false; use a plain name (e.g. 'audit_log_entries') or set "
        + "target.namedSchemas: true");
  }

  @Test
  void namedSchemasSeparateNamespaces() {
    Plan base = shop();
    Plan named = new Plan(base.formatVersion(), base.generatedBy(), base.generatedAt(), base.source(),
        new Plan.Target("GOOGLE_STANDARD_SQL", true, 3), base.tables(), base.sequences(), base.findings());
    Plan plan = withTable(named, AUDIT, t -> edit(t, b -> b.target = "audit.orders"));
    assertThat(PlanValidator.problems(plan)).isEmpty();
  }

  @Test
  void aSourceTableAppearsOnce() {
    Plan plan = withTable(shop(), AUDIT, t -> edit(t, b -> b.source = "public.orders"));
    assertThat(PlanValidator.problems(plan)).contains("tables[3].source: 'public.orders' is already planned as "
        + "tables[0]; a source table may appear once, delete one of the two entries");
  }

  @Test
  void aPlanHasTables() {
    assertThat(PlanValidator.problems(PlanFixtures.withTables(shop(), List.of()))).containsExactly("tables: is "
        + "empty; a plan needs at least one table (run `pg2spanner plan` on schemas that have tables)");
  }

  // ---- types ----

  @Test
  void theTargetTypeMustParse() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.columns.set(2,
        new ColumnPlan("status", "order_status", "status", "STRNG(10)", true, ValueConversion.ENUM_TEXT, null,
            null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].columns[2].targetType: 'STRNG(10)' is not "
        + "a Spanner GoogleSQL column type (BOOL, INT64, FLOAT32, FLOAT64, NUMERIC, STRING(n|MAX), BYTES(n|MAX), "
        + "DATE, TIMESTAMP, JSON, ARRAY<T>)");
  }

  @Test
  void theTargetTypeMustFitTheConversion() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.columns.set(1,
        new ColumnPlan("customer_id", "bigint", "customer_id", "STRING(MAX)", true, ValueConversion.INT64, null,
            null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].columns[1].targetType: STRING(MAX) does "
        + "not fit conversion INT64, which needs INT64 (or ARRAY<INT64> for an array column); change targetType "
        + "to one of those");
    Plan uuid = withTable(shop(), AUDIT, t -> edit(t, b -> b.columns.set(5,
        new ColumnPlan("request_id", "uuid", "request_id", "STRING(20)", false, ValueConversion.UUID_TEXT, null,
            null))));
    assertThat(PlanValidator.problems(uuid)).singleElement().asString()
        .contains("STRING(20) does not fit conversion UUID_TEXT, which needs STRING(36) or longer, or STRING(MAX)");
  }

  @Test
  void conversionTableCoversEveryConversion() {
    assertThat(PlanValidator.fits(ValueConversion.INT64, dev.pg2spanner.spanner.SpannerType.parse("ARRAY<INT64>")))
        .isTrue();
    assertThat(PlanValidator.fits(ValueConversion.NUMERIC_TEXT, dev.pg2spanner.spanner.SpannerType.STRING_MAX))
        .isTrue();
    assertThat(PlanValidator.fits(ValueConversion.NUMERIC_TEXT, dev.pg2spanner.spanner.SpannerType.NUMERIC))
        .isFalse();
    assertThat(PlanValidator.fits(ValueConversion.JSON, dev.pg2spanner.spanner.SpannerType.STRING_MAX)).isFalse();
    assertThat(PlanValidator.fits(ValueConversion.UUID_TEXT, dev.pg2spanner.spanner.SpannerType.string(36)))
        .isTrue();
    assertThat(PlanValidator.fits(ValueConversion.SYNTHETIC, dev.pg2spanner.spanner.SpannerType.parse(
        "ARRAY<INT64>"))).isFalse();
    for (ValueConversion c : ValueConversion.values()) {
      // Every conversion fits at least one type: none was forgotten in the table.
      boolean any = false;
      for (var base : dev.pg2spanner.spanner.SpannerType.Base.values()) {
        if (base != dev.pg2spanner.spanner.SpannerType.Base.ARRAY) {
          any |= PlanValidator.fits(c, new dev.pg2spanner.spanner.SpannerType(base, null, null));
        }
      }
      assertThat(any).as(c.name()).isTrue();
    }
  }

  @Test
  void syntheticIsOnlyForAddedColumns() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.columns.set(1,
        new ColumnPlan("customer_id", "bigint", "customer_id", "INT64", true, ValueConversion.SYNTHETIC, null,
            null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].columns[1].conversion: SYNTHETIC is only "
        + "for columns the plan adds (source null), but this column comes from source column 'customer_id'; "
        + "restore the conversion `pg2spanner plan` wrote");
    Plan added = withTable(shop(), AUDIT, t -> edit(t, b -> b.columns.set(0,
        new ColumnPlan(null, null, "synthetic_id", "STRING(36)", true, ValueConversion.SYNTHETIC, null, null))));
    assertThat(PlanValidator.problems(added)).containsExactly("tables[3].columns[0]: added column 'synthetic_id' "
        + "is NOT NULL but has neither defaultExpression nor generatedExpression, and the loader never writes "
        + "it; add one of them (e.g. defaultExpression: GENERATE_UUID())");
  }

  // ---- primary key ----

  @Test
  void aTableNeedsAPrimaryKey() {
    Plan plan = withTable(shop(), AUDIT, t -> edit(t, b -> b.primaryKey = List.of()));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[3].primaryKey: is empty; Spanner needs a "
        + "primary key: for a table without one use keyStrategy kind synthetic with an added key column (source "
        + "null, conversion SYNTHETIC)");
  }

  @Test
  void keyPartsAreExistingScalarColumnsOnce() {
    Plan plan = withTable(shop(), EVENTS, t -> edit(t, b -> b.primaryKey = List.of(KeyPart.asc("shard_id"),
        KeyPart.asc("Event_id"), KeyPart.asc("tags"), KeyPart.asc("shard_id"))));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[2].primaryKey[1].column: table 'events' has no column 'Event_id' (did you mean 'event_id'? names "
            + "are matched exactly); use a column's target name",
        "tables[2].primaryKey[2].column: 'tags' is ARRAY<STRING(MAX)>; Spanner cannot use ARRAY or JSON columns "
            + "in a key, choose another column",
        "tables[2].primaryKey[3].column: 'shard_id' appears twice in the key; remove one",
        "tables[2].keyStrategy.shardSource[0]: 'event_id' is not a key column; the shard must be derived from the "
            + "key so that a row never changes shard");
  }

  @Test
  void atMostSixteenKeyParts() {
    assertThat(PlanValidator.problems(withKeyParts(15))).isEmpty();
    Plan plan = withKeyParts(16);
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[3].primaryKey: has 17 parts; Spanner allows "
        + "at most 16 key columns");
  }

  /** The audit table keyed by synthetic_id and {@code extra} more columns. */
  private static Plan withKeyParts(int extra) {
    return withTable(shop(), AUDIT, t -> edit(t, b -> {
      List<KeyPart> key = new ArrayList<>(List.of(KeyPart.asc("synthetic_id")));
      for (int i = 0; i < extra; i++) {
        b.columns.add(new ColumnPlan("c" + i, "integer", "c" + i, "INT64", true, ValueConversion.INT64, null,
            null));
        key.add(KeyPart.asc("c" + i));
      }
      b.primaryKey = key;
    }));
  }

  @Test
  void atMostSixteenIndexKeyColumns() {
    assertThat(PlanValidator.problems(withIndexColumns(16))).isEmpty();
    assertThat(PlanValidator.problems(withIndexColumns(17))).containsExactly("tables[3].indexes[0].columns: has 17 "
        + "parts; Spanner allows at most 16 index key columns");
  }

  /**
   * The audit table with one index of {@code count} columns: its key column synthetic_id, then added columns.
   * Spanner counts an index's columns together with the table's key columns, so the index holds the key column
   * itself to stay within both counts.
   */
  private static Plan withIndexColumns(int count) {
    return withTable(shop(), AUDIT, t -> edit(t, b -> {
      List<KeyPart> key = new ArrayList<>(List.of(KeyPart.asc("synthetic_id")));
      for (int i = 0; i < count - 1; i++) {
        b.columns.add(new ColumnPlan("c" + i, "integer", "c" + i, "INT64", true, ValueConversion.INT64, null,
            null));
        key.add(KeyPart.asc("c" + i));
      }
      b.indexes = List.of(new IndexPlan(null, "audit_wide", key, false, false, List.of(), null));
    }));
  }

  @Test
  void theDialectIsOneSpannerHas() {
    Plan base = shop();
    Plan mysql = new Plan(base.formatVersion(), base.generatedBy(), base.generatedAt(), base.source(),
        new Plan.Target("MYSQL", false, 3), base.tables(), base.sequences(), base.findings());
    assertThat(PlanValidator.problems(mysql)).containsExactly("target.dialect: 'MYSQL' is not supported; "
        + "use GOOGLE_STANDARD_SQL or POSTGRESQL");
  }

  @Test
  void aPlanRelabelledPostgresqlNamesItsGoogleSqlTypes() {
    Plan base = shop();
    Plan postgres = new Plan(base.formatVersion(), base.generatedBy(), base.generatedAt(), base.source(),
        new Plan.Target("POSTGRESQL", false, 3), base.tables(), base.sequences(), base.findings());
    List<String> problems = PlanValidator.problems(postgres);
    assertThat(problems.get(0)).startsWith("target.dialect: is POSTGRESQL, but ")
        .endsWith("column type(s) below are written in the GOOGLE_STANDARD_SQL dialect; set target.dialect back to "
            + "GOOGLE_STANDARD_SQL, or plan again with --dialect googlesql");
    assertThat(problems.subList(1, problems.size())).isNotEmpty()
        .allMatch(p -> p.contains("is not a Spanner PostgreSQL-dialect column type") || p.contains("key"));
  }

  @Test
  void aPostgresDialectPlansProblemsNameTypesAsThatDialectSpellsThem() {
    Plan base = shop();
    List<TablePlan> retyped = base.tables().stream().map(t -> edit(t, b -> b.columns.replaceAll(c -> new ColumnPlan(
        c.source(), c.sourceType(), c.target(), dev.pg2spanner.spanner.SpannerType.parse(c.targetType())
            .ddl(dev.pg2spanner.spanner.SpannerDialect.POSTGRESQL), c.notNull(), c.conversion(), null, null,
        c.uuidNamespace())))).toList();
    Plan postgres = new Plan(base.formatVersion(), base.generatedBy(), base.generatedAt(), base.source(),
        new Plan.Target("POSTGRESQL", false, 3), retyped, base.sequences(), base.findings());
    Plan uuid = withTable(postgres, ORDERS, t -> edit(t, b -> b.keyStrategy = KeyStrategy.uuid("spread", null)));
    assertThat(PlanValidator.problems(uuid)).anyMatch(p -> p.startsWith("tables[0].keyStrategy.kind: uuid needs a "
        + "varchar(36) or varchar first key column, but 'order_id' is bigint;"));
    Plan bitReversed = withTable(postgres, AUDIT, t -> edit(t, b -> b.keyStrategy =
        KeyStrategy.bitReversed("spread", "orders_order_id_seq")));
    assertThat(PlanValidator.problems(bitReversed)).anyMatch(p -> p.contains("bit-reversed needs a first key column "
        + "of type bigint, but 'synthetic_id' is varchar(36)"));
  }

  // ---- key strategies ----

  @Test
  void hashShardNeedsAGeneratedInt64FirstShardColumnAndTwoShards() {
    Plan plan = withTable(shop(), EVENTS, t -> edit(t, b -> {
      b.columns.set(0, new ColumnPlan(null, null, "shard_id", "INT64", false, ValueConversion.SYNTHETIC, null,
          null));
      b.keyStrategy = KeyStrategy.hashShard("spread", "shard_id", 1, List.of("event_id"));
    }));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[2].keyStrategy.shardColumn: 'shard_id' has no generatedExpression; a shard column is a STORED "
            + "generated column such as MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 1)",
        "tables[2].keyStrategy.shards: 1 shards cannot spread writes; use 2 or more");
    Plan notFirst = withTable(shop(), EVENTS, t -> edit(t, b -> b.primaryKey = List.of(KeyPart.asc("event_id"),
        KeyPart.asc("shard_id"))));
    assertThat(PlanValidator.problems(notFirst)).contains("tables[2].keyStrategy.shardColumn: 'shard_id' must be "
        + "the first key part, but primaryKey starts with 'event_id'; put it first in primaryKey");
  }

  @Test
  void aShardExpressionThatDisagreesWithItsStrategyIsNamedWithTheImpliedOne() {
    // A person edited the shard count in the expression but not in the strategy: the live path computes deleted
    // rows' shards from the strategy, so the two must agree.
    Plan edited = withTable(shop(), EVENTS, t -> edit(t, b -> b.columns.set(0, new ColumnPlan(null, null,
        "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "MOD(ABS(FARM_FINGERPRINT(CAST(event_id AS STRING))), 8)"))));
    assertThat(PlanValidator.problems(edited)).containsExactly("tables[2].columns[0].generatedExpression: the "
        + "shard column events.shard_id is computed by MOD(ABS(FARM_FINGERPRINT(CAST(event_id AS STRING))), 8), but "
        + "its hash-shard strategy (shardSource [event_id], shards 16) implies "
        + "MOD(ABS(FARM_FINGERPRINT(CAST(event_id AS STRING))), 16); write that expression, or change "
        + "keyStrategy.shardSource/shards to match (a live run computes a deleted row's shard from the strategy)");
    // Spacing alone is no disagreement.
    Plan respaced = withTable(shop(), EVENTS, t -> edit(t, b -> b.columns.set(0, new ColumnPlan(null, null,
        "shard_id", "INT64", true, ValueConversion.SYNTHETIC, null,
        "  MOD(ABS(FARM_FINGERPRINT(CAST(event_id AS STRING))),\n  16) "))));
    assertThat(PlanValidator.problems(respaced)).isEmpty();
  }

  @Test
  void bitReversedNeedsAKnownSequenceAndAnInt64Key() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.keyStrategy =
        KeyStrategy.bitReversed("spread", "order_seq")));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].keyStrategy.sequence: no entry of "
        + "sequences has target 'order_seq'; add the sequence or fix the name");
    Plan stringKey = withTable(shop(), AUDIT, t -> edit(t, b -> b.keyStrategy =
        KeyStrategy.bitReversed("spread", "orders_order_id_seq")));
    assertThat(PlanValidator.problems(stringKey)).containsExactly("tables[3].keyStrategy.kind: bit-reversed "
        + "needs a first key column of type INT64, but 'synthetic_id' is STRING(36); choose another kind (e.g. uuid or "
        + "hash-shard)");
  }

  @Test
  void uuidNeedsAUuidTextKey() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.keyStrategy = KeyStrategy.uuid("spread", null)));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].keyStrategy.kind: uuid needs a STRING(36) "
        + "or STRING(MAX) first key column, but 'order_id' is INT64; change that column's targetType or choose "
        + "another kind (for an integer key, `pg2spanner plan --key-strategy public.orders=uuid` remaps it and every "
        + "reference to it)");
  }

  @Test
  void parametersAStrategyDoesNotUseAreRejectedAndAReasonIsRequired() {
    // The canonical constructor on purpose: no factory builds a keep strategy with a shard count.
    Plan plan = withTable(shop(), ITEMS, t -> edit(t, b -> b.keyStrategy = new KeyStrategy(KeyStrategy.Kind.KEEP,
        " ", null, null, 16, null, null)));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[1].keyStrategy.reason: is empty; say in one sentence why this table uses keep (the report shows "
            + "it to reviewers)",
        "tables[1].keyStrategy.shards: is not used by kind keep; remove it");
  }

  @Test
  void syntheticKeysByAnAddedColumn() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.keyStrategy = KeyStrategy.synthetic("why")));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].keyStrategy.kind: synthetic keys the "
        + "table by a column the plan adds, but the first key column 'order_id' comes from the source; use keep "
        + "(or another kind) for a table with a key, or put the added column first in primaryKey");
  }

  // ---- interleaving ----

  @Test
  void anInterleavedChildsKeyStartsWithItsParentsKey() {
    Plan plan = withTable(shop(), ITEMS, t -> edit(t, b -> b.primaryKey = List.of(KeyPart.asc("line_no"),
        KeyPart.asc("order_id"))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[1].primaryKey: must start with the primary "
        + "key of its interleave parent 'orders' (order_id), with the same column names in the same order, but "
        + "it is (line_no, order_id); change the key, or set interleave: null");
  }

  @Test
  void interleavedKeysHaveTheSameTypes() {
    Plan plan = withTable(shop(), ITEMS, t -> edit(t, b -> b.columns.set(0,
        new ColumnPlan("order_id", "bigint", "order_id", "STRING(MAX)", true, ValueConversion.TEXT_OUTPUT, null,
            null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[1].primaryKey[0].column: 'order_id' is "
        + "STRING(MAX) here but INT64 in interleave parent 'orders'; interleaved keys must have the same types, "
        + "align the targetType");
  }

  @Test
  void anInterleaveCycleIsReportedOnce() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> {
      b.interleave = new Interleave("order_items", Interleave.OnDelete.CASCADE, null);
      b.primaryKey = List.of(KeyPart.asc("order_id"), KeyPart.asc("customer_id"));
    }));
    plan = withTable(plan, ITEMS, t -> edit(t, b -> b.primaryKey = List.of(KeyPart.asc("order_id"),
        KeyPart.asc("customer_id"))));
    plan = withTable(plan, ITEMS, t -> edit(t, b -> b.columns.set(1,
        new ColumnPlan("line_no", "integer", "customer_id", "INT64", true, ValueConversion.INT64, null, null))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].interleave.parent: interleave cycle "
        + "orders → order_items → orders; a table cannot be its own ancestor, set interleave: null on one of them");
  }

  @Test
  void parentsComeBeforeChildren() {
    List<TablePlan> tables = new ArrayList<>(shop().tables());
    tables.add(0, tables.remove(ITEMS));
    assertThat(PlanValidator.problems(PlanFixtures.withTables(shop(), tables))).containsExactly(
        "tables[0].interleave.parent: parent 'orders' is tables[1], after this table; list parents before their "
            + "interleaved children");
  }

  @Test
  void anUnknownParentIsNamed() {
    Plan plan = withTable(shop(), ITEMS, t -> edit(t, b -> b.interleave = new Interleave("Orders",
        Interleave.OnDelete.CASCADE, null)));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[1].interleave.parent: no table has target "
        + "'Orders' (did you mean 'orders'? names are matched exactly); name the parent's target, or set "
        + "interleave: null");
  }

  @Test
  void interleavingIsAtMostSevenDeep() {
    // Seven levels (a top-level table and six below it) are Spanner's limit; every level deeper is reported.
    assertThat(PlanValidator.problems(interleaveChain(7))).isEmpty();
    assertThat(PlanValidator.problems(interleaveChain(9))).containsExactly(
        "tables[7].interleave: interleaving depth 8 exceeds Spanner's limit of 7 (t7 → t6 → t5 → t4 → t3 → t2 → "
            + "t1 → t0); make one of its ancestors top-level",
        "tables[8].interleave: interleaving depth 9 exceeds Spanner's limit of 7 (t8 → t7 → t6 → t5 → t4 → t3 → "
            + "t2 → t1 → t0); make one of its ancestors top-level");
  }

  /** Tables t0 … t(levels − 1), each interleaved in the one before it. */
  static Plan interleaveChain(int levels) {
    List<TablePlan> tables = new ArrayList<>();
    List<KeyPart> key = new ArrayList<>();
    List<ColumnPlan> columns = new ArrayList<>();
    for (int level = 0; level < levels; level++) {
      columns.add(new ColumnPlan("k" + level, "bigint", "k" + level, "INT64", true, ValueConversion.INT64, null,
          null));
      key.add(KeyPart.asc("k" + level));
      tables.add(new TablePlan("public.t" + level, false, "t" + level, 1.0, 0, columns, key,
          KeyStrategy.keep("test"), level == 0 ? null : new Interleave("t" + (level - 1),
              Interleave.OnDelete.CASCADE, null), null, null, null, null));
    }
    return new Plan(1, "pg2spanner test", null, shop().source(), shop().target(), tables, null, null);
  }

  // ---- indexes, foreign keys, checks, sequences ----

  @Test
  void indexColumnsAndStoringColumnsExist() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.indexes = List.of(new IndexPlan(null, "by_x",
        List.of(KeyPart.asc("customer")), false, false, List.of("order_id", "status", "status"), null))));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[0].indexes[0].columns[0].column: table 'orders' has no column 'customer'; use a column's target "
            + "name",
        "tables[0].indexes[0].storing[0]: 'order_id' is a primary key column, which every index stores already; "
            + "remove it",
        "tables[0].indexes[0].storing[2]: 'status' is listed twice; remove one");
  }

  @Test
  void anIndexIsInterleavedOnlyInAnAncestorAndStartsWithItsKey() {
    Plan plan = withTable(shop(), ITEMS, t -> edit(t, b -> b.indexes = List.of(
        new IndexPlan(null, "items_by_sku", List.of(KeyPart.asc("sku")), false, false, List.of(), "orders"),
        new IndexPlan(null, "items_by_qty", List.of(KeyPart.asc("quantity")), false, false, List.of(), "events"))));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[1].indexes[0].interleaveIn: an index interleaved in 'orders' must start with its key (order_id), "
            + "but the index key is (sku); fix the columns or remove interleaveIn",
        "tables[1].indexes[1].interleaveIn: 'events' is not an interleave ancestor of 'order_items'; an index "
            + "can be interleaved only in a parent (or higher ancestor) of its table, remove interleaveIn");
  }

  @Test
  void foreignKeysReferenceExistingColumnsOfTheSameTypes() {
    Plan plan = withTable(shop(), EVENTS, t -> edit(t, b -> b.foreignKeys = List.of(
        new ForeignKeyPlan(null, "fk_a", List.of("order_id"), "order", List.of("order_id"),
            Interleave.OnDelete.NO_ACTION),
        new ForeignKeyPlan(null, "fk_b", List.of("kind"), "orders", List.of("order_id"),
            Interleave.OnDelete.NO_ACTION),
        new ForeignKeyPlan(null, "fk_c", List.of("order_id", "event_id"), "orders", List.of("order_id"),
            Interleave.OnDelete.CASCADE))));
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "tables[2].foreignKeys[0].referencedTable: no table has target 'order' (did you mean 'orders'?); name a "
            + "planned table's target, or delete this foreign key",
        "tables[2].foreignKeys[1].columns[0]: 'kind' is STRING(MAX) but references 'orders.order_id', which is "
            + "INT64; Spanner needs the same type on both sides",
        "tables[2].foreignKeys[2].referencedColumns: has 1 columns but columns has 2; a foreign key pairs them "
            + "one to one");
  }

  @Test
  void checksHaveAnExpression() {
    Plan plan = withTable(shop(), ORDERS, t -> edit(t, b -> b.checks = List.of(new CheckPlan(null, "c1", " "))));
    assertThat(PlanValidator.problems(plan)).containsExactly("tables[0].checks[0].expression: is empty; write the "
        + "GoogleSQL condition (without CHECK), or delete this check");
  }

  @Test
  void sequenceUsersExist() {
    Plan base = shop();
    Plan plan = new Plan(1, base.generatedBy(), base.generatedAt(), base.source(), base.target(), base.tables(),
        List.of(new SequencePlan("public.orders_order_id_seq", "orders_order_id_seq", 1, 10,
            List.of("orders.id", "order", "orders.status"))), base.findings());
    assertThat(PlanValidator.problems(plan)).containsExactly(
        "sequences[0].usedBy[0]: table 'orders' has no column 'id'; fix the name or remove this entry",
        "sequences[0].usedBy[1]: 'order' is not \"table.column\"; name the target table and column whose default "
            + "draws from this sequence",
        "sequences[0].usedBy[2]: 'orders.status' is STRING(MAX); a sequence can only feed a column of type INT64");
  }

  // ---- test helpers ----

  /** A mutable copy of a table's components, for tests that change one thing. */
  static final class Builder {
    String source;
    boolean readOnly;
    String target;
    Double rowsEstimate;
    long bytesEstimate;
    List<ColumnPlan> columns;
    List<KeyPart> primaryKey;
    KeyStrategy keyStrategy;
    Interleave interleave;
    List<IndexPlan> indexes;
    List<ForeignKeyPlan> foreignKeys;
    List<CheckPlan> checks;
    List<Finding> findings;
  }

  static TablePlan edit(TablePlan t, Consumer<Builder> change) {
    Builder b = new Builder();
    b.source = t.source();
    b.readOnly = t.readOnly();
    b.target = t.target();
    b.rowsEstimate = t.rowsEstimate();
    b.bytesEstimate = t.bytesEstimate();
    b.columns = new ArrayList<>(t.columns());
    b.primaryKey = t.primaryKey();
    b.keyStrategy = t.keyStrategy();
    b.interleave = t.interleave();
    b.indexes = t.indexes();
    b.foreignKeys = t.foreignKeys();
    b.checks = t.checks();
    b.findings = t.findings();
    change.accept(b);
    return new TablePlan(b.source, b.readOnly, b.target, b.rowsEstimate, b.bytesEstimate, b.columns, b.primaryKey,
        b.keyStrategy, b.interleave, b.indexes, b.foreignKeys, b.checks, b.findings);
  }

  /** The audit table (no primary key) with a row hash over {@code hashed}, as the planner adds it (issue 30). */
  private static Plan withRowHash(List<String> hashed) {
    return withTable(shop(), AUDIT, t -> edit(t, b -> {
      b.columns.add(new ColumnPlan(null, null, "pg2spanner_row_hash", "INT64", false, ValueConversion.SYNTHETIC,
          null, null));
      b.indexes = List.of(new IndexPlan(null, "ix_audit_log_entries_pg2spanner_row_hash",
          List.of(KeyPart.asc("pg2spanner_row_hash")), false, false, List.of(), null));
    }).withRowHash(new RowHash("pg2spanner_row_hash", "ix_audit_log_entries_pg2spanner_row_hash", hashed)));
  }

  @Test
  void aRowHashNamesAnAddedInt64ColumnItsIndexAndLoadedColumnsOnly() {
    Plan valid = withRowHash(List.of("logged_at", "user_name", "client"));
    assertThat(PlanValidator.problems(valid)).isEmpty();
    String yaml = PlanFiles.toYaml(valid);
    assertThat(yaml).contains("rowHash:", "column: pg2spanner_row_hash");
    assertThat(PlanFiles.fromYaml(yaml, "plan.yaml")).isEqualTo(valid);
    // A hand-edited plan naming a column the table does not have.
    assertThat(PlanValidator.problems(withRowHash(List.of("logged_at", "user")))).containsExactly(
        "tables[3].rowHash.columns[1]: table 'audit_log_entries' has no column 'user'; use a "
            + "column's target name");
    assertThat(PlanValidator.problems(withRowHash(List.of("synthetic_id", "logged_at", "logged_at")))).containsExactly(
        "tables[3].rowHash.columns[0]: 'synthetic_id' is not a column the loader writes (it is added or generated), "
            + "so it cannot be hashed; remove it from rowHash.columns",
        "tables[3].rowHash.columns[2]: 'logged_at' is listed twice; remove one");
    Plan noIndex = withTable(withRowHash(List.of("logged_at")), AUDIT, t -> edit(t, b -> b.indexes = List.of())
        .withRowHash(t.rowHash()));
    assertThat(PlanValidator.problems(noIndex)).containsExactly("tables[3].rowHash.index: the table has no index "
        + "'ix_audit_log_entries_pg2spanner_row_hash' whose first key column is pg2spanner_row_hash; restore it in "
        + "indexes, or remove rowHash (changes are then found by scanning the table)");
    Plan sourced = withTable(withRowHash(List.of("logged_at")), AUDIT, t -> edit(t, b -> b.columns.set(
        b.columns.size() - 1, new ColumnPlan(null, null, "pg2spanner_row_hash", "STRING(MAX)", false,
            ValueConversion.SYNTHETIC, null, null))).withRowHash(t.rowHash()));
    assertThat(PlanValidator.problems(sourced)).singleElement().asString()
        .startsWith("tables[3].rowHash.column: 'pg2spanner_row_hash' must be a nullable INT64 column the plan adds");
  }

  @Test
  void splitPointsArePrefixesOfTheKeyInItsTypesAndInAscendingKeyOrder() {
    // tables[0] is orders, keyed by order_id INT64; tables[1] order_items by (order_id INT64, line_no INT64).
    Plan good = withTable(withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("-5"), List.of("100"),
        List.of("2000")))), 1, t -> t.withSplitPoints(List.of(List.of("7"), List.of("7", "2"), List.of("8"))));
    assertThat(PlanValidator.problems(good)).isEmpty();
    assertThat(PlanValidator.problems(withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("1", "2"))))))
        .containsExactly("tables[0].splitPoints[0]: has 2 part(s); a split point gives 1 to 1 values, the first "
            + "parts of the primary key (order_id)");
    assertThat(PlanValidator.problems(withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("ten"))))))
        .containsExactly("tables[0].splitPoints[0][0]: 'ten' is not a whole number, but key column order_id is "
            + "INT64");
    // Numerically, not as text: 100 comes after 20.
    assertThat(PlanValidator.problems(withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("100"),
        List.of("20")))))).containsExactly("tables[0].splitPoints[1]: [20] does not come after [100] in key order; "
            + "list split points in ascending key order, each once");
    assertThat(PlanValidator.problems(withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("5"),
        List.of("5")))))).singleElement().asString().contains("does not come after [5]");
  }

  @Test
  void splitPointsSurviveTheFileAndAreLeftOutWhenThereAreNone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    Plan plan = withTable(shop(), 0, t -> t.withSplitPoints(List.of(List.of("100"), List.of("2000"))));
    java.nio.file.Path file = dir.resolve("plan.yaml");
    PlanFiles.write(plan, file);
    assertThat(java.nio.file.Files.readString(file)).contains("splitPoints:").containsOnlyOnce("splitPoints:");
    assertThat(PlanFiles.read(file).tables().get(0).splitPoints()).containsExactly(List.of("100"), List.of("2000"));
    PlanFiles.write(shop(), file);
    assertThat(java.nio.file.Files.readString(file)).doesNotContain("splitPoints");
  }
}
