package dev.pg2spanner.ddl;

import static dev.pg2spanner.ddl.PlanFixture.asc;
import static dev.pg2spanner.ddl.PlanFixture.col;
import static dev.pg2spanner.ddl.PlanFixture.desc;
import static dev.pg2spanner.ddl.PlanFixture.fk;
import static dev.pg2spanner.ddl.PlanFixture.generated;
import static dev.pg2spanner.ddl.PlanFixture.index;
import static dev.pg2spanner.ddl.PlanFixture.notNull;
import static dev.pg2spanner.ddl.PlanFixture.table;
import static dev.pg2spanner.ddl.PlanFixture.withDefault;

import dev.pg2spanner.plan.Interleave.OnDelete;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The golden cases: each a plan built in code, expected DDL in {@code src/test/resources/ddl/<case>.ddl}. */
final class DdlCases {

  static final String SHARD = "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)";

  private DdlCases() {}

  static Map<String, Plan> all() {
    Map<String, Plan> cases = new LinkedHashMap<>();
    cases.put("all_column_types", allColumnTypes());
    cases.put("reserved_and_mixed_case_names", reservedAndMixedCaseNames());
    cases.put("named_schema", namedSchema());
    cases.put("column_options_and_checks", columnOptionsAndChecks());
    cases.put("composite_key_desc", compositeKeyDesc());
    cases.put("interleave_three_levels", interleaveThreeLevels());
    cases.put("bit_reversed_shared_sequence", bitReversedSharedSequence());
    cases.put("hash_shard_parent_and_child", hashShardParentAndChild());
    cases.put("uuid_key", uuidKey());
    cases.put("unique_null_filtered_storing", uniqueNullFilteredStoring());
    cases.put("interleaved_index", interleavedIndex());
    cases.put("foreign_keys", foreignKeys());
    cases.put("no_indexes_no_foreign_keys", noIndexesNoForeignKeys());
    return cases;
  }

  static Plan allColumnTypes() {
    return PlanFixture.plan().table(table("every_type")
        .columns(notNull("id", "INT64"), col("flag", "BOOL"), col("small_float", "FLOAT32"),
            col("big_float", "FLOAT64"), col("amount", "NUMERIC"), col("note", "STRING(MAX)"),
            col("code", "STRING(10)"), col("external_id", "STRING(36)"), col("payload", "BYTES(MAX)"),
            col("born_on", "DATE"), col("created_at", "TIMESTAMP"), col("attributes", "JSON"),
            col("tags", "ARRAY<STRING(MAX)>"), col("scores", "ARRAY<INT64>"), col("weights", "ARRAY<FLOAT64>"),
            col("prices", "ARRAY<NUMERIC>"))
        .key(asc("id"))).build();
  }

  static Plan reservedAndMixedCaseNames() {
    return PlanFixture.plan()
        .table(table("Order")
            .columns(notNull("Id", "INT64"), col("select", "STRING(MAX)"), col("Group", "INT64"),
                col("CustomerName", "STRING(100)"), col("from", "DATE"))
            .key(asc("Id"))
            .index(index("Order_by_Group", false, false, List.of(asc("Group"), desc("from")), List.of("select"),
                null))
            .check("Group_positive", "`Group` > 0"))
        .table(table("Line")
            .columns(notNull("Id", "INT64"), notNull("Position", "INT64"), col("Desc", "STRING(MAX)"))
            .key(asc("Id"), asc("Position"))
            .interleaveIn("Order", OnDelete.CASCADE))
        .build();
  }

  static Plan namedSchema() {
    return PlanFixture.plan()
        .table(table("customers").columns(notNull("id", "INT64"), col("name", "STRING(MAX)")).key(asc("id")))
        .table(table("billing.invoices")
            .columns(notNull("id", "INT64"), notNull("customer_id", "INT64"), col("total", "NUMERIC"))
            .key(asc("id"))
            .index(index("invoices_by_customer", false, false, List.of(asc("customer_id")), List.of("total"), null))
            .foreignKey(fk("invoices_customer_fk", List.of("customer_id"), "customers", List.of("id"),
                OnDelete.NO_ACTION))
            .check("invoices_total_nonneg", "total >= 0"))
        .table(table("billing.invoice_lines")
            .columns(notNull("id", "INT64"), notNull("line", "INT64"), col("amount", "NUMERIC"))
            .key(asc("id"), asc("line"))
            .interleaveIn("billing.invoices", OnDelete.CASCADE))
        .build();
  }

  static Plan columnOptionsAndChecks() {
    return PlanFixture.plan().table(table("accounts")
        .columns(notNull("id", "INT64"), withDefault("status", "STRING(20)", true, "'active'"),
            withDefault("balance", "NUMERIC", true, "NUMERIC '0'"),
            withDefault("created_at", "TIMESTAMP", true, "CURRENT_TIMESTAMP()"),
            col("first_name", "STRING(100)"), col("last_name", "STRING(100)"),
            generated("full_name", "STRING(201)", "CONCAT(first_name, ' ', last_name)"))
        .key(asc("id"))
        .check("accounts_balance_nonneg", "balance >= 0")
        .check("accounts_status_known", "status IN ('active', 'closed')")).build();
  }

  static Plan compositeKeyDesc() {
    return PlanFixture.plan().table(table("events")
        .columns(notNull("tenant_id", "INT64"), notNull("occurred_at", "TIMESTAMP"), notNull("seq", "INT64"),
            col("payload", "JSON"))
        .key(asc("tenant_id"), desc("occurred_at"), asc("seq"))
        .strategy(KeyStrategy.swap("tenant first, newest first"))).build();
  }

  static Plan interleaveThreeLevels() {
    // Plan order deliberately lists the grandchild first: the printer must still create parents first.
    return PlanFixture.plan()
        .table(table("order_items")
            .columns(notNull("customer_id", "INT64"), notNull("order_id", "INT64"), notNull("item_no", "INT64"),
                col("sku", "STRING(40)"))
            .key(asc("customer_id"), asc("order_id"), asc("item_no"))
            .interleaveIn("orders", OnDelete.NO_ACTION))
        .table(table("customers").columns(notNull("customer_id", "INT64"), col("name", "STRING(MAX)"))
            .key(asc("customer_id")))
        .table(table("orders")
            .columns(notNull("customer_id", "INT64"), notNull("order_id", "INT64"), col("placed_at", "TIMESTAMP"))
            .key(asc("customer_id"), asc("order_id"))
            .interleaveIn("customers", OnDelete.CASCADE))
        .build();
  }

  static Plan bitReversedSharedSequence() {
    KeyStrategy bitReversed = KeyStrategy.bitReversed("sequence-fed key", "shared_ids");
    String next = "GET_NEXT_SEQUENCE_VALUE(SEQUENCE shared_ids)";
    return PlanFixture.plan()
        .sequence("shared_ids", 1, 250000, "invoices.id", "credit_notes.id")
        .table(table("invoices").columns(withDefault("id", "INT64", true, next), col("total", "NUMERIC"))
            .key(asc("id")).strategy(bitReversed))
        .table(table("credit_notes").columns(withDefault("id", "INT64", true, next), col("total", "NUMERIC"))
            .key(asc("id")).strategy(bitReversed))
        .build();
  }

  static Plan hashShardParentAndChild() {
    KeyStrategy parent = KeyStrategy.hashShard("serial key, high write rate", "shard_id", 16, List.of("id"));
    KeyStrategy child = KeyStrategy.hashShard("follows its parent", "shard_id", 16, List.of("id"));
    return PlanFixture.plan()
        .table(table("accounts")
            .columns(generated("shard_id", "INT64", SHARD), notNull("id", "INT64"), col("name", "STRING(MAX)"))
            .key(asc("shard_id"), asc("id")).strategy(parent))
        .table(table("transfers")
            .columns(generated("shard_id", "INT64", SHARD), notNull("id", "INT64"), notNull("transfer_no", "INT64"),
                col("amount", "NUMERIC"))
            .key(asc("shard_id"), asc("id"), asc("transfer_no")).strategy(child)
            .interleaveIn("accounts", OnDelete.CASCADE))
        .build();
  }

  static Plan uuidKey() {
    return PlanFixture.plan().table(table("sessions")
        .columns(withDefault("id", "STRING(36)", true, "GENERATE_UUID()"), col("legacy_id", "INT64"),
            col("started_at", "TIMESTAMP"))
        .key(asc("id"))
        .strategy(KeyStrategy.uuid("serial key replaced", "legacy_id"))
        .index(index("sessions_legacy_id", true, true, List.of(asc("legacy_id")), List.of(), null))).build();
  }

  static Plan uniqueNullFilteredStoring() {
    return PlanFixture.plan().table(table("users")
        .columns(notNull("id", "INT64"), col("email", "STRING(320)"), col("name", "STRING(MAX)"),
            col("created_at", "TIMESTAMP"))
        .key(asc("id"))
        .index(index("users_email_key", true, true, List.of(asc("email")), List.of("name", "created_at"), null))
        .index(index("users_by_created", false, false, List.of(desc("created_at")), List.of(), null))).build();
  }

  static Plan interleavedIndex() {
    return PlanFixture.plan()
        .table(table("customers").columns(notNull("customer_id", "INT64"), col("name", "STRING(MAX)"))
            .key(asc("customer_id")))
        .table(table("orders")
            .columns(notNull("customer_id", "INT64"), notNull("order_id", "INT64"), col("status", "STRING(20)"))
            .key(asc("customer_id"), asc("order_id"))
            .interleaveIn("customers", OnDelete.CASCADE)
            .index(index("orders_by_status", false, false, List.of(asc("customer_id"), asc("status")), List.of(),
                "customers")))
        .build();
  }

  static Plan foreignKeys() {
    return PlanFixture.plan()
        .table(table("authors").columns(notNull("id", "INT64"), col("name", "STRING(MAX)")).key(asc("id")))
        .table(table("books")
            .columns(notNull("id", "INT64"), notNull("author_id", "INT64"), col("editor_id", "INT64"))
            .key(asc("id"))
            .foreignKey(fk("books_author_fk", List.of("author_id"), "authors", List.of("id"), OnDelete.CASCADE))
            .foreignKey(fk("books_editor_fk", List.of("editor_id"), "authors", List.of("id"), OnDelete.NO_ACTION)))
        .build();
  }

  static Plan noIndexesNoForeignKeys() {
    return PlanFixture.plan().table(table("notes")
        .columns(notNull("id", "INT64"), col("body", "STRING(MAX)")).key(asc("id"))).build();
  }
}
