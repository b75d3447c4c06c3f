package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import dev.pg2spanner.verify.SourceRows;
import dev.pg2spanner.verify.TableVerification;
import dev.pg2spanner.verify.Verifier;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Verify against real PostgreSQL rows and the Spanner emulator: the target is loaded from the same source adapter
 * verify reads (as the loader would write it), so every table must match — including JSON that Spanner normalises,
 * NaN/−0/±Infinity floats, arrays with NULL elements, a named schema, a generated shard column and a keyless table
 * — and then one changed, one deleted and one extra row must be named exactly.
 */
@WithPostgres
@WithSpannerEmulator
class VerifierIT {

  private static final String PG_SCHEMA = """
      CREATE TABLE kinds (
        id bigint PRIMARY KEY, flag boolean, r real, f double precision, n numeric(22,4), note text, b bytea,
        d date, ts timestamptz, j json, tags text[], nums double precision[]);
      INSERT INTO kinds VALUES
        (1, true, 1.1, 0.1, 1.5000, 'it''s', '\\x00ff', '2024-01-31', '2024-01-31 12:00:00.123456+02',
         '{"b": 1.50, "a": {"y": [1, 2], "x": null}, "b": 3}', '{a,NULL,""}', '{1.5,NULL,-0}'),
        (2, false, '-0', 'NaN', -0.0001, '', '\\x', '0001-01-01', '1970-01-01 00:00:00+00', '[]', '{}', '{}'),
        (3, NULL, 'Infinity', '-Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (4, true, 'NaN', '-0', 12345678901234567.1234, 'a|b', '\\xdeadbeef', '9999-12-31',
         '9999-12-31 23:59:59.999999+00', '{"k": "v", "n": 1e2}', '{"x, y"}', '{Infinity}');
      CREATE SCHEMA billing;
      CREATE TABLE billing.invoices (customer text, invoice_no int, amount numeric(12,2), issued date,
        PRIMARY KEY (customer, invoice_no));
      INSERT INTO billing.invoices VALUES ('acme', 1, 10.00, '2024-01-01'), ('acme', 2, 0.50, NULL),
        ('zeta', 1, NULL, '2023-12-31');
      CREATE TABLE events (at timestamp, msg text);
      INSERT INTO events VALUES ('2024-05-01 10:00', 'dup'), ('2024-05-01 10:00', 'dup'), (NULL, 'no time');
      """;

  private static final List<String> SPANNER_DDL = List.of(
      """
      CREATE TABLE kinds (id INT64 NOT NULL, flag BOOL, r FLOAT32, f FLOAT64, n NUMERIC, note STRING(MAX),
        b BYTES(MAX), d DATE, ts TIMESTAMP, j JSON, tags ARRAY<STRING(MAX)>, nums ARRAY<FLOAT64>)
        PRIMARY KEY (id)""",
      "CREATE SCHEMA billing",
      """
      CREATE TABLE billing.invoices (
        shard_id INT64 AS (MOD(ABS(FARM_FINGERPRINT(customer)), 4)) STORED,
        customer STRING(MAX) NOT NULL, invoice_no INT64 NOT NULL, amount NUMERIC, issued DATE)
        PRIMARY KEY (shard_id, customer, invoice_no)""",
      """
      CREATE TABLE events (row_id STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), `at` TIMESTAMP, msg STRING(MAX))
        PRIMARY KEY (row_id)""");

  private static final TablePlan KINDS = table("public.kinds", "kinds", List.of(
      col("id", "INT64", ValueConversion.INT64), col("flag", "BOOL", ValueConversion.BOOL),
      col("r", "FLOAT32", ValueConversion.FLOAT32), col("f", "FLOAT64", ValueConversion.FLOAT64),
      col("n", "NUMERIC", ValueConversion.NUMERIC), col("note", "STRING(MAX)", ValueConversion.STRING),
      col("b", "BYTES(MAX)", ValueConversion.BYTES), col("d", "DATE", ValueConversion.DATE),
      col("ts", "TIMESTAMP", ValueConversion.TIMESTAMP), col("j", "JSON", ValueConversion.JSON),
      col("tags", "ARRAY<STRING(MAX)>", ValueConversion.STRING),
      col("nums", "ARRAY<FLOAT64>", ValueConversion.FLOAT64)),
      List.of("id"), KeyStrategy.keep("test"));

  private static final TablePlan INVOICES = table("billing.invoices", "billing.invoices", List.of(
      new ColumnPlan(null, null, "shard_id", "INT64", false, ValueConversion.SYNTHETIC, null,
          "MOD(ABS(FARM_FINGERPRINT(customer)), 4)"),
      col("customer", "STRING(MAX)", ValueConversion.STRING), col("invoice_no", "INT64", ValueConversion.INT64),
      col("amount", "NUMERIC", ValueConversion.NUMERIC), col("issued", "DATE", ValueConversion.DATE)),
      List.of("shard_id", "customer", "invoice_no"),
      KeyStrategy.hashShard("test", "shard_id", 4, List.of("customer", "invoice_no")));

  private static final TablePlan EVENTS = table("public.events", "events", List.of(
      new ColumnPlan(null, null, "row_id", "STRING(36)", true, ValueConversion.SYNTHETIC, "GENERATE_UUID()", null),
      col("at", "TIMESTAMP", ValueConversion.TIMESTAMP_WALL_CLOCK_AS_UTC),
      col("msg", "STRING(MAX)", ValueConversion.STRING)),
      List.of("row_id"), KeyStrategy.synthetic("no key"));

  @Test
  void matchingTablesMatchAndEveryKindOfDifferenceIsNamed(PgTestDatabase pg, SpannerTestDatabase spanner)
      throws Exception {
    pg.execute(PG_SCHEMA);
    spanner.updateDdl(SPANNER_DDL);
    Plan plan = plan(List.of(KINDS, INVOICES, EVENTS));
    JdbcSourceRows source = new JdbcSourceRows(pg);
    DatabaseClient client = spanner.client();
    for (TablePlan t : plan.tables()) {
      load(source, t, client);
    }

    // One row per target read: every table is cut into key ranges (a shard column, a named schema, UUID keys).
    List<TableVerification> results = new Verifier(plan, client, source, 2, 1).verify();
    assertThat(results).extracting(TableVerification::table)
        .containsExactly("kinds", "billing.invoices", "events");
    assertThat(results).allSatisfy(r -> {
      assertThat(r.matches()).as(Verifier.render(results)).isTrue();
      assertThat(r.differingKeys()).isEmpty();
    });
    assertThat(results).extracting(TableVerification::sourceRows).containsExactly(4L, 3L, 3L);
    assertThat(results.get(0).sourceChecksum()).hasSize(32).isEqualTo(results.get(0).targetChecksum());

    // One changed value, one deleted row, one extra row: the row count stays equal, the checksum does not.
    client.write(List.of(
        Mutation.newUpdateBuilder("kinds").set("id").to(2L).set("f").to(Double.POSITIVE_INFINITY).build(),
        Mutation.delete("kinds", Key.of(3L)),
        Mutation.newInsertBuilder("kinds").set("id").to(999L).set("note").to("extra").build()));
    // In the keyless table one of two identical rows goes: the duplicate must still count.
    try (var rs = client.singleUse()
        .executeQuery(Statement.of("SELECT row_id FROM events WHERE msg = 'dup' LIMIT 1"))) {
      rs.next();
      client.write(List.of(Mutation.delete("events", Key.of(rs.getString("row_id")))));
    }

    List<TableVerification> after = new Verifier(plan, client, source, 1, 1).verify();
    String report = Verifier.render(after);
    TableVerification kinds = after.get(0);
    assertThat(kinds.matches()).as(report).isFalse();
    assertThat(kinds.sourceRows()).isEqualTo(4);
    assertThat(kinds.targetRows()).isEqualTo(4);
    assertThat(kinds.sourceChecksum()).isNotEqualTo(kinds.targetChecksum());
    assertThat(kinds.differingKeys()).as(report)
        .containsExactly("different: 2", "missing in target: 3", "extra in target: 999");
    assertThat(after.get(1).matches()).as(report).isTrue();
    TableVerification events = after.get(2);
    assertThat(events.matches()).as(report).isFalse();
    assertThat(events.targetRows()).isEqualTo(2);
    assertThat(events.differingKeys()).as(report)
        .containsExactly("missing in target: TIMESTAMP 1714557600000000, 'dup'");
    assertThat(report).contains("kinds").contains("DIFFERENT").contains("2 of 3 table(s) differ.");
  }

  @Test
  void aFiftyThousandRowTableVerifiesAndOneDifferenceIsFound(PgTestDatabase pg, SpannerTestDatabase spanner)
      throws Exception {
    pg.execute("""
        CREATE TABLE big AS SELECT g::bigint AS id, md5(g::text) AS payload,
          round((g % 1000)::numeric / 7, 6) AS amount,
          timestamptz '2024-01-01 00:00+00' + g * interval '1 second' AS created
        FROM generate_series(1, 50000) g;
        ALTER TABLE big ADD PRIMARY KEY (id)""");
    spanner.updateDdl(List.of("CREATE TABLE big (id INT64 NOT NULL, payload STRING(MAX), amount NUMERIC, "
        + "created TIMESTAMP) PRIMARY KEY (id)"));
    TablePlan big = table("public.big", "big", List.of(col("id", "INT64", ValueConversion.INT64),
        col("payload", "STRING(MAX)", ValueConversion.STRING), col("amount", "NUMERIC", ValueConversion.NUMERIC),
        col("created", "TIMESTAMP", ValueConversion.TIMESTAMP)), List.of("id"), KeyStrategy.keep("test"));
    Plan plan = plan(List.of(big));
    JdbcSourceRows source = new JdbcSourceRows(pg);
    load(source, big, spanner.client());

    TableVerification same = new Verifier(plan, spanner.client(), source, 2).verify().get(0);
    assertThat(same.matches()).isTrue();
    assertThat(same.targetRows()).isEqualTo(50_000);

    spanner.client().write(List.of(
        Mutation.newUpdateBuilder("big").set("id").to(31_337L).set("payload").to("tampered").build()));
    // Read in ~50 key ranges this time: the changed row is still found.
    TableVerification changed = new Verifier(plan, spanner.client(), source, 2, 1_000).verify().get(0);
    assertThat(changed.matches()).isFalse();
    assertThat(changed.differingKeys()).containsExactly("different: 31337");
  }

  @Test
  void aTargetTableThatDoesNotExistIsAnExpectedFailureNamingIt(SpannerTestDatabase spanner) {
    TablePlan missing = table("public.never", "never_migrated", List.of(col("id", "INT64", ValueConversion.INT64)),
        List.of("id"), KeyStrategy.keep("test"));
    SourceRows none = (t, sink) -> { };
    assertThatThrownBy(() -> new Verifier(plan(List.of(missing)), spanner.client(), none, 1).verify())
        .isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("Cannot read target table never_migrated")
        .satisfies(e -> assertThat(((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONNECTION));
  }

  // ---- plan fixtures ----

  private static ColumnPlan col(String name, String type, ValueConversion conversion) {
    return new ColumnPlan(name, "(test)", name, type, false, conversion, null, null);
  }

  private static TablePlan table(String source, String target, List<ColumnPlan> columns, List<String> key,
      KeyStrategy strategy) {
    return new TablePlan(source, false, target, null, 0, columns, key.stream().map(KeyPart::asc).toList(),
        strategy, null, null, null, null, null);
  }

  private static Plan plan(List<TablePlan> tables) {
    return new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.now(),
        new Plan.Source("localhost/test", "15", List.of("public", "billing"), "test"),
        new Plan.Target("GOOGLE_STANDARD_SQL", true, 1), tables, null, null);
  }

  /** Writes the source rows to Spanner as the loader would: every loaded column, in batches. */
  private static void load(SourceRows source, TablePlan table, DatabaseClient client) throws Exception {
    List<String> columns = Verifier.loadedColumns(table).stream().map(ColumnPlan::target).toList();
    List<Mutation> batch = new ArrayList<>();
    source.forEach(table, SourceRows.Sink.rows((key, values) -> {
      Mutation.WriteBuilder m = Mutation.newInsertBuilder(table.target());
      for (int i = 0; i < columns.size(); i++) {
        m.set(columns.get(i)).to(values.get(i));
      }
      batch.add(m.build());
      if (batch.size() == 2_000) {
        client.writeAtLeastOnce(batch);
        batch.clear();
      }
    }));
    if (!batch.isEmpty()) {
      client.writeAtLeastOnce(batch);
    }
  }

  /**
   * The test's own source adapter on plain JDBC (the product's converter is tested elsewhere): reads the loaded
   * columns by name and converts each value by the plan's conversion, and passes a null key so verify derives it.
   */
  private record JdbcSourceRows(PgTestDatabase pg) implements SourceRows {

    @Override
    public void forEach(TablePlan table, SourceRows.Sink sink) throws SQLException {
      List<ColumnPlan> columns = Verifier.loadedColumns(table);
      String schema = table.source().substring(0, table.source().indexOf('.'));
      String name = table.source().substring(table.source().indexOf('.') + 1);
      String sql = "SELECT "
          + columns.stream().map(c -> PgNames.quote(c.source())).collect(Collectors.joining(", "))
          + " FROM " + PgNames.qualified(schema, name);
      try (Connection c = pg.connect()) {
        c.setAutoCommit(false); // lets the driver stream with a fetch size instead of buffering the table
        try (var st = c.createStatement()) {
          st.setFetchSize(5_000);
          try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
              List<Value> values = new ArrayList<>(columns.size());
              for (ColumnPlan col : columns) {
                values.add(convert(rs, col));
              }
              sink.row(null, values);
            }
          }
        }
      }
    }

    private static Value convert(ResultSet rs, ColumnPlan col) throws SQLException {
      String name = col.source();
      if (col.targetType().startsWith("ARRAY<")) {
        Array array = rs.getArray(name);
        List<Object> elements = array == null ? null : Arrays.asList((Object[]) array.getArray());
        return switch (col.conversion()) {
          case STRING -> Value.stringArray(elements == null ? null
              : elements.stream().map(e -> (String) e).collect(Collectors.toList()));
          case FLOAT64 -> Value.float64Array(elements == null ? null
              : elements.stream().map(e -> (Double) e).collect(Collectors.toList()));
          default -> throw new IllegalArgumentException("no test conversion for " + col);
        };
      }
      return switch (col.conversion()) {
        case BOOL -> Value.bool(rs.getObject(name, Boolean.class));
        case INT64 -> {
          long v = rs.getLong(name);
          yield Value.int64(rs.wasNull() ? null : v);
        }
        case FLOAT32 -> Value.float32(rs.getObject(name, Float.class));
        case FLOAT64 -> Value.float64(rs.getObject(name, Double.class));
        case NUMERIC -> Value.numeric(rs.getBigDecimal(name));
        case STRING -> Value.string(rs.getString(name));
        case JSON -> Value.json(rs.getString(name));
        case BYTES -> {
          byte[] b = rs.getBytes(name);
          yield Value.bytes(b == null ? null : ByteArray.copyFrom(b));
        }
        case DATE -> {
          LocalDate d = rs.getObject(name, LocalDate.class);
          yield Value.date(d == null ? null
              : Date.fromYearMonthDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()));
        }
        case TIMESTAMP -> {
          OffsetDateTime t = rs.getObject(name, OffsetDateTime.class);
          yield Value.timestamp(t == null ? null
              : Timestamp.ofTimeSecondsAndNanos(t.toEpochSecond(), t.getNano()));
        }
        case TIMESTAMP_WALL_CLOCK_AS_UTC -> {
          LocalDateTime t = rs.getObject(name, LocalDateTime.class);
          yield Value.timestamp(t == null ? null
              : Timestamp.ofTimeSecondsAndNanos(t.toEpochSecond(ZoneOffset.UTC), t.getNano()));
        }
        default -> throw new IllegalArgumentException("no test conversion for " + col);
      };
    }
  }
}
