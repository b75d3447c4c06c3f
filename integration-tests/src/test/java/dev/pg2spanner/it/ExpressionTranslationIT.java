package dev.pg2spanner.it;

import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgIndexStats;
import dev.pg2spanner.catalog.PgPrimaryKey;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgTableStats;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.expression.ColumnRef;
import dev.pg2spanner.expression.ExpressionTranslator;
import dev.pg2spanner.expression.Translation;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reads defaults and CHECKs exactly as a real PostgreSQL prints them, translates them, and proves the Spanner
 * emulator accepts the resulting DDL, fills in the defaults, and rejects the rows the checks forbid (the same rows
 * PostgreSQL rejects).
 */
@WithPostgres
@WithSpannerEmulator
class ExpressionTranslationIT {

  /** The Spanner column types a type mapper would choose (the mapper is not under test here). */
  private static final Map<String, SpannerType> TARGET_TYPES = Map.ofEntries(
      Map.entry("id", SpannerType.INT64), Map.entry("status", SpannerType.string(10)),
      Map.entry("quantity", SpannerType.INT64), Map.entry("price", SpannerType.NUMERIC),
      Map.entry("code", SpannerType.string(3)), Map.entry("note", SpannerType.STRING_MAX),
      Map.entry("created_at", SpannerType.TIMESTAMP), Map.entry("updated", SpannerType.TIMESTAMP),
      Map.entry("day", SpannerType.DATE), Map.entry("start_date", SpannerType.DATE),
      Map.entry("end_date", SpannerType.DATE), Map.entry("tags", SpannerType.arrayOf(SpannerType.STRING_MAX)),
      Map.entry("labels", SpannerType.arrayOf(SpannerType.STRING_MAX)),
      Map.entry("nums", SpannerType.arrayOf(SpannerType.INT64)), Map.entry("attrs", SpannerType.JSON),
      Map.entry("active", SpannerType.BOOL), Map.entry("ratio", SpannerType.FLOAT64),
      Map.entry("token", SpannerType.string(36)), Map.entry("blob", SpannerType.BYTES_MAX),
      Map.entry("Order", SpannerType.INT64), Map.entry("first name", SpannerType.STRING_MAX));

  private static final String PG_TABLE = """
      CREATE TABLE orders (
        id bigint PRIMARY KEY,
        status varchar(10) NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'paid')),
        quantity integer DEFAULT 1 CHECK (quantity > 0),
        price numeric(12,2) DEFAULT 0 CHECK (price BETWEEN 0 AND 1000),
        code varchar(3) DEFAULT 'abc' CHECK (char_length(code) = 3),
        note text DEFAULT 'it''s a \\ note' CHECK (note ~ '^[a-z]' OR note IS NULL),
        created_at timestamptz DEFAULT now(),
        updated timestamp DEFAULT '2020-01-01 10:00',
        day date DEFAULT CURRENT_DATE,
        start_date date DEFAULT '2020-01-01',
        end_date date,
        tags text[] DEFAULT '{}',
        labels text[] DEFAULT ARRAY['a', 'b'],
        nums bigint[] DEFAULT '{1,2}',
        attrs jsonb DEFAULT '{"a": 1, "q": "x\\"y"}',
        active boolean DEFAULT true,
        ratio float8 DEFAULT -2.5 CHECK (ratio > -10),
        token uuid DEFAULT gen_random_uuid(),
        blob bytea DEFAULT '\\x0102',
        "Order" integer DEFAULT -1 CHECK ("Order" <> 0),
        "first name" text DEFAULT 'Zoë',
        CONSTRAINT dates_in_order CHECK (end_date IS NULL OR end_date >= start_date)
      )""";

  @Test
  void translatedDefaultsAndChecksWorkOnTheEmulator(PgTestDatabase pg, SpannerTestDatabase spanner) throws Exception {
    pg.execute(PG_TABLE);
    PgTable table = readTable(pg, "public", "orders");
    NamePlan names = NamePlan.of(catalog(table), true);
    assertThat(names.column(table, "first name")).isEqualTo("first_name");

    // Defaults: every one of these is translatable; print the DDL from the translations.
    List<String> columnsDdl = new ArrayList<>();
    Map<String, Translation> defaults = new LinkedHashMap<>();
    for (PgColumn c : table.columns()) {
      SpannerType target = TARGET_TYPES.get(c.name());
      Translation d = ExpressionTranslator.defaultValue(GOOGLE_STANDARD_SQL, c.defaultExpression(), c.type(), target);
      defaults.put(c.name(), d);
      String ddl = SpannerNames.quote(names.column(table, c.name())) + " " + target.ddl()
          + (c.notNull() ? " NOT NULL" : "") + (d.translated() ? " DEFAULT (" + d.expression() + ")" : "");
      columnsDdl.add(ddl);
    }
    assertThat(defaults).allSatisfy((column, d) -> assertThat(d.translated() || d.isNone())
        .as(column + ": " + d.reason()).isTrue());
    assertThat(defaults.get("id").isNone()).isTrue();
    assertThat(defaults.get("end_date").isNone()).isTrue();
    assertThat(defaults.get("created_at").expression()).isEqualTo("CURRENT_TIMESTAMP()");
    assertThat(defaults.get("token").expression()).isEqualTo("GENERATE_UUID()");

    // Checks: all but the regular expression translate.
    Map<String, ColumnRef> columns = new LinkedHashMap<>();
    table.columns().forEach(c -> columns.put(c.name(),
        ColumnRef.named(names.column(table, c.name()), c.type(), TARGET_TYPES.get(c.name()), null)));
    List<String> constraintsDdl = new ArrayList<>();
    Map<String, String> translatedChecks = new LinkedHashMap<>();
    for (PgCheck check : table.checks()) {
      Translation t = ExpressionTranslator.check(GOOGLE_STANDARD_SQL, check.expression(), columns);
      if (check.name().equals("orders_note_check")) {
        assertThat(t.translated()).isFalse();
        assertThat(t.reason()).contains("regular expression");
        continue;
      }
      assertThat(t.translated()).as(check.name() + ": " + t.reason()).isTrue();
      String name = names.constraint(table, check.name());
      translatedChecks.put(check.name(), name);
      constraintsDdl.add("CONSTRAINT " + SpannerNames.quote(name) + " CHECK (" + t.expression() + ")");
    }
    assertThat(translatedChecks).containsOnlyKeys("orders_status_check", "orders_quantity_check",
        "orders_price_check", "orders_code_check", "orders_ratio_check", "orders_Order_check", "dates_in_order");

    String ddl = "CREATE TABLE " + SpannerNames.quote(names.table(table)) + " (\n  "
        + String.join(",\n  ", columnsDdl) + ",\n  " + String.join(",\n  ", constraintsDdl)
        + "\n) PRIMARY KEY (id)";
    spanner.updateDdl(List.of(ddl));

    // A row with only its key takes every default, as PostgreSQL would give it.
    LocalDate before = LocalDate.now(ZoneOffset.UTC);
    spanner.client().write(List.of(Mutation.newInsertBuilder("orders").set("id").to(1L).build()));
    LocalDate after = LocalDate.now(ZoneOffset.UTC);
    Struct row;
    try (com.google.cloud.spanner.ResultSet rs = spanner.client().singleUse()
        .executeQuery(Statement.of("SELECT * FROM orders WHERE id = 1"))) {
      assertThat(rs.next()).isTrue();
      row = rs.getCurrentRowAsStruct();
    }
    assertThat(row.getString("status")).isEqualTo("new");
    assertThat(row.getLong("quantity")).isEqualTo(1L);
    assertThat(row.getBigDecimal("price")).isEqualByComparingTo("0");
    assertThat(row.getString("code")).isEqualTo("abc");
    assertThat(row.getString("note")).isEqualTo("it's a \\ note");
    assertThat(row.isNull("created_at")).isFalse();
    assertThat(row.getTimestamp("updated").toString()).isEqualTo("2020-01-01T10:00:00Z");
    assertThat(row.getDate("day").toString()).isIn(before.toString(), after.toString());
    assertThat(row.getDate("start_date").toString()).isEqualTo("2020-01-01");
    assertThat(row.isNull("end_date")).isTrue();
    assertThat(row.getStringList("tags")).isEmpty();
    assertThat(row.getStringList("labels")).containsExactly("a", "b");
    assertThat(row.getLongList("nums")).containsExactly(1L, 2L);
    assertThat(row.getJson("attrs")).isEqualTo("{\"a\":1,\"q\":\"x\\\"y\"}");
    assertThat(row.getBoolean("active")).isTrue();
    assertThat(row.getDouble("ratio")).isEqualTo(-2.5);
    assertThat(row.getString("token")).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(row.getBytes("blob")).isEqualTo(ByteArray.copyFrom(new byte[] {1, 2}));
    assertThat(row.getLong("Order")).isEqualTo(-1L);
    assertThat(row.getString("first_name")).isEqualTo("Zoë");

    // Each violating row is rejected by PostgreSQL and, through the translated check, by Spanner.
    record Violation(String check, String pgColumn, Object value, Mutation.WriteBuilder spannerRow) {}
    List<Violation> violations = List.of(
        new Violation("orders_status_check", "status", "bogus",
            insert(2).set("status").to("bogus")),
        new Violation("orders_quantity_check", "quantity", 0, insert(3).set("quantity").to(0L)),
        new Violation("orders_price_check", "price", new java.math.BigDecimal("1000.01"),
            insert(4).set("price").to(new java.math.BigDecimal("1000.01"))),
        new Violation("orders_code_check", "code", "ab", insert(5).set("code").to("ab")),
        new Violation("orders_ratio_check", "ratio", -10.0, insert(6).set("ratio").to(-10.0)),
        new Violation("orders_Order_check", "Order", 0, insert(7).set("Order").to(0L)),
        new Violation("dates_in_order", "end_date", java.sql.Date.valueOf("2019-12-31"),
            insert(8).set("end_date").to(com.google.cloud.Date.parseDate("2019-12-31"))));
    long key = 2;
    for (Violation v : violations) {
      assertRejectedByPostgres(pg, key, v.pgColumn(), v.value(), v.check());
      Mutation m = v.spannerRow().build();
      String spannerName = translatedChecks.get(v.check());
      assertThatThrownBy(() -> spanner.client().write(List.of(m))).as(v.check())
          .isInstanceOf(SpannerException.class).hasMessageContaining(spannerName);
      assertThat(spanner.client().singleUse().readRow("orders", Key.of(key), List.of("id"))).isNull();
      key++;
    }

    // The boundary values both databases accept.
    spanner.client().write(List.of(insert(20).set("status").to("paid").set("quantity").to(1L)
        .set("price").to(new java.math.BigDecimal("1000")).set("ratio").to(-9.5)
        .set("end_date").to(com.google.cloud.Date.parseDate("2020-01-01")).build()));
    assertThat(spanner.client().singleUse().readRow("orders", Key.of(20L), List.of("id"))).isNotNull();
  }

  @Test
  void namedSchemasKeepSameNamedTablesAndChecksApart(PgTestDatabase pg, SpannerTestDatabase spanner)
      throws Exception {
    pg.execute("CREATE SCHEMA billing",
        "CREATE TABLE public.invoices (id bigint PRIMARY KEY, amount numeric CONSTRAINT positive CHECK (amount > 0))",
        "CREATE TABLE billing.invoices (id bigint PRIMARY KEY, amount numeric CONSTRAINT positive CHECK (amount > 0))",
        "CREATE INDEX invoices_amount ON public.invoices (amount)",
        "CREATE INDEX invoices_amount ON billing.invoices (amount)");
    PgTable pub = readTable(pg, "public", "invoices");
    PgTable billing = readTable(pg, "billing", "invoices");
    NamePlan names = NamePlan.of(catalog(pub, billing), true);
    assertThat(names.namedSchemas()).containsExactly("billing");
    assertThat(names.table(billing)).isEqualTo("billing.invoices");
    assertThat(names.index(billing, "invoices_amount")).isEqualTo("billing.invoices_amount");
    assertThat(names.constraint(pub, "positive")).isNotEqualToIgnoringCase(names.constraint(billing, "positive"));

    List<String> ddl = new ArrayList<>();
    names.namedSchemas().forEach(s -> ddl.add("CREATE SCHEMA " + SpannerNames.quote(s)));
    for (PgTable t : List.of(pub, billing)) {
      String check = ExpressionTranslator.check(GOOGLE_STANDARD_SQL, t.checks().get(0).expression(), Map.of(
          "id", ColumnRef.named("id", t.columns().get(0).type(), SpannerType.INT64, ValueConversion.INT64),
          "amount", ColumnRef.named("amount", t.columns().get(1).type(), SpannerType.NUMERIC,
              ValueConversion.NUMERIC))).expression();
      String[] table = names.table(t).split("\\.");
      String qualifiedTable = table.length == 2 ? SpannerNames.qualified(table[0], table[1])
          : SpannerNames.quote(table[0]);
      ddl.add("CREATE TABLE " + qualifiedTable + " (id INT64 NOT NULL, amount NUMERIC, CONSTRAINT "
          + SpannerNames.quote(names.constraint(t, "positive")) + " CHECK (" + check + ")) PRIMARY KEY (id)");
      String[] index = names.index(t, "invoices_amount").split("\\.");
      String qualifiedIndex = index.length == 2 ? SpannerNames.qualified(index[0], index[1])
          : SpannerNames.quote(index[0]);
      ddl.add("CREATE INDEX " + qualifiedIndex + " ON " + qualifiedTable + " (amount)");
    }
    spanner.updateDdl(ddl);

    assertThatThrownBy(() -> spanner.client().write(List.of(Mutation.newInsertBuilder("billing.invoices")
        .set("id").to(1L).set("amount").to(java.math.BigDecimal.ZERO).build())))
        .isInstanceOf(SpannerException.class).hasMessageContaining(names.constraint(billing, "positive"));
  }

  private static Mutation.WriteBuilder insert(long id) {
    return Mutation.newInsertBuilder("orders").set("id").to(id);
  }

  private static void assertRejectedByPostgres(PgTestDatabase pg, long id, String column, Object value,
      String check) throws SQLException {
    String sql = "INSERT INTO orders (id, " + dev.pg2spanner.source.PgNames.quote(column) + ") VALUES (?, ?)";
    try (Connection c = pg.connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, id);
      ps.setObject(2, value);
      assertThatThrownBy(ps::executeUpdate).isInstanceOf(SQLException.class).hasMessageContaining(check)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"));
    }
  }

  private static PgCatalog catalog(PgTable... tables) {
    return new PgCatalog("15", 150000, "it", List.of(tables), List.of(), List.of(), List.of(), List.of());
  }

  /**
   * A minimal table read straight from pg_catalog: columns with their printed defaults, CHECKs with their printed
   * expressions, and plain indexes by name (the real catalog reader is built separately).
   */
  private static PgTable readTable(PgTestDatabase pg, String schema, String name) throws SQLException {
    List<PgColumn> columns = new ArrayList<>();
    List<PgCheck> checks = new ArrayList<>();
    List<PgIndex> indexes = new ArrayList<>();
    List<String> key = new ArrayList<>();
    String primaryKeyName = null;
    try (Connection c = pg.connect()) {
      String relation = dev.pg2spanner.source.PgNames.qualified(schema, name);
      try (PreparedStatement ps = c.prepareStatement("""
          SELECT a.attname, a.attnum, a.attnotnull, format_type(a.atttypid, a.atttypmod) AS display,
                 coalesce(et.typname, t.typname) AS typname, t.typcategory = 'A' AS is_array,
                 pg_get_expr(d.adbin, d.adrelid) AS default_expr
          FROM pg_attribute a
          JOIN pg_type t ON t.oid = a.atttypid
          LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
          LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum""")) {
        ps.setString(1, relation);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            PgType type = PgType.builtin(rs.getString("typname"), rs.getString("display"));
            columns.add(new PgColumn(rs.getString("attname"), rs.getInt("attnum"), type, rs.getBoolean("attnotnull"),
                rs.getString("default_expr"), PgColumn.Identity.NONE, null, null, null, null, null));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement("""
          SELECT conname, contype, pg_get_constraintdef(oid) AS def, convalidated
          FROM pg_constraint WHERE conrelid = ?::regclass AND contype IN ('c', 'p') ORDER BY conname""")) {
        ps.setString(1, relation);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            if (rs.getString("contype").equals("p")) {
              // Both test tables are keyed by id; the name is read, never guessed.
              primaryKeyName = rs.getString("conname");
              key.add("id");
              continue;
            }
            // PgCheck holds the expression inside CHECK (...), without the keyword.
            String expression = rs.getString("def").replaceFirst("^CHECK ", "");
            checks.add(new PgCheck(rs.getString("conname"), expression, rs.getBoolean("convalidated")));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement("""
          SELECT i.relname, pg_get_indexdef(i.oid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = ?::regclass AND NOT x.indisprimary ORDER BY i.relname""")) {
        ps.setString(1, relation);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            indexes.add(new PgIndex(rs.getString("relname"), "btree", false, null,
                List.of(new PgIndex.Element("amount", null, false, false)), List.of(), null, false, true,
                rs.getString("def"), new PgIndexStats(null, 0)));
          }
        }
      }
    }
    return new PgTable(schema, name, PgTable.Kind.TABLE, columns, new PgPrimaryKey(primaryKeyName, key), List.of(),
        List.of(), checks, indexes, null, List.of(), false, null, PgTableStats.unknown());
  }
}
