package dev.pg2spanner.it;

import static dev.pg2spanner.it.LoadFixtures.column;
import static dev.pg2spanner.it.LoadFixtures.id;
import static dev.pg2spanner.it.LoadFixtures.table;
import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.spanner.SpannerDialect.GOOGLE_STANDARD_SQL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.it.LoadFixtures.CollectingSink;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.read.PieceReader;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20's other ways to read less than a table holds, each checked against what PostgreSQL 15 really does: a
 * partition the role cannot SELECT (a read through the parent returns every row, but migrate reads partitions
 * directly), a partition with policies of its own, {@code pg_read_all_data} (SELECT everywhere, row-level security
 * still applies), another session's ACCESS EXCLUSIVE lock, a TRUNCATE committed just after the snapshot (the snapshot
 * then reads the table as empty), and the readers' {@code row_security = off} guard.
 */
@WithPostgres
@WithSpannerEmulator
class SourceAccessIT {

  private static final String SUFFIX = Long.toHexString(System.nanoTime());
  /** SELECT on the partitioned parent and one partition only. */
  private static final String PARENT_ONLY = "p2s_acc_parent_" + SUFFIX;
  /** Member of pg_read_all_data, nothing else. */
  private static final String READ_ALL = "p2s_acc_readall_" + SUFFIX;

  @BeforeAll
  static void schema(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE ROLE " + PARENT_ONLY + " LOGIN",
        "CREATE ROLE " + READ_ALL + " LOGIN IN ROLE pg_read_all_data",
        "CREATE TABLE events (id int NOT NULL, day int NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (day)",
        "CREATE TABLE events_early PARTITION OF events FOR VALUES FROM (0) TO (50)",
        "CREATE TABLE events_late PARTITION OF events FOR VALUES FROM (50) TO (100)",
        "INSERT INTO events SELECT g, g % 100 FROM generate_series(1, 1000) g",
        "GRANT SELECT ON events, events_early TO " + PARENT_ONLY,
        "CREATE TABLE notes (id int PRIMARY KEY, secret boolean NOT NULL)",
        "INSERT INTO notes SELECT g, g % 2 = 0 FROM generate_series(1, 300) g",
        "ALTER TABLE notes ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY public_notes ON notes USING (NOT secret)",
        "ANALYZE");
  }

  @AfterAll
  static void dropRoles(PgTestDatabase pg) throws Exception {
    pg.execute("DROP OWNED BY " + PARENT_ONLY + ", " + READ_ALL, "DROP ROLE " + PARENT_ONLY,
        "DROP ROLE " + READ_ALL);
  }

  private static String as(PgTestDatabase pg, String role) {
    return pg.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
  }

  private static List<String> withSource(List<String> args, String url) {
    List<String> replaced = new ArrayList<>(args);
    replaced.set(replaced.indexOf("--source") + 1, url);
    return replaced;
  }

  private static long userTables(SpannerTestDatabase spanner) {
    return MigrateSupport.spannerLong(spanner, "SELECT COUNT(*) FROM information_schema.tables "
        + "WHERE table_schema NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS')");
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = new SourceConnector(new SourceConfig(url, null)).open(); Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aPartitionTheRoleCannotSelectIsRefusedBeforeTheTarget(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    // What PostgreSQL does: through the parent every row, but the partition itself is off limits.
    assertThat(count(as(pg, PARENT_ONLY), "SELECT count(*) FROM events")).isEqualTo(1000);
    assertThatThrownBy(() -> count(as(pg, PARENT_ONLY), "SELECT count(*) FROM ONLY events_late"))
        .hasMessageContaining("permission denied");

    CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", as(pg, PARENT_ONLY));
    assertThat(check.exitCode()).as(check.out()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(check.out()).contains("public.events_late (a partition of public.events)")
        .doesNotContain("public.events_early (a partition");

    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    CliRunner.Result r = MigrateSupport.cli(withSource(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")), as(pg, PARENT_ONLY)));
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(r.err()).contains("cannot read").contains("public.events_late (a partition of public.events)")
        .contains("no SELECT privilege").contains("Nothing was changed on the target");
    assertThat(userTables(spanner)).isZero();
  }

  @Test
  void aPartitionWithItsOwnPoliciesIsFilteredThoughItsParentIsNot(PgTestDatabase pg) throws Exception {
    String role = "p2s_acc_part_" + SUFFIX;
    pg.execute("CREATE ROLE " + role + " LOGIN", "GRANT SELECT ON events, events_early, events_late TO " + role,
        "ALTER TABLE events_late ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY even_only ON events_late USING (id % 2 = 0)");
    try {
      // Through the parent the partition's policy does not apply; read directly, as migrate reads, it does.
      assertThat(count(as(pg, role), "SELECT count(*) FROM events")).isEqualTo(1000);
      assertThat(count(as(pg, role), "SELECT count(*) FROM ONLY events_late"))
          .isLessThan(count(pg.jdbcUrl(), "SELECT count(*) FROM ONLY events_late"));

      CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", as(pg, role));
      assertThat(check.exitCode()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
      assertThat(check.out()).containsPattern("FAIL +every row visible")
          .contains("public.events_late (a partition of public.events): row-level security, policy even_only");
    } finally {
      pg.execute("DROP POLICY even_only ON events_late", "ALTER TABLE events_late DISABLE ROW LEVEL SECURITY",
          "DROP OWNED BY " + role, "DROP ROLE " + role);
    }
  }

  @Test
  void pgReadAllDataGrantsSelectButNotEveryRow(PgTestDatabase pg) throws Exception {
    assertThat(count(as(pg, READ_ALL), "SELECT count(*) FROM notes")).isEqualTo(150);

    CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", as(pg, READ_ALL));
    assertThat(check.exitCode()).isEqualTo(ExitCode.SOURCE_PRIVILEGES.exitCode());
    assertThat(check.out()).containsPattern("OK +SELECT on every table")
        .containsPattern("FAIL +every row visible +row-level security hides rows of 1 table\\(s\\) from " + READ_ALL)
        .contains("public.notes: row-level security, policy public_notes (FOR ALL TO PUBLIC USING (NOT secret))");
  }

  @Test
  void aTableLockedByAnotherSessionStopsMigrateBeforeTheTarget(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    try (Connection holder = pg.connect()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.execute("LOCK TABLE notes IN ACCESS EXCLUSIVE MODE");
      }
      CliRunner.Result check = CliRunner.withEnv(Map.of()).run("check", "--source", pg.jdbcUrl());
      assertThat(check.out()).containsPattern("WARN +table locks +1 table\\(s\\) are locked ACCESS EXCLUSIVE")
          .contains("public.notes (pid ");

      CliRunner.Result r = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
          dir.resolve("run")));
      assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
      assertThat(r.err()).contains("locked ACCESS EXCLUSIVE by another session").contains("public.notes (pid ")
          .contains("LOCK TABLE notes").contains("Nothing was changed on the target");
      holder.rollback();
    }
    assertThat(userTables(spanner)).isZero();
  }

  @Test
  void aTableTruncatedJustAfterTheSnapshotStopsTheLoadInsteadOfReadingNothing(PgTestDatabase pg) throws Exception {
    pg.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, v text)",
        "INSERT INTO ledger SELECT g, 'v' || g FROM generate_series(1, 500) g");
    TablePlan ledger = table("public.ledger", "ledger", false, id(),
        column("v", "text", "v", "STRING(MAX)", ValueConversion.STRING));
    Plan plan = LoadFixtures.plan(ledger);
    SourceConnector source = new SourceConnector(new SourceConfig(pg.jdbcUrl(), null));

    List<Piece> pieces;
    try (SnapshotSession first = SnapshotSession.open(source)) {
      pieces = PiecePlanner.cut(first.coordinator(), plan, 1, 1L << 20);
    }
    try (SnapshotSession session = SnapshotSession.open(source)) {
      // Committed after the snapshot, before anything locked the table: PostgreSQL's snapshot now sees it empty.
      pg.execute("TRUNCATE ledger", "INSERT INTO ledger VALUES (1, 'after')");
      try (Statement s = session.coordinator().createStatement();
          java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM ledger")) {
        rs.next();
        assertThat(rs.getLong(1)).as("rows the old snapshot sees after TRUNCATE").isZero();
      }
    }
    try (SnapshotSession session = SnapshotSession.open(source)) {
      pg.execute("TRUNCATE ledger");
      assertThatThrownBy(() -> PiecePlanner.cut(session.coordinator(), plan, 1, 1L << 20))
          .isInstanceOf(Pg2SpannerException.class)
          .hasMessageContaining("\"public\".\"ledger\" was truncated or rewritten")
          .satisfies(e -> assertThat(((Pg2SpannerException) e).code()).isEqualTo(ExitCode.SOURCE_CONNECTION));
    }
    try (SnapshotSession session = SnapshotSession.open(source)) {
      // A resumed run locks the pieces it saved the same way.
      pg.execute("VACUUM FULL ledger");
      assertThatThrownBy(() -> PiecePlanner.lock(session.coordinator(), pieces))
          .hasMessageContaining("was truncated or rewritten");
    }
    try (SnapshotSession session = SnapshotSession.open(source)) {
      assertThat(PiecePlanner.cut(session.coordinator(), plan, 1, 1L << 20)).isNotEmpty();
    }
  }

  @Test
  void readersRefuseARowSecurityFilteredReadUnlessTheFilteredCopyWasAccepted(PgTestDatabase pg) throws Exception {
    String role = "p2s_acc_filtered_" + SUFFIX;
    pg.execute("CREATE ROLE " + role + " LOGIN", "GRANT SELECT ON notes TO " + role);
    try {
      TablePlan notes = table("public.notes", "notes", false, id(),
          column("secret", "boolean", "secret", "BOOL", ValueConversion.BOOL));
      PieceReader reader = new PieceReader(Map.of("notes", TableConverter.compile(notes, GOOGLE_STANDARD_SQL)), 50);
      Piece all = LoadFixtures.whole(notes, "public", "notes");
      SourceConnector source = new SourceConnector(new SourceConfig(as(pg, role), null));

      try (SnapshotSession session = SnapshotSession.open(source); Connection c = session.openReader()) {
        assertThatThrownBy(() -> reader.read(c, all, new CollectingSink()))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("row-level security");
      }
      try (SnapshotSession session = SnapshotSession.open(source, true); Connection c = session.openReader()) {
        CollectingSink sink = new CollectingSink();
        reader.read(c, all, sink);
        assertThat(sink.rows).hasSize(150);
      }
    } finally {
      pg.execute("DROP OWNED BY " + role, "DROP ROLE " + role);
    }
  }
}
