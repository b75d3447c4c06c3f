package dev.pg2spanner.plan;

import static dev.pg2spanner.plan.ValueConversion.ENUM_TEXT;
import static dev.pg2spanner.plan.ValueConversion.INT64;
import static dev.pg2spanner.plan.ValueConversion.STRING;
import static dev.pg2spanner.plan.ValueConversion.SYNTHETIC;

import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A realistic plan for tests: an orders table keyed by a bit-reversed sequence, its interleaved items, a
 * hash-sharded event table, and an audit table without a primary key, with indexes, a foreign key, a check and
 * findings carrying evidence.
 */
public final class PlanFixtures {

  private PlanFixtures() {}

  public static Plan shop() {
    return new Plan(
        Plan.FORMAT_VERSION,
        "pg2spanner 0.1.0",
        Instant.parse("2024-05-01T10:15:30Z"),
        new Plan.Source("db.example.internal:5432/app", "15.6", List.of("audit", "public"),
            "sha256:3f9ac1d07b5e42aa"),
        new Plan.Target("GOOGLE_STANDARD_SQL", false, 3),
        List.of(orders(), orderItems(), events(), auditLog()),
        List.of(new SequencePlan("public.orders_order_id_seq", "orders_order_id_seq", 1, 1_250_000,
            List.of("orders.order_id"))),
        List.of(
            Finding.of(FindingCode.NOT_MIGRATED, null, null, null,
                "View public.order_totals is not migrated: Spanner has views, but its definition uses "
                    + "PostgreSQL-only syntax; recreate it by hand.",
                evidence("kind", "view", "object", "public.order_totals")),
            Finding.of(FindingCode.NOT_MIGRATED, null, null, null,
                "Function public.touch_updated_at() is not migrated: Spanner has no stored procedures.",
                evidence("kind", "function", "object", "public.touch_updated_at()")),
            Finding.of(FindingCode.NOT_MIGRATED, null, null, null,
                "View public.\"weird|view\" is not migrated: it reads a table that is not planned.",
                evidence("kind", "view", "object", "public.weird|view"))));
  }

  static TablePlan orders() {
    return new TablePlan("public.orders", false, "orders", 1_250_000.0, 188_743_680L,
        List.of(
            new ColumnPlan("order_id", "bigint", "order_id", "INT64", true, INT64,
                "GET_NEXT_SEQUENCE_VALUE(SEQUENCE orders_order_id_seq)", null),
            new ColumnPlan("customer_id", "bigint", "customer_id", "INT64", true, INT64, null, null),
            new ColumnPlan("status", "order_status", "status", "STRING(MAX)", true, ENUM_TEXT, null, null),
            new ColumnPlan("total", "numeric(12,2)", "total", "NUMERIC", true, ValueConversion.NUMERIC, null, null),
            new ColumnPlan("created_at", "timestamp with time zone", "created_at", "TIMESTAMP", true,
                ValueConversion.TIMESTAMP, "CURRENT_TIMESTAMP()", null),
            new ColumnPlan("Note|Text", "text", "note_text", "STRING(MAX)", false, STRING, null, null)),
        List.of(KeyPart.asc("order_id")),
        KeyStrategy.bitReversed("order_id is fed by sequence public.orders_order_id_seq "
            + "at 42.5 inserts/s; new ids come from a bit-reversed sequence that skips the migrated range.",
            "orders_order_id_seq"),
        null,
        List.of(
            new IndexPlan("orders_customer_idx", "orders_by_customer",
                List.of(KeyPart.asc("customer_id"), new KeyPart("created_at", true)), false, false,
                List.of("status"), null),
            new IndexPlan("orders_created_idx", "orders_by_created", List.of(KeyPart.asc("created_at")), false,
                false, List.of(), null)),
        List.of(),
        List.of(new CheckPlan("orders_total_check", "orders_total_nonneg", "total >= 0")),
        List.of(
            Finding.of(FindingCode.HOTSPOT_KEY, "public.orders", "order_id", null,
                "Primary key order_id takes increasing values from sequence public.orders_order_id_seq: every "
                    + "insert would land on the last split. The plan keeps every existing id and gives new rows "
                    + "ids from a bit-reversed sequence.",
                evidence("sequence", "public.orders_order_id_seq", "correlation", 0.999, "insertsPerSecond", 42.5,
                    "default", "nextval('orders_order_id_seq'::regclass)")),
            Finding.of(FindingCode.MONOTONIC_INDEX, "public.orders", "created_at", "orders_created_idx",
                "Index orders_created_idx leads with created_at, which grows with every insert; it will hotspot "
                    + "on Spanner. Consider dropping it or leading with customer_id.",
                evidence("correlation", 0.98)),
            Finding.of(FindingCode.NAME_CHANGED, "public.orders", "Note|Text", null,
                "Column \"Note|Text\" is not a legal Spanner name; renamed to note_text.",
                evidence("from", "Note|Text", "to", "note_text")),
            Finding.of(FindingCode.NOT_MIGRATED, "public.orders", null, null,
                "Trigger orders_audit is not migrated: Spanner has no triggers; move its logic to the "
                    + "application or a change stream consumer.",
                evidence("kind", "trigger", "object", "orders_audit"))));
  }

  static TablePlan orderItems() {
    return new TablePlan("public.order_items", false, "order_items", 4_800_000.0, 650_117_120L,
        List.of(
            new ColumnPlan("order_id", "bigint", "order_id", "INT64", true, INT64, null, null),
            new ColumnPlan("line_no", "integer", "line_no", "INT64", true, INT64, null, null),
            new ColumnPlan("sku", "text", "sku", "STRING(MAX)", true, STRING, null, null),
            new ColumnPlan("quantity", "integer", "quantity", "INT64", true, INT64, null, null),
            new ColumnPlan("unit_price", "money", "unit_price", "NUMERIC", true, ValueConversion.MONEY_NUMERIC,
                null, null),
            new ColumnPlan("attrs", "jsonb", "attrs", "JSON", false, ValueConversion.JSON, null, null)),
        List.of(KeyPart.asc("order_id"), KeyPart.asc("line_no")),
        KeyStrategy.keep("Interleaved in orders: rows follow their parent's bit-reversed key, so inserts are "
            + "already spread."),
        new Interleave("orders", Interleave.OnDelete.CASCADE, "order_items_order_id_fkey"),
        List.of(new IndexPlan("order_items_sku_idx", "order_items_by_sku", List.of(KeyPart.asc("sku")), false,
            false, List.of(), null)),
        List.of(),
        List.of(),
        List.of(
            Finding.of(FindingCode.INTERLEAVE_CANDIDATE, "public.order_items", null, "order_items_order_id_fkey",
                "order_items's key starts with orders's key through foreign key order_items_order_id_fkey: "
                    + "interleaved in orders ON DELETE CASCADE.",
                evidence("foreignKey", "order_items_order_id_fkey", "onDelete", "CASCADE")),
            Finding.of(FindingCode.UNUSED_INDEX, "public.order_items", null, "order_items_sku_idx",
                "Index order_items_sku_idx was never scanned since statistics were reset; consider not "
                    + "creating it.",
                evidence("idxScan", 0, "statsSince", "2024-03-01T00:00:00Z")),
            Finding.of(FindingCode.LOSSY_TYPE, "public.order_items", "unit_price", null,
                "money becomes NUMERIC: the currency symbol and lc_monetary formatting are not kept.",
                evidence("lcMonetary", "en_US.UTF-8"))));
  }

  static TablePlan events() {
    return new TablePlan("public.events", false, "events", 52_000_000.0, 22_548_578_304L,
        List.of(
            new ColumnPlan(null, null, "shard_id", "INT64", true, SYNTHETIC, null,
                "MOD(ABS(FARM_FINGERPRINT(CAST(event_id AS STRING))), 16)"),
            new ColumnPlan("event_id", "bigint", "event_id", "INT64", true, INT64, null, null),
            new ColumnPlan("order_id", "bigint", "order_id", "INT64", false, INT64, null, null),
            new ColumnPlan("occurred_at", "timestamp without time zone", "occurred_at", "TIMESTAMP", true,
                ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC, null, null),
            new ColumnPlan("kind", "text", "kind", "STRING(MAX)", true, STRING, null, null),
            new ColumnPlan("payload", "json", "payload", "STRING(MAX)", false, ValueConversion.JSON_TEXT, null,
                null),
            new ColumnPlan("tags", "text[]", "tags", "ARRAY<STRING(MAX)>", false, STRING, null, null),
            new ColumnPlan("duration", "interval", "duration", "STRING(MAX)", false,
                ValueConversion.INTERVAL_ISO8601, null, null)),
        List.of(KeyPart.asc("shard_id"), KeyPart.asc("event_id")),
        KeyStrategy.hashShard("event_id is an identity column taking 38,000 inserts/s; "
            + "16 hash shards spread them over every split.", "shard_id", 16, List.of("event_id")),
        null,
        List.of(new IndexPlan("events_order_idx", "events_by_order", List.of(KeyPart.asc("order_id")), false, true,
            List.of("kind"), null)),
        List.of(new ForeignKeyPlan("events_order_id_fkey", "events_order_fk", List.of("order_id"), "orders",
            List.of("order_id"), Interleave.OnDelete.NO_ACTION)),
        List.of(),
        List.of(
            Finding.of(FindingCode.HOTSPOT_KEY, "public.events", "event_id", null,
                "Primary key event_id is an identity column (GENERATED ALWAYS) taking 38,000 inserts/s: every "
                    + "insert would land on the last split. The plan prefixes the key with 16 hash shards.",
                evidence("identity", "ALWAYS", "insertsPerSecond", 38_000, "writeSkewSource", 1.0,
                    "writeSkewPlanned", 0.0625)),
            Finding.of(FindingCode.FOREIGN_KEY_CHANGED, "public.events", "order_id", "events_order_id_fkey",
                "Foreign key events_order_id_fkey is ON DELETE SET NULL in PostgreSQL; Spanner only has CASCADE "
                    + "and NO ACTION, so it becomes NO ACTION: clear order_id in the application before deleting "
                    + "an order.",
                evidence("sourceAction", "SET NULL", "targetAction", "NO ACTION"))));
  }

  static TablePlan auditLog() {
    return new TablePlan("audit.log_entries", true, "audit_log_entries", null, 0L,
        List.of(
            new ColumnPlan(null, null, "synthetic_id", "STRING(36)", true, SYNTHETIC, "GENERATE_UUID()", null),
            new ColumnPlan("logged_at", "timestamp with time zone", "logged_at", "TIMESTAMP", true,
                ValueConversion.TIMESTAMP, null, null),
            new ColumnPlan("User Name", "text", "user_name", "STRING(MAX)", false, STRING, null, null),
            new ColumnPlan("client", "inet", "client", "STRING(MAX)", false, ValueConversion.TEXT_OUTPUT, null, null),
            new ColumnPlan("amount", "numeric", "amount", "STRING(MAX)", false, ValueConversion.NUMERIC_TEXT, null,
                null),
            new ColumnPlan("request_id", "uuid", "request_id", "STRING(36)", false, ValueConversion.UUID_TEXT, null,
                null),
            new ColumnPlan("took", "time without time zone", "took", "STRING(MAX)", false,
                ValueConversion.TIME_TEXT, null, null)),
        List.of(KeyPart.asc("synthetic_id")),
        KeyStrategy.synthetic("audit.log_entries has no primary key; a random UUID key "
            + "(GENERATE_UUID()) is added."),
        null,
        List.of(),
        List.of(),
        List.of(),
        List.of(
            Finding.onTable(FindingCode.NO_PRIMARY_KEY, "audit.log_entries",
                "audit.log_entries has no primary key; Spanner needs one, so the plan adds synthetic_id, a random "
                    + "UUID the application never writes."),
            Finding.of(FindingCode.NAME_CHANGED, "audit.log_entries", null, null,
                "Named schemas are off: audit.log_entries becomes audit_log_entries.",
                evidence("from", "audit.log_entries", "to", "audit_log_entries")),
            Finding.of(FindingCode.LOSSY_TYPE, "audit.log_entries", "amount", null,
                "amount is an unconstrained numeric with values beyond NUMERIC's range (max scale 14); it is kept "
                    + "exactly as text in a STRING column.",
                evidence("maxScale", 14, "sampledRows", 10_000, "outOfRange", List.of("3.14159265358979", "NaN"))),
            Finding.onTable(FindingCode.STATISTICS_MISSING, "audit.log_entries",
                "audit.log_entries has never been analyzed; the row estimate is unknown.")
                .withSeverity(Severity.INFO),
            Finding.onTable(FindingCode.INHERITANCE, "audit.log_entries",
                "audit.log_entries has child tables by inheritance; it is read with FROM ONLY, so their rows "
                    + "are not included here.")));
  }

  /** The shop plan with table {@code index} replaced. */
  public static Plan withTable(Plan plan, int index, UnaryOperator<TablePlan> change) {
    List<TablePlan> tables = new ArrayList<>(plan.tables());
    tables.set(index, change.apply(tables.get(index)));
    return withTables(plan, tables);
  }

  public static Plan withTables(Plan plan, List<TablePlan> tables) {
    return new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(), plan.target(),
        tables, plan.sequences(), plan.findings());
  }

  /** The plan with no findings at all, database-wide or per table. */
  public static Plan withoutFindings(Plan plan) {
    List<TablePlan> tables = plan.tables().stream().map(t -> new TablePlan(t.source(), t.readOnly(), t.target(),
        t.rowsEstimate(), t.bytesEstimate(), t.columns(), t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(),
        t.foreignKeys(), t.checks(), List.of(), t.splitPoints(), t.rowHash())).toList();
    return new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(), plan.target(),
        tables, plan.sequences(), List.of());
  }

  /** Evidence in the given key order (Finding sorts it anyway). */
  static Map<String, Object> evidence(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}
