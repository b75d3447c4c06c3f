package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.ddl.MigrationFiles;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.Interleave.OnDelete;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.schema.AppliedMigration;
import dev.pg2spanner.schema.FlywayMigrator;
import dev.pg2spanner.targetdb.SpannerTarget;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The phase migrations from {@link DdlPrinter}, written by {@link MigrationFiles} and applied by
 * {@link FlywayMigrator} to the real emulator: V1 tables, a row, V2 indexes, V3 foreign keys.
 */
@WithSpannerEmulator
class FlywayMigrationsIT {

  private static final String SHARD = "MOD(ABS(FARM_FINGERPRINT(CAST(id AS STRING))), 16)";
  private static final String NEXT_DOC_ID = "GET_NEXT_SEQUENCE_VALUE(SEQUENCE billing.doc_ids)";
  private static final long SKIP_MAX = 1_000_000L;
  private static final AtomicInteger DATABASES = new AtomicInteger();

  @Test
  void appliesThePhasesInOrderAndFlywayRecordsThem(SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    SpannerTarget target = newDatabase(spanner);
    MigrationFiles.write(DdlPrinter.migrations(shopPlan()), dir);
    FlywayMigrator migrator = new FlywayMigrator(target, dir);
    DatabaseClient client = client(spanner, target);

    assertThat(migrator.migrateTo(1)).containsExactly(1);
    assertThat(strings(client, "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_TYPE = 'INDEX' "
        + "AND TABLE_NAME != 'flyway_schema_history' ORDER BY INDEX_NAME")).isEmpty();

    // The bulk load would happen here: rows that V2 must index and V3's foreign keys must accept.
    dml(client, "INSERT INTO customers (id, email, name) VALUES (1, 'a@example.com', 'Ann')",
        "INSERT INTO customers (id, email, name) VALUES (2, NULL, 'Bob')",
        "INSERT INTO accounts (id, customer_id, name) VALUES (42, 1, 'current')",
        "INSERT INTO transfers (id, transfer_no, amount, status) VALUES (42, 1, 10, 'done')",
        "INSERT INTO transfer_notes (id, transfer_no, note_no, body) VALUES (42, 1, 1, 'ok')");
    for (int i = 0; i < 10; i++) {
      dml(client, "INSERT INTO billing.invoices (customer_id, total) VALUES (1, " + i + ")",
          "INSERT INTO billing.credit_notes (total) VALUES (" + i + ")");
    }

    assertThat(migrator.migrateTo(2)).containsExactly(2);
    assertThat(migrator.migrateTo(4)).containsExactly(3, 4);

    // Tables, in their schemas, with the interleaving the plan asked for.
    Map<String, String> tables = new LinkedHashMap<>();
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(
        "SELECT TABLE_SCHEMA, TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION FROM INFORMATION_SCHEMA.TABLES "
            + "WHERE TABLE_SCHEMA NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS') ORDER BY TABLE_SCHEMA, TABLE_NAME"))) {
      while (rs.next()) {
        String name = (rs.getString("TABLE_SCHEMA").isEmpty() ? "" : rs.getString("TABLE_SCHEMA") + ".")
            + rs.getString("TABLE_NAME");
        tables.put(name, rs.isNull("PARENT_TABLE_NAME") ? "-"
            : rs.getString("PARENT_TABLE_NAME") + " " + rs.getString("ON_DELETE_ACTION"));
      }
    }
    assertThat(tables).containsExactlyInAnyOrderEntriesOf(Map.of(
        "accounts", "-", "customers", "-", "sessions", "-", "flyway_schema_history", "-",
        "transfers", "accounts CASCADE", "transfer_notes", "transfers NO ACTION",
        "billing.invoices", "-", "billing.credit_notes", "-"));

    assertThat(strings(client, "SELECT CONCAT(INDEX_NAME, ' on ', TABLE_NAME, ' unique=', CAST(IS_UNIQUE AS STRING),"
        + " ' null_filtered=', CAST(IS_NULL_FILTERED AS STRING), ' parent=', PARENT_TABLE_NAME) AS d "
        + "FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_TYPE = 'INDEX' AND TABLE_NAME != 'flyway_schema_history' "
        + "AND NOT STARTS_WITH(INDEX_NAME, 'IDX_') ORDER BY INDEX_NAME"))
        .containsExactly(
            "customers_email on customers unique=true null_filtered=true parent=",
            "sessions_legacy_id on sessions unique=true null_filtered=true parent=",
            "transfers_by_status on transfers unique=false null_filtered=false parent=accounts");
    assertThat(strings(client, "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS "
        + "WHERE INDEX_NAME = 'customers_email' AND ORDINAL_POSITION IS NULL ORDER BY COLUMN_NAME"))
        .as("STORING columns").containsExactly("name");

    // The emulator reports DELETE_RULE 'NO ACTION' for every foreign key, so the action is read from the DDL it
    // keeps and proven by deleting rows.
    assertThat(strings(client, "SELECT CONSTRAINT_NAME FROM INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS "
        + "ORDER BY CONSTRAINT_NAME"))
        .containsExactly("accounts_customer_fk", "credit_notes_invoice_fk", "invoices_customer_fk");
    List<String> ddl = spanner.admin().getDatabaseDdl(target.instance(), target.database());
    assertThat(String.join("\n", ddl))
        .contains("CONSTRAINT accounts_customer_fk FOREIGN KEY(customer_id) REFERENCES customers(id) "
            + "ON DELETE CASCADE")
        .contains("CONSTRAINT invoices_customer_fk FOREIGN KEY(customer_id) REFERENCES customers(id) "
            + "ON DELETE NO ACTION");
    dml(client, "INSERT INTO accounts (id, customer_id, name) VALUES (43, 2, 'to go')",
        "INSERT INTO transfers (id, transfer_no, amount) VALUES (43, 1, 5)");
    dml(client, "DELETE FROM customers WHERE id = 2");
    assertThat(strings(client, "SELECT CAST(COUNT(*) AS STRING) FROM accounts WHERE id = 43"))
        .as("ON DELETE CASCADE from customers to accounts").containsExactly("0");
    assertThat(strings(client, "SELECT CAST(COUNT(*) AS STRING) FROM transfers WHERE id = 43"))
        .as("interleaved CASCADE from accounts to transfers").containsExactly("0");
    dml(client, "INSERT INTO customers (id, name) VALUES (3, 'Cat')",
        "INSERT INTO billing.invoices (customer_id, total) VALUES (3, 1)");
    assertThatThrownBy(() -> dml(client, "DELETE FROM customers WHERE id = 3"))
        .as("foreign key NO ACTION: customer 3 still has an invoice").hasMessageContaining("invoices_customer_fk");
    assertThatThrownBy(() -> dml(client, "DELETE FROM transfers WHERE id = 42"))
        .as("interleave NO ACTION: the transfer still has notes").hasMessageContaining("transfer_notes");

    // Flyway's history: four successful versions, in order, with checksums.
    List<AppliedMigration> applied = migrator.applied();
    assertThat(applied).extracting(AppliedMigration::version).containsExactly(1, 2, 3, 4);
    assertThat(applied).extracting(AppliedMigration::description)
        .containsExactly("tables", "indexes", "foreign keys", "checks");
    assertThat(applied).allSatisfy(m -> {
      assertThat(m.success()).isTrue();
      assertThat(m.checksum()).isNotNull();
      assertThat(m.installedOn()).isNotNull();
    });
    assertThat(strings(client, "SELECT CONCAT(version, ' ', CAST(success AS STRING)) AS d "
        + "FROM flyway_schema_history ORDER BY installed_rank"))
        .containsExactly("1 true", "2 true", "3 true", "4 true");

    // Idempotent: nothing left to apply, nothing recorded twice.
    assertThat(migrator.migrateTo(4)).isEmpty();
    assertThat(migrator.applied()).hasSize(4);
  }

  @Test
  void sequenceDefaultsSkipTheMigratedRangeAndShardsAreComputedBySpanner(SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    SpannerTarget target = newDatabase(spanner);
    MigrationFiles.write(DdlPrinter.migrations(shopPlan()), dir);
    new FlywayMigrator(target, dir).migrateTo(1);
    DatabaseClient client = client(spanner, target);

    // A migrated row keeps its id inside the skip range; new rows draw from the shared sequence.
    dml(client, "INSERT INTO billing.invoices (id, total) VALUES (" + SKIP_MAX + ", 1)");
    for (int i = 0; i < 25; i++) {
      dml(client, "INSERT INTO billing.invoices (total) VALUES (" + i + ")",
          "INSERT INTO billing.credit_notes (total) VALUES (" + i + ")");
    }
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(
        "SELECT id FROM billing.invoices WHERE id != " + SKIP_MAX
            + " UNION ALL SELECT id FROM billing.credit_notes"))) {
      while (rs.next()) {
        ids.add(rs.getLong("id"));
      }
    }
    assertThat(ids).hasSize(50).allSatisfy(id -> assertThat(id).isGreaterThan(SKIP_MAX));
    assertThat(new HashSet<>(ids)).as("one sequence shared by both tables").hasSize(50);

    dml(client, "INSERT INTO customers (id, name) VALUES (7, 'Cy')");
    Set<Long> shards = new HashSet<>();
    for (long id = 1; id <= 40; id++) {
      dml(client, "INSERT INTO accounts (id, customer_id, name) VALUES (" + id + ", 7, 'a')",
          "INSERT INTO transfers (id, transfer_no) VALUES (" + id + ", 1)");
    }
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(
        "SELECT a.id, a.shard_id, t.shard_id AS child_shard, " + SHARD.replace("id", "a.id") + " AS expected "
            + "FROM accounts a JOIN transfers t ON t.shard_id = a.shard_id AND t.id = a.id"))) {
      int rows = 0;
      while (rs.next()) {
        rows++;
        assertThat(rs.getLong("shard_id")).isBetween(0L, 15L).isEqualTo(rs.getLong("expected"))
            .isEqualTo(rs.getLong("child_shard"));
        shards.add(rs.getLong("shard_id"));
      }
      assertThat(rows).isEqualTo(40);
    }
    assertThat(shards).as("40 ids spread over several of the 16 shards").hasSizeGreaterThan(4);

    // The UUID default fills the key when a row gives none.
    dml(client, "INSERT INTO sessions (legacy_id) VALUES (5)");
    assertThat(strings(client, "SELECT id FROM sessions"))
        .singleElement().asString().matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
  }

  @Test
  void emptyPhasesAreStillRecordedSoV2AndV3CanAlwaysBeApplied(SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    SpannerTarget target = newDatabase(spanner);
    List<Migration> migrations = DdlPrinter.migrations(notesPlan());
    assertThat(migrations.get(1).statements()).isEmpty();
    assertThat(migrations.get(2).statements()).isEmpty();
    MigrationFiles.write(migrations, dir);
    FlywayMigrator migrator = new FlywayMigrator(target, dir);

    assertThat(migrator.applied()).as("no history table yet").isEmpty();
    assertThat(migrator.migrateTo(1)).containsExactly(1);
    assertThat(migrator.migrateTo(4)).containsExactly(2, 3, 4);
    assertThat(migrator.applied()).extracting(AppliedMigration::version, AppliedMigration::success)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, true), org.assertj.core.groups.Tuple.tuple(2, true),
            org.assertj.core.groups.Tuple.tuple(3, true), org.assertj.core.groups.Tuple.tuple(4, true));
  }

  @Test
  void anExistingTableIsATargetConflictThatNamesIt(SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    SpannerTarget target = newDatabase(spanner);
    spanner.admin().updateDatabaseDdl(target.instance(), target.database(),
        List.of("CREATE TABLE notes (id INT64 NOT NULL) PRIMARY KEY (id)"), null).get(1, TimeUnit.MINUTES);
    MigrationFiles.write(DdlPrinter.migrations(notesPlan()), dir);
    FlywayMigrator migrator = new FlywayMigrator(target, dir);

    assertThatThrownBy(() -> migrator.migrateTo(1))
        .isInstanceOf(Pg2SpannerException.class)
        .hasMessage("table notes already exists in " + target.describe() + ", which has no Flyway history; use an "
            + "empty database or --resume.")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONFLICT);
  }

  @Test
  void aMissingMigrationsDirectoryIsALocalIoError(SpannerTestDatabase spanner, @TempDir Path dir) {
    SpannerTarget target = SpannerTarget.parse(spanner.path(), spanner.emulatorHost());
    FlywayMigrator migrator = new FlywayMigrator(target, dir.resolve("missing"));
    assertThatThrownBy(() -> migrator.migrateTo(1)).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("does not exist")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.LOCAL_IO);
  }

  @Test
  void anUnreachableEmulatorIsATargetConnectionError(@TempDir Path dir) throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    MigrationFiles.write(DdlPrinter.migrations(notesPlan()), dir);
    FlywayMigrator migrator = new FlywayMigrator(
        SpannerTarget.parse("projects/p/instances/gone/databases/gone", "127.0.0.1:" + port), dir);
    assertThatThrownBy(() -> migrator.migrateTo(1)).isInstanceOf(Pg2SpannerException.class)
        .hasMessageStartingWith("cannot reach projects/p/instances/gone/databases/gone on the emulator at 127.0.0.1:"
            + port + " while applying the migrations in ")
        .hasMessageEndingWith("check the target, the emulator or your credentials and try again.")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONNECTION);
  }

  @Test
  void recordAppliedWritesTheHistoryRowsFlywayWouldHaveWritten(SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    List<Migration> migrations = DdlPrinter.migrations(shopPlan());
    MigrationFiles.write(migrations, dir);

    // One database migrated by Flyway alone ...
    SpannerTarget byFlyway = newDatabase(spanner);
    new FlywayMigrator(byFlyway, dir).migrateTo(4);

    // ... and one where every phase goes through the admin API, as migrate applies them (Flyway creates only its
    // history table).
    SpannerTarget byAdmin = newDatabase(spanner);
    FlywayMigrator migrator = new FlywayMigrator(byAdmin, dir);
    migrator.ensureHistoryTable();
    assertThat(migrator.applied()).isEmpty();
    for (Migration m : migrations) {
      if (!m.statements().isEmpty()) {
        spanner.admin().updateDatabaseDdl(byAdmin.instance(), byAdmin.database(), m.statements(), null)
            .get(2, TimeUnit.MINUTES);
      }
      migrator.recordApplied(m, 1234);
    }

    String history = "SELECT CONCAT(CAST(installed_rank AS STRING), '|', version, '|', description, '|', type, '|',"
        + " script, '|', CAST(checksum AS STRING), '|', installed_by, '|', CAST(success AS STRING)) AS d "
        + "FROM flyway_schema_history ORDER BY installed_rank";
    List<String> flywayRows = strings(client(spanner, byFlyway), history);
    assertThat(flywayRows).hasSize(4);
    assertThat(strings(client(spanner, byAdmin), history)).isEqualTo(flywayRows);
    assertThat(migrator.applied()).extracting(AppliedMigration::version, AppliedMigration::checksum)
        .isEqualTo(new FlywayMigrator(byFlyway, dir).applied().stream()
            .map(a -> org.assertj.core.groups.Tuple.tuple(a.version(), a.checksum())).toList());

    // Flyway agrees: validate passes, and migrate (which validates first) finds nothing to do.
    org.flywaydb.core.api.output.ValidateResult validation = org.flywaydb.core.Flyway.configure()
        .dataSource("jdbc:cloudspanner://" + byAdmin.emulatorHost() + "/" + byAdmin.path()
            + "?autoConfigEmulator=true", null, null)
        .locations("filesystem:" + dir.toAbsolutePath()).load().validateWithResult();
    assertThat(validation.validationSuccessful).as(String.valueOf(validation.invalidMigrations)).isTrue();
    assertThat(migrator.migrateTo(4)).isEmpty();

    assertThatThrownBy(() -> migrator.recordApplied(migrations.get(2)))
        .isInstanceOf(Pg2SpannerException.class).hasMessageContaining("already records version 3")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONFLICT);
  }

  @Test
  void recordAppliedNeedsFlywaysHistoryTable(SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
    SpannerTarget target = newDatabase(spanner);
    List<Migration> migrations = DdlPrinter.migrations(notesPlan());
    MigrationFiles.write(migrations, dir);
    assertThatThrownBy(() -> new FlywayMigrator(target, dir).recordApplied(migrations.get(1)))
        .isInstanceOf(Pg2SpannerException.class)
        .hasMessage(target.describe() + " has no Flyway history table flyway_schema_history to record "
            + "V2__indexes.sql in; apply V1 with Flyway first.")
        .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.TARGET_CONFLICT);
  }

  // --- the plans -------------------------------------------------------------------------------------------

  /**
   * A plan with every DDL feature the emulator must accept together: a named schema, a bit-reversed sequence
   * shared by two tables, a hash-sharded parent with a three-level interleave (CASCADE, NO ACTION), a UUID key,
   * CHECKs, a unique NULL_FILTERED index with STORING, an interleaved index and foreign keys.
   */
  static Plan shopPlan() {
    KeyStrategy shard = KeyStrategy.hashShard("serial key", "shard_id", 16, List.of("id"));
    KeyStrategy bitReversed = KeyStrategy.bitReversed("sequence-fed key", "billing.doc_ids");
    List<TablePlan> tables = List.of(
        table("customers", List.of(notNull("id", "INT64"), col("email", "STRING(320)"), col("name", "STRING(MAX)")),
            List.of(KeyPart.asc("id")), KeyStrategy.keep("natural key"), null,
            List.of(new IndexPlan("customers_email", "customers_email", List.of(KeyPart.asc("email")), true, true,
                List.of("name"), null)),
            List.of(), List.of()),
        table("accounts", List.of(generated("shard_id", "INT64", SHARD), notNull("id", "INT64"),
                notNull("customer_id", "INT64"), col("name", "STRING(MAX)")),
            List.of(KeyPart.asc("shard_id"), KeyPart.asc("id")), shard, null, List.of(),
            List.of(new ForeignKeyPlan("accounts_customer_fk", "accounts_customer_fk", List.of("customer_id"),
                "customers", List.of("id"), OnDelete.CASCADE)), List.of()),
        table("transfers", List.of(generated("shard_id", "INT64", SHARD), notNull("id", "INT64"),
                notNull("transfer_no", "INT64"), col("amount", "NUMERIC"), col("status", "STRING(20)")),
            List.of(KeyPart.asc("shard_id"), KeyPart.asc("id"), KeyPart.asc("transfer_no")), shard,
            new Interleave("accounts", OnDelete.CASCADE, "transfers_account_fk"),
            List.of(new IndexPlan("transfers_by_status", "transfers_by_status",
                List.of(KeyPart.asc("shard_id"), KeyPart.asc("id"), KeyPart.asc("status")), false, false, List.of(),
                "accounts")),
            List.of(), List.of(new CheckPlan("transfers_amount_positive", "transfers_amount_positive",
                "amount > 0"))),
        table("transfer_notes", List.of(generated("shard_id", "INT64", SHARD), notNull("id", "INT64"),
                notNull("transfer_no", "INT64"), notNull("note_no", "INT64"), col("body", "STRING(MAX)")),
            List.of(KeyPart.asc("shard_id"), KeyPart.asc("id"), KeyPart.asc("transfer_no"), new KeyPart("note_no",
                true)), shard, new Interleave("transfers", OnDelete.NO_ACTION, "notes_transfer_fk"),
            List.of(), List.of(), List.of()),
        table("billing.invoices", List.of(withDefault("id", "INT64", NEXT_DOC_ID), col("customer_id", "INT64"),
                col("total", "NUMERIC")),
            List.of(KeyPart.asc("id")), bitReversed, null, List.of(),
            List.of(new ForeignKeyPlan("invoices_customer_fk", "invoices_customer_fk", List.of("customer_id"),
                "customers", List.of("id"), OnDelete.NO_ACTION)),
            List.of(new CheckPlan("invoices_total_nonneg", "invoices_total_nonneg", "total >= 0"))),
        table("billing.credit_notes", List.of(withDefault("id", "INT64", NEXT_DOC_ID), col("invoice_id", "INT64"),
                col("total", "NUMERIC")),
            List.of(KeyPart.asc("id")), bitReversed, null, List.of(),
            List.of(new ForeignKeyPlan("credit_notes_invoice_fk", "credit_notes_invoice_fk", List.of("invoice_id"),
                "billing.invoices", List.of("id"), OnDelete.NO_ACTION)), List.of()),
        table("sessions", List.of(withDefault("id", "STRING(36)", "GENERATE_UUID()"), col("legacy_id", "INT64")),
            List.of(KeyPart.asc("id")), KeyStrategy.uuid("serial key", "legacy_id"), null,
            List.of(new IndexPlan("sessions_legacy_id", "sessions_legacy_id", List.of(KeyPart.asc("legacy_id")),
                true, true, List.of(), null)),
            List.of(), List.of()));
    List<SequencePlan> sequences = List.of(new SequencePlan("public.documents_id_seq", "billing.doc_ids", 1,
        SKIP_MAX, List.of("billing.invoices.id", "billing.credit_notes.id")));
    return plan(tables, sequences);
  }

  /** One table, no indexes, no foreign keys: phases 2 and 3 are empty. */
  static Plan notesPlan() {
    return plan(List.of(table("notes", List.of(notNull("id", "INT64"), col("body", "STRING(MAX)")),
        List.of(KeyPart.asc("id")), KeyStrategy.keep("external ids"), null, List.of(), List.of(), List.of())),
        List.of());
  }

  private static Plan plan(List<TablePlan> tables, List<SequencePlan> sequences) {
    return new Plan(Plan.FORMAT_VERSION, "pg2spanner test", Instant.parse("2026-01-01T00:00:00Z"),
        new Plan.Source("localhost:5432/shop", "15.0", List.of("public", "billing"), "test"),
        new Plan.Target("GOOGLE_STANDARD_SQL", true, 1), tables, sequences, List.of());
  }

  private static TablePlan table(String target, List<ColumnPlan> columns, List<KeyPart> key, KeyStrategy strategy,
      Interleave interleave, List<IndexPlan> indexes, List<ForeignKeyPlan> fks, List<CheckPlan> checks) {
    String source = target.contains(".") ? target : "public." + target;
    return new TablePlan(source, false, target, 100.0, 8192L, columns, key, strategy, interleave, indexes, fks,
        checks, List.of());
  }

  private static ColumnPlan col(String name, String type) {
    return new ColumnPlan(name, "text", name, type, false, ValueConversion.STRING, null, null);
  }

  private static ColumnPlan notNull(String name, String type) {
    return new ColumnPlan(name, "bigint", name, type, true, ValueConversion.INT64, null, null);
  }

  private static ColumnPlan withDefault(String name, String type, String expression) {
    return new ColumnPlan(name, "bigint", name, type, true, ValueConversion.INT64, expression, null);
  }

  private static ColumnPlan generated(String name, String type, String expression) {
    return new ColumnPlan(null, null, name, type, true, ValueConversion.SYNTHETIC, null, expression);
  }

  // --- helpers ---------------------------------------------------------------------------------------------

  /** A fresh, empty database beside the extension's (the extension gives one per class; these tests need more). */
  /**
   * Issue 33: a target unreachable for a moment (every connection cut, new ones refused for 1.5 s) while the
   * migration history is read. The read is idempotent and is tried again; before, the first cut stopped migrate.
   */
  @Test
  void theHistoryReadSurvivesABriefOutageOfTheTarget(SpannerTestDatabase spanner, @TempDir Path dir)
      throws Exception {
    SpannerTarget direct = newDatabase(spanner);
    MigrationFiles.write(DdlPrinter.migrations(shopPlan()), dir);
    String host = spanner.emulatorHost();
    int colon = host.lastIndexOf(':');
    try (dev.pg2spanner.testing.TcpFaultProxy proxy = dev.pg2spanner.testing.TcpFaultProxy.start(
        host.substring(0, colon), Integer.parseInt(host.substring(colon + 1)))) {
      SpannerTarget target = SpannerTarget.parse(direct.path(), "127.0.0.1:" + proxy.port());
      FlywayMigrator migrator = new FlywayMigrator(target, dir);
      migrator.ensureHistoryTable();
      proxy.down();
      java.util.concurrent.CompletableFuture<List<dev.pg2spanner.schema.AppliedMigration>> read =
          java.util.concurrent.CompletableFuture.supplyAsync(migrator::applied);
      Thread.sleep(1_500);
      proxy.up();
      assertThat(read.get(2, TimeUnit.MINUTES)).as("the history, read once the target answers again").isEmpty();
    } finally {
      FlywayMigrator.releaseConnections();
    }
  }

  private static SpannerTarget newDatabase(SpannerTestDatabase spanner) throws Exception {
    String instance = spanner.id().getInstanceId().getInstance();
    String database = "fw-" + DATABASES.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() % 0xFFFFFF);
    spanner.admin().createDatabase(instance, database, List.of()).get(1, TimeUnit.MINUTES);
    return SpannerTarget.parse("projects/" + spanner.id().getInstanceId().getProject() + "/instances/" + instance
        + "/databases/" + database, spanner.emulatorHost());
  }

  private static DatabaseClient client(SpannerTestDatabase spanner, SpannerTarget target) {
    return spanner.spanner().getDatabaseClient(
        com.google.cloud.spanner.DatabaseId.of(target.project(), target.instance(), target.database()));
  }

  private static void dml(DatabaseClient client, String... statements) {
    client.readWriteTransaction().run(tx -> {
      for (String sql : statements) {
        tx.executeUpdate(Statement.of(sql));
      }
      return null;
    });
  }

  private static List<String> strings(DatabaseClient client, String sql) {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
      while (rs.next()) {
        out.add(rs.isNull(0) ? null : rs.getString(0));
      }
    }
    return out;
  }
}
