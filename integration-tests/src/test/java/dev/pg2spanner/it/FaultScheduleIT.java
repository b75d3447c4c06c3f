package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static dev.pg2spanner.it.MigrateSupport.pgLong;
import static dev.pg2spanner.it.MigrateSupport.spannerLong;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.targetdb.SpannerConnector;
import dev.pg2spanner.testing.FaultInjector;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.TcpFaultProxy;
import dev.pg2spanner.testing.WithLogicalPostgres;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33: Spanner faults the emulator never makes, injected on a seeded schedule between pg2spanner and the
 * emulator ({@link FaultInjector}: commits aborted, unavailable, resource-exhausted, or applied with their reply lost;
 * streaming reads cut mid-stream), on the in-process load with its schema phases and verify, and on live streaming
 * and cutover. Each run must end exact by itself, or stop with a clear message and end exact after the one
 * documented {@code --resume}; the figures (faults by kind, the seed to replay them) are printed.
 * {@code PG2SPANNER_FAULT_SEED} replays a schedule; {@code PG2SPANNER_FAULT_RATE} and {@code PG2SPANNER_FAULT_GAP_MS} set
 * its density.
 */
class FaultScheduleIT {

  static final long SEED = Long.parseLong(System.getenv().getOrDefault("PG2SPANNER_FAULT_SEED", "20261127"));
  /** The chance that an eligible call is hit, once the gap since the last fault has passed. */
  static final double RATE = Double.parseDouble(System.getenv().getOrDefault("PG2SPANNER_FAULT_RATE", "0.25"));
  /** The least time between two faults, in milliseconds. */
  static final long GAP = Long.parseLong(System.getenv().getOrDefault("PG2SPANNER_FAULT_GAP_MS", "150"));

  private static final String[] SCHEMA = {
      "CREATE TABLE customers (id bigserial PRIMARY KEY, name text NOT NULL, email text NOT NULL UNIQUE)",
      "INSERT INTO customers (name, email) SELECT 'c' || g, 'c' || g || '@example.com' FROM generate_series(1, 3000) g",
      "CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers, "
          + "total numeric(12,2) NOT NULL, note text)",
      "INSERT INTO orders (customer_id, total, note) SELECT 1 + g % 3000, g / 7.0, repeat('n', g % 300) "
          + "FROM generate_series(1, 12000) g",
      "CREATE INDEX orders_customer ON orders (customer_id)",
      "CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders, line int NOT NULL, qty int NOT NULL, "
          + "PRIMARY KEY (order_id, line))",
      "INSERT INTO order_lines SELECT 1 + g % 12000, g / 12000, g % 9 FROM generate_series(0, 23999) g",
      "ANALYZE"};

  /** How long each scheduled stall of the source's connections holds every byte. */
  static final long STALL_MILLIS = 2_000;
  /** How long {@link StuckLink} holds the source link: past the run's bound on a read (60 s). */
  static final long HOLD_MILLIS = 80_000;

  /** Faults injected by kind over every run of this class, and the runs' outcomes, for the closing summary. */
  private static final java.util.Map<String, Long> INJECTED = new java.util.concurrent.ConcurrentSkipListMap<>();
  private static final List<String> OUTCOMES = new java.util.concurrent.CopyOnWriteArrayList<>();
  private static final java.util.concurrent.atomic.AtomicLong MILLIS = new java.util.concurrent.atomic.AtomicLong();

  /** Prints the run's figures; the README's reliability section quotes them. */
  static void report(String run, FaultInjector faults, long millis, String outcome) {
    System.out.printf("FAULTS %s: %s; %s in %.1f s%n", run, faults.summary(), outcome, millis / 1e3);
    for (FaultInjector.Kind k : FaultInjector.Kind.values()) {
      INJECTED.merge(k.name().toLowerCase(java.util.Locale.ROOT), faults.injected(k), Long::sum);
    }
    record(outcome, millis);
  }

  /** A run's outcome ("exact by itself", "... exact after --resume") and wall time, for the summary. */
  static void record(String outcome, long millis) {
    OUTCOMES.add(outcome);
    MILLIS.addAndGet(millis);
  }

  /**
   * A migrate that stopped must name the one documented way on, --resume; that resume (the faults off) must then
   * succeed.
   *
   * @return the outcome, for the figures
   */
  static String exactOrAfterOneResume(CliRunner.Result first, List<String> args) {
    if (first.exitCode() == 0) {
      return "exact by itself";
    }
    assertThat(first.err()).as(first.out() + first.err()).contains("--resume").doesNotContain("\tat ");
    List<String> resume = new ArrayList<>(args);
    resume.add("--resume");
    CliRunner.Result resumed = MigrateSupport.cli(resume);
    assertThat(resumed.exitCode()).as(resumed.out() + resumed.err()).isZero();
    return "stopped (exit " + first.exitCode() + "), exact after --resume";
  }

  /** The figures of the whole schedule: runs, runs exact, faults by kind, the seed. */
  @org.junit.jupiter.api.AfterAll
  static void summary() {
    long byThemselves = OUTCOMES.stream().filter(o -> o.startsWith("exact by itself")
        || o.startsWith("equal by itself")).count();
    long afterResume = OUTCOMES.stream().filter(o -> o.contains("exact after")).count();
    System.out.printf("FAULTS summary: seed %d (rate %.2f, gap %d ms); %d run(s), %d exact by themselves, %d exact "
        + "after the one documented way on, %d not exact; faults by kind %s; %.1f s of runs%n", SEED, RATE, GAP,
        OUTCOMES.size(), byThemselves, afterResume, OUTCOMES.size() - byThemselves - afterResume, INJECTED,
        MILLIS.get() / 1e3);
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class Load {

    @Test
    void aLoadUnderCommitAndReadFaultsEndsExact(PgTestDatabase pg, SpannerTestDatabase spanner, @TempDir Path dir)
        throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      FaultInjector faults = new FaultInjector(SEED, RATE, GAP);
      long started = System.currentTimeMillis();
      CliRunner.Result first;
      try (AutoCloseable injected = SpannerConnector.intercept(faults)) {
        first = MigrateSupport.cli(migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--workers",
            "2"));
      }
      String outcome = exactOrAfterOneResume(first, migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(),
          run, "--workers", "2"));
      report("in-process load, schema phases and verify", faults, System.currentTimeMillis() - started, outcome);
      assertThat(faults.injectedTotal()).as("the schedule injected faults").isGreaterThanOrEqualTo(3);
      assertThat(first.out() + first.err()).doesNotContain("Exception");
      for (String table : List.of("customers", "orders", "order_lines")) {
        assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
            .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
      }
      List<String> verifyArgs = List.of("verify", "--plan", plan.toString(), "--source", pg.jdbcUrl(), "--target",
          spanner.path(), "--emulator", spanner.emulatorHost());
      // verify on its own under the schedule (its reads cut mid-stream): equal, or a clear stop, never a false
      // difference.
      FaultInjector verifyFaults = new FaultInjector(SEED + 3, RATE, GAP);
      long verifyStarted = System.currentTimeMillis();
      CliRunner.Result underFaults;
      try (AutoCloseable injected = SpannerConnector.intercept(verifyFaults)) {
        underFaults = MigrateSupport.cli(verifyArgs);
      }
      String verifyOutcome = underFaults.exitCode() == 0 ? "equal by itself" : "stopped (exit "
          + underFaults.exitCode() + ")";
      long verifyMillis = System.currentTimeMillis() - verifyStarted;
      report("verify", verifyFaults, verifyMillis, verifyOutcome);
      assertThat(verifyFaults.injected(FaultInjector.Kind.READ_CUT)).as("reads were cut").isPositive();
      assertThat(underFaults.out() + underFaults.err()).as(underFaults.out() + underFaults.err())
          .doesNotContain("\tat ");
      assertThat(underFaults.exitCode()).as(underFaults.out() + underFaults.err())
          .isNotEqualTo(ExitCode.VERIFY_MISMATCH.exitCode());
      // An independent verify, with no fault, compares every value; its time against the one under faults is the
      // time the faults cost verify.
      long cleanStarted = System.currentTimeMillis();
      CliRunner.Result verify = MigrateSupport.cli(verifyArgs);
      long clean = System.currentTimeMillis() - cleanStarted;
      assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
      System.out.printf("FAULTS verify time lost to faults: %.1f s (%.1f s without faults)%n",
          (verifyMillis - clean) / 1e3, clean / 1e3);
    }
  }

  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class SchemaPhases {

    /**
     * The schema phases (tables before the load; indexes and foreign keys after it) under schema-change faults: a
     * request refused with UNAVAILABLE, or applied with its reply lost. The run ends exact by itself, or stops with
     * a clear message and ends exact after the one --resume.
     */
    @Test
    void tablesIndexesAndForeignKeysUnderSchemaChangeFaultsEndExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute("CREATE TABLE parents (id bigint PRIMARY KEY, name text NOT NULL UNIQUE)",
          "INSERT INTO parents SELECT g, 'p' || g FROM generate_series(1, 200) g",
          "CREATE TABLE children (id bigint PRIMARY KEY, parent_id bigint NOT NULL REFERENCES parents, note text)",
          "CREATE INDEX children_parent ON children (parent_id)",
          "INSERT INTO children SELECT g, 1 + g % 200, 'n' || g FROM generate_series(1, 600) g", "ANALYZE");
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      FaultInjector faults = new FaultInjector(SEED + 2, 0.7, 0).onlySchemaChanges();
      List<String> args = migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run);
      long started = System.currentTimeMillis();
      CliRunner.Result first;
      try (AutoCloseable injected = SpannerConnector.intercept(faults)) {
        first = MigrateSupport.cli(args);
      }
      String outcome = exactOrAfterOneResume(first, args);
      report("schema phases", faults, System.currentTimeMillis() - started, outcome);
      assertThat(faults.injected(FaultInjector.Kind.DDL_UNAVAILABLE)
          + faults.injected(FaultInjector.Kind.DDL_APPLIED_REPLY_LOST)).as("schema changes were hit").isPositive();
      for (String table : List.of("parents", "children")) {
        assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
            .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
      }
      // The index and the foreign key exist once each, and the foreign key is enforced.
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = "
          + "'children' AND INDEX_TYPE = 'INDEX' AND NOT SPANNER_IS_MANAGED")).isEqualTo(1);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE "
          + "CONSTRAINT_TYPE = 'FOREIGN KEY' AND TABLE_NAME = 'children'")).isEqualTo(1);
      CliRunner.Result verify = MigrateSupport.cli(List.of("verify", "--plan", plan.toString(), "--source",
          pg.jdbcUrl(), "--target", spanner.path(), "--emulator", spanner.emulatorHost()));
      assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class Live {

    @Test
    void streamingAndCutoverUnderCommitAndReadFaultsEndExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      FaultInjector faults = new FaultInjector(SEED + 1, RATE, GAP);
      long started = System.currentTimeMillis();
      String outcome = "exact by itself";
      try (AutoCloseable injected = SpannerConnector.intercept(faults)) {
        List<String> args = migrateArgs(plan, pg, spanner.path(), spanner.emulatorHost(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1");
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
        LiveMigrateIT.awaitStreaming(run, migrate);
        // A workload of small and large transactions, updates that move keys, deletes and re-inserts.
        for (int round = 0; round < 20; round++) {
          pg.execute("UPDATE orders SET total = total + 1, note = 'r" + round + "' WHERE id % 20 = " + round,
              "INSERT INTO customers (name, email) VALUES ('new" + round + "', 'new" + round + "@example.com')",
              "DELETE FROM order_lines WHERE order_id = " + (100 + round) + " AND line = 0",
              "INSERT INTO order_lines VALUES (" + (100 + round) + ", 7, 1)",
              "UPDATE order_lines SET line = line + 100 WHERE order_id = " + (200 + round),
              "UPDATE customers SET name = 'renamed' WHERE id = " + (500 + round));
          Thread.sleep(100);
        }
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        if (cutover.exitCode() != 0) {
          // A stop must say how to go on; the documented way is to resume streaming, then cut over again.
          assertThat(cutover.out() + cutover.err() + migrated.out() + migrated.err()).as(cutover.err()
              + migrated.err()).contains("--resume").doesNotContain("\tat ");
          faults.enabled(false);
          outcome = "stopped (cutover exit " + cutover.exitCode() + ", migrate exit " + migrated.exitCode()
              + "), exact after --resume";
          List<String> resume = new ArrayList<>(args);
          resume.add("--resume");
          CompletableFuture<CliRunner.Result> again = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(resume));
          LiveMigrateIT.awaitStreaming(run, again);
          CliRunner.Result second = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
          again.get(5, TimeUnit.MINUTES);
          assertThat(second.exitCode()).as(second.out() + second.err()).isZero();
        } else {
          assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
        }
      }
      report("live streaming and cutover", faults, System.currentTimeMillis() - started, outcome);
      assertThat(faults.injectedTotal()).as("the schedule injected faults").isGreaterThan(5);
      for (String table : List.of("customers", "orders", "order_lines")) {
        assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
            .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
      }
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM order_lines WHERE line >= 100"))
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM order_lines WHERE line >= 100"));

      // The reverse stream (fallback) under the schedule: the application writes on Spanner, fallback brings its
      // writes back to the source while its change-stream reads are cut, and cutover --back verifies both sides.
      FaultInjector back = new FaultInjector(SEED + 4, RATE, GAP);
      long backStarted = System.currentTimeMillis();
      String backOutcome = "exact by itself";
      try (AutoCloseable injected = SpannerConnector.intercept(back)) {
        CompletableFuture<CliRunner.Result> follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            List.of("fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
        com.google.cloud.spanner.DatabaseClient db = spanner.client();
        for (int round = 0; round < 10; round++) {
          db.writeAtLeastOnce(List.of(
              com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id").to(900_000L + round)
                  .set("name").to("app" + round).set("email").to("app" + round + "@example.com").build(),
              com.google.cloud.spanner.Mutation.newUpdateBuilder("orders").set("id").to(1000L + round)
                  .set("total").to(new java.math.BigDecimal("99.0" + round)).build(),
              com.google.cloud.spanner.Mutation.delete("order_lines", com.google.cloud.spanner.Key.of(
                  3000L + round, 0L))));
          Thread.sleep(200);
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // a hang guard
        while (pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id = 900009") == 0) {
          if (follower.isDone()) {
            CliRunner.Result r = follower.get();
            // A stop must name the way on (fallback again); it is taken once, without faults.
            assertThat(r.out() + r.err()).as(r.out() + r.err()).contains("fallback again").doesNotContain("\tat ");
            back.enabled(false);
            backOutcome = "stopped (exit " + r.exitCode() + "), exact after fallback again";
            follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(List.of("fallback", "--run-dir",
                run.toString(), "--progress-interval", "1")));
          }
          assertThat(System.nanoTime()).as("fallback brings the application's writes back").isLessThan(deadline);
          Thread.sleep(100);
        }
        CliRunner.Result switched = MigrateSupport.cli(List.of("cutover", "--back", "--run-dir", run.toString()));
        CliRunner.Result followed = follower.get(3, TimeUnit.MINUTES);
        assertThat(switched.exitCode()).as(switched.out() + switched.err() + followed.out() + followed.err())
            .isZero();
        assertThat(switched.out()).contains("verified: all match");
      }
      report("fallback (the reverse stream) and cutover --back", back, System.currentTimeMillis() - backStarted,
          backOutcome);
      assertThat(back.injected(FaultInjector.Kind.READ_CUT)).as("change-stream reads were cut").isPositive();
      for (String table : List.of("customers", "orders", "order_lines")) {
        assertThat(pgLong(pg, "SELECT COUNT(*) FROM " + table)).as(table)
            .isEqualTo(spannerLong(spanner, "SELECT COUNT(*) FROM " + table));
      }
      assertThat(pg.queryValue("SELECT total::text FROM orders WHERE id = 1009")).isEqualTo("99.09");
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class SourceCut {

    /**
     * Every connection to the source cut (a network failure, a restarted pooler) several times while the stream runs
     * and the application writes, once in the middle of a large transaction: migrate reconnects by itself from the
     * position Spanner holds (replaying and skipping as --resume does), logs each reconnect, and the cutover is exact
     * without any --resume.
     */
    @Test
    void theSourceConnectionsCutSeveralTimesWhileStreamingReconnectAndTheCutoverIsExact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      int cuts = 4;
      try (TcpFaultProxy proxy = proxyTo(pg)) {
        PgTestDatabase viaProxy = through(pg, proxy);
        List<String> args = migrateArgs(plan, viaProxy, spanner.path(), spanner.emulatorHost(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1");
        long started = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
        LiveMigrateIT.awaitStreaming(run, migrate);
        long connectionsCut = 0;
        int stalls = 0;
        long lastWalsender = 0;
        for (int cut = 0; cut < cuts; cut++) {
          for (int round = 0; round < 5; round++) {
            String tag = cut + "_" + round;
            pg.execute("UPDATE orders SET total = total + 1, note = 'c" + tag + "' WHERE id % 50 = " + (cut * 5
                + round), "INSERT INTO customers (name, email) VALUES ('cut" + tag + "', 'cut" + tag
                + "@example.com')", "UPDATE order_lines SET line = line + 1000 WHERE order_id = " + (300 + cut * 5
                + round));
          }
          if (cut % 2 == 1) {
            // A stall (every byte both ways held) while the large transaction below streams: survived as is.
            proxy.stall(STALL_MILLIS);
            stalls++;
          }
          // A larger transaction (a quarter of the orders) is being streamed when the connections are cut.
          pg.execute("UPDATE orders SET total = total + 0.01 WHERE id % 4 = " + cut);
          lastWalsender = awaitSlotStreamed(pg, migrate, lastWalsender);
          int open = proxy.openConnections();
          // The walsender streams through the proxy, so the cut breaks at least the replication connection.
          assertThat(open).as("connections open through the proxy at cut " + cut).isPositive();
          connectionsCut += open;
          proxy.cutAll();
        }
        // The last cut is survived before the cutover too: a new walsender streams the slot.
        awaitSlotStreamed(pg, migrate, lastWalsender);
        // Writes after the last cut must arrive through the reconnected stream.
        pg.execute("DELETE FROM order_lines WHERE order_id = 42", "UPDATE customers SET name = 'late' WHERE id = 7");
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
        assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
        long reconnects = migrated.out().lines().filter(l -> l.contains("live: the change stream from the source "
            + "broke")).count();
        // Each cut broke the stream (a new walsender streamed the run's slot after it): each is a printed reconnect.
        assertThat(reconnects).as(migrated.out()).isGreaterThanOrEqualTo(cuts);
        assertThat(migrated.out() + migrated.err()).doesNotContain("\tat ").doesNotContain("--resume --plan");
        record("exact by itself (source cuts)", System.currentTimeMillis() - started);
        System.out.printf("FAULTS source connections cut and stalled while streaming: %d cuts (%d connections), "
            + "%d stalls of %.1f s, %d reconnects; exact at cutover without --resume in %.1f s%n", cuts,
            connectionsCut, stalls, STALL_MILLIS / 1e3, reconnects, (System.currentTimeMillis() - started) / 1e3);
      }
      assertExact(pg, spanner);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE name = 'late'")).isEqualTo(1);
    }

  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class SourceGone {

    /**
     * The source stays unreachable past the reconnect bound (about a minute): migrate stops with the documented exit
     * and way on, having lost nothing. The --resume then streams the rest until the source refuses a reconnect, which
     * stops it at once; the next --resume streams on, and cutover is exact.
     */
    @Test
    void theSourceGonePastTheReconnectBoundOrRefusingStopsClearlyAndResumeEndsExact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      try (TcpFaultProxy proxy = proxyTo(pg)) {
        PgTestDatabase viaProxy = through(pg, proxy);
        List<String> args = migrateArgs(plan, viaProxy, spanner.path(), spanner.emulatorHost(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1");
        long goneStarted = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
        LiveMigrateIT.awaitStreaming(run, migrate);
        pg.execute("UPDATE orders SET total = total + 1 WHERE id % 10 = 3",
            "INSERT INTO customers (name, email) VALUES ('gone', 'gone@example.com')");
        long down = System.nanoTime();
        proxy.down();
        // Writes go on while nothing streams; the slot keeps them.
        pg.execute("DELETE FROM order_lines WHERE order_id = 42", "UPDATE customers SET name = 'late' WHERE id = 7");
        CliRunner.Result stopped = migrate.get(4, TimeUnit.MINUTES);
        System.out.printf("FAULTS source unreachable while streaming: stopped %.1f s after the source went away "
            + "(exit %d)%n", (System.nanoTime() - down) / 1e9, stopped.exitCode());
        assertThat(stopped.exitCode()).as(stopped.out() + stopped.err())
            .isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
        assertThat(stopped.out()).contains("try 7 of 7");
        assertThat(stopped.err()).contains("reconnecting 7 times").contains("--resume").doesNotContain("\tat ");

        proxy.up();
        List<String> resume = new ArrayList<>(args);
        resume.add("--resume");
        CompletableFuture<CliRunner.Result> refusing = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(resume));
        // The run directory says "streaming" from the first run on: the resumed run streams once a walsender does.
        awaitSlotStreamed(pg, refusing, 0);

        // A source that answers the reconnect with a refusal (here: the database takes no connections) is not a lost
        // one: the run stops at the first refusal, saying what the source said and how to go on, instead of retrying
        // for the budget's minute (as fallback does: one rule, ReconnectBudget.judge).
        String admin = pg.jdbcUrl().replace("/" + pg.name(), "/postgres");
        CliRunner.Result refused;
        long refusedAt;
        // Written before the database closes (no one can connect then, this test included): the slot keeps it.
        pg.execute("INSERT INTO customers (name, email) VALUES ('refused', 'refused@example.com')");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(admin);
            java.sql.Statement st = c.createStatement()) {
          st.execute("ALTER DATABASE \"" + pg.name() + "\" ALLOW_CONNECTIONS false");
          try {
            refusedAt = System.nanoTime();
            proxy.cutAll();
            refused = refusing.get(3, TimeUnit.MINUTES);
          } finally {
            st.execute("ALTER DATABASE \"" + pg.name() + "\" ALLOW_CONNECTIONS true");
          }
        }
        System.out.printf("FAULTS source refusing the reconnect while streaming: stopped %.1f s after the cut "
            + "(exit %d)%n", (System.nanoTime() - refusedAt) / 1e9, refused.exitCode());
        assertThat(refused.exitCode()).as(refused.out() + refused.err())
            .isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
        assertThat(refused.err()).as(refused.out() + refused.err()).contains("reconnecting was refused")
            .contains("not currently accepting connections").contains("--resume").doesNotContain("\tat ");
        assertThat(refused.out().lines().filter(l -> l.contains("reconnecting in")).count())
            .as("one reconnect, refused, and no retry of it: " + refused.out()).isEqualTo(1);

        CompletableFuture<CliRunner.Result> again = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(resume));
        LiveMigrateIT.awaitStreaming(run, again);
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result resumed = again.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + resumed.out() + resumed.err()).isZero();
        record("stopped (source gone), exact after --resume", System.currentTimeMillis() - goneStarted);
      }
      assertExact(pg, spanner);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE name = 'late'")).isEqualTo(1);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE name = 'refused'")).isEqualTo(1);
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class StuckLink {

    /**
     * Every connection to the source stuck, not cut: the path holds every byte both ways and resets nothing (a
     * black-holed network, a proxy that hangs), so no read or write fails by itself. The run notices within about a
     * minute (its reads of the source are bounded: the progress report's question times out), reconnects, and its
     * new connections are bounded too (the login timeout); once the path lets bytes through again, the run goes on
     * by itself, and the cutover is exact.
     */
    @Test
    void aStuckSourceLinkIsNoticedAndTheRunGoesOnOnceItClears(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      try (TcpFaultProxy proxy = proxyTo(pg)) {
        PgTestDatabase viaProxy = through(pg, proxy);
        List<String> args = migrateArgs(plan, viaProxy, spanner.path(), spanner.emulatorHost(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1");
        long started = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
        LiveMigrateIT.awaitStreaming(run, migrate);
        pg.execute("UPDATE orders SET total = total + 1 WHERE id % 10 = 3",
            "INSERT INTO customers (name, email) VALUES ('before', 'before@example.com')");
        long held = System.nanoTime();
        proxy.hold();
        // Writes go on while the link is stuck; the slot keeps them.
        pg.execute("DELETE FROM order_lines WHERE order_id = 42", "UPDATE customers SET name = 'late' WHERE id = 7");
        // Longer than the run takes to notice (its reads of the source wait at most 60 s); then the path clears, as
        // a network or a proxy that recovers does.
        Thread.sleep(HOLD_MILLIS);
        proxy.release();
        long heldFor = System.nanoTime() - held;
        pg.execute("UPDATE customers SET name = 'after' WHERE id = 8");
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
        assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
        assertThat(migrated.out()).as(migrated.out())
            .contains("live: the change stream from the source broke (the source stopped answering");
        assertThat(migrated.out() + migrated.err()).doesNotContain("\tat ");
        record("exact by itself (source link stuck, then clear)", System.currentTimeMillis() - started);
        System.out.printf("FAULTS source link stuck (every byte held, nothing reset) for %.1f s while streaming: "
            + "noticed, reconnected, exact at cutover without --resume%n", heldFor / 1e9);
      }
      assertExact(pg, spanner);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE name IN ('late', 'after')"))
          .isEqualTo(2);
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class SlowLinks {

    /**
     * Both links slow, not cut: every chunk to and from the source and the emulator waits a few milliseconds and each
     * direction carries at most a few MB/s, from the first check to the cutover. The load, the schema phases, the
     * stream with its verification at consistent cuts and the cutover must all end exact by themselves: no bound
     * meant for a dead service may fire on a slow one.
     */
    @Test
    void aLiveMigrationOverSlowLinksToBothDatabasesEndsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      String emulator = spanner.emulatorHost();
      int colon = emulator.lastIndexOf(':');
      try (TcpFaultProxy source = proxyTo(pg);
          TcpFaultProxy target = TcpFaultProxy.start(emulator.substring(0, colon),
              Integer.parseInt(emulator.substring(colon + 1)))) {
        source.slow(5, 2L << 20);
        target.slow(5, 4L << 20);
        PgTestDatabase viaProxy = through(pg, source);
        List<String> args = migrateArgs(plan, viaProxy, spanner.path(), "127.0.0.1:" + target.port(), run, "--live",
            "--progress-interval", "1", "--verify-interval", "1");
        long started = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
        LiveMigrateIT.awaitStreaming(run, migrate);
        long loaded = System.currentTimeMillis();
        for (int round = 0; round < 10; round++) {
          pg.execute("UPDATE orders SET total = total + 1, note = 's" + round + "' WHERE id % 10 = " + round,
              "INSERT INTO customers (name, email) VALUES ('slow" + round + "', 'slow" + round + "@example.com')",
              "DELETE FROM order_lines WHERE order_id = " + (100 + round) + " AND line = 0",
              "UPDATE order_lines SET line = line + 100 WHERE order_id = " + (200 + round));
          Thread.sleep(200);
        }
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();
        assertThat(migrated.exitCode()).as(migrated.out() + migrated.err()).isZero();
        assertThat(migrated.out() + migrated.err() + cutover.out() + cutover.err()).doesNotContain("\tat ")
            .doesNotContain("reconnecting");
        assertThat(source.slowedChunks()).as("the source link was slow").isPositive();
        assertThat(target.slowedChunks()).as("the target link was slow").isPositive();
        record("exact by itself (slow links)", System.currentTimeMillis() - started);
        System.out.printf("FAULTS slow links (5 ms a chunk; source 2 MB/s, target 4 MB/s each way): load and schema "
            + "phases %.1f s, then 10 rounds of writes and cutover %.1f s, exact; %d and %d chunks slowed%n",
            (loaded - started) / 1e3, (System.currentTimeMillis() - loaded) / 1e3, source.slowedChunks(),
            target.slowedChunks());
      }
      assertExact(pg, spanner);
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM customers WHERE name LIKE 'slow%'")).isEqualTo(10);
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class FallbackSourceCut {

    /**
     * The way back with its source connection cut several times while it applies (one cut right after a large
     * Spanner transaction, which is then being written): fallback reconnects by itself and continues from the
     * position the source holds (the batch in hand is there if its commit reached the source, else it is applied
     * again), logs each reconnect. Then the source refuses the new connection (the database takes none): fallback
     * stops at once, without retrying, and runs again once allowed. Then the source is gone for good: it stops after
     * its reconnect budget
     * (about a minute) with exit 3, saying what the source holds and to run fallback again; run again, it brings the
     * rest, and cutover --back verifies both sides equal.
     */
    @Test
    void theSourceConnectionsCutWhileFallbackAppliesReconnectAndCutoverBackIsExact(PgTestDatabase pg,
        SpannerTestDatabase spanner, @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      int cuts = 3;
      try (TcpFaultProxy proxy = proxyTo(pg)) {
        // The run's source is the proxy: fallback, reading the run directory, writes through it too.
        PgTestDatabase viaProxy = through(pg, proxy);
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            migrateArgs(plan, viaProxy, spanner.path(), spanner.emulatorHost(), run, "--live",
                "--progress-interval", "1")));
        LiveMigrateIT.awaitStreaming(run, migrate);
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();

        long started = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            List.of("fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
        com.google.cloud.spanner.DatabaseClient db = spanner.client();
        long connectionsCut = 0;
        long id = 900_000;
        for (int cut = 0; cut <= cuts; cut++) {
          for (int round = 0; round < 5; round++) {
            id++;
            db.writeAtLeastOnce(List.of(
                com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id").to(id)
                    .set("name").to("app" + id).set("email").to("app" + id + "@example.com").build(),
                com.google.cloud.spanner.Mutation.newUpdateBuilder("orders").set("id").to(1000L + id % 1000)
                    .set("total").to(new java.math.BigDecimal(id % 1000 + ".25")).build(),
                com.google.cloud.spanner.Mutation.delete("order_lines", com.google.cloud.spanner.Key.of(
                    3000L + id % 1000, 0L))));
          }
          awaitOnSource(pg, id, follower);
          if (cut == cuts) {
            break; // the writes after the last cut came back through a reconnected connection
          }
          // A larger Spanner transaction (a sixth of the orders), being written back when the connections are cut.
          int part = cut;
          db.readWriteTransaction().run(tx -> tx.executeUpdate(com.google.cloud.spanner.Statement.of(
              "UPDATE orders SET note = 'spanner " + part + "' WHERE MOD(id, 6) = " + part)));
          Thread.sleep(300 * cut); // the first cut during that batch or just before it, the later ones after it
          int open = proxy.openConnections();
          assertThat(open).as("fallback's connection through the proxy at cut " + cut).isPositive();
          connectionsCut += open;
          proxy.cutAll();
        }
        long cutsTook = System.currentTimeMillis() - started;

        // A source that refuses the new connection (here: the database takes no connections) is not a lost one:
        // fallback stops at the first refusal, saying so and how to go on, instead of retrying for a minute.
        String admin = pg.jdbcUrl().replace("/" + pg.name(), "/postgres");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(admin);
            java.sql.Statement st = c.createStatement()) {
          st.execute("ALTER DATABASE \"" + pg.name() + "\" ALLOW_CONNECTIONS false");
        }
        CliRunner.Result refused;
        try {
          proxy.cutAll();
          db.writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id")
              .to(985_000L).set("name").to("while refused").set("email").to("refused@example.com").build()));
          refused = follower.get(3, TimeUnit.MINUTES);
        } finally {
          try (java.sql.Connection c = java.sql.DriverManager.getConnection(admin);
              java.sql.Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE \"" + pg.name() + "\" ALLOW_CONNECTIONS true");
          }
        }
        assertThat(refused.exitCode()).as(refused.out() + refused.err())
            .isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
        assertThat(refused.err()).contains("reconnecting was refused").contains("not currently accepting connections")
            .contains("run fallback again").doesNotContain("\tat ");
        assertThat(refused.out()).as("no retry of a refusal").doesNotContain("could not reconnect to the source");
        long reconnects = refused.out().lines().filter(l -> l.startsWith("fallback: reconnected to the source"))
            .count();
        assertThat(reconnects).as(refused.out()).isGreaterThanOrEqualTo(cuts);
        // A server process an earlier fallback's connection left behind (a cut network can leave one for as long as
        // TCP keepalive takes), idle inside a transaction that holds the position row: the next fallback ends it
        // (it carries the run's application_name), instead of waiting on its lock and stopping after lock_timeout.
        String tag = "pg2spanner fallback " + dev.pg2spanner.fallback.FallbackState.read(run).orElseThrow()
            .startTimestamp();
        java.sql.Connection left = java.sql.DriverManager.getConnection(pg.jdbcUrl());
        try (java.sql.Statement st = left.createStatement()) {
          st.execute("SET application_name = '" + tag + "'");
          left.setAutoCommit(false);
          st.executeQuery("SELECT * FROM " + dev.pg2spanner.fallback.FallbackPosition.TABLE + " FOR UPDATE").close();
        }
        follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            List.of("fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
        awaitOnSource(pg, 985_000L, follower);
        assertThat(left.isValid(2)).as("the left-behind server process was ended").isFalse();
        left.close();

        // Then the source gone for good (every connection reset, new ones refused) while Spanner takes writes:
        // fallback stops after its reconnect budget, saying what the source holds and to run fallback again.
        proxy.down();
        long down = System.nanoTime();
        db.writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id")
            .to(990_000L).set("name").to("while down").set("email").to("down@example.com").build()));
        CliRunner.Result stopped = follower.get(3, TimeUnit.MINUTES);
        System.out.printf("FAULTS fallback's source unreachable: stopped %.1f s after it went away (exit %d)%n",
            (System.nanoTime() - down) / 1e9, stopped.exitCode());
        assertThat(stopped.exitCode()).as(stopped.out() + stopped.err())
            .isEqualTo(ExitCode.SOURCE_CONNECTION.exitCode());
        assertThat(stopped.out()).contains("try 7 of 7");
        assertThat(stopped.err()).contains("reconnecting 7 times").contains("Nothing is lost")
            .contains("run fallback again").doesNotContain("\tat ");
        // The break and each failed reconnect is one try of the budget, each printed: seven in all.
        assertThat(stopped.out().lines().filter(l -> l.startsWith("fallback: the connection to the source broke")
            || l.startsWith("fallback: could not reconnect to the source")).count()).as(stopped.out()).isEqualTo(7);
        assertThat(pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id = 990000")).isZero();

        proxy.up();
        CompletableFuture<CliRunner.Result> again = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            List.of("fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
        awaitOnSource(pg, 990_000L, again);
        CliRunner.Result back = MigrateSupport.cli(List.of("cutover", "--back", "--run-dir", run.toString()));
        CliRunner.Result followed = again.get(3, TimeUnit.MINUTES);
        assertThat(back.exitCode()).as(back.out() + back.err() + followed.out() + followed.err()).isZero();
        assertThat(back.out()).contains("verified: all match");
        assertThat(followed.exitCode()).as(followed.out() + followed.err()).isZero();
        record("exact by itself (fallback's source cuts)", cutsTook);
        record("stopped (fallback's source refused, then gone), exact after fallback again",
            System.currentTimeMillis() - started - cutsTook);
        System.out.printf("FAULTS fallback's source connections cut while it applies: %d cuts (%d connections), %d "
            + "reconnects in %.1f s; then refused (stopped at once) and gone past the budget, fallback run again each "
            + "time; cutover --back verified all equal%n", cuts, connectionsCut, reconnects, cutsTook / 1e3);
      }
      assertExact(pg, spanner);
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id > 900000")).isEqualTo(5L * (cuts + 1) + 2);
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM orders WHERE note LIKE 'spanner %'"))
          .isEqualTo(spannerLong(spanner, "SELECT COUNT(*) FROM orders WHERE note LIKE 'spanner %'"));
    }

    /** Waits until fallback has brought customer {@code id} to the source (read there directly, not through the proxy). */
    static void awaitOnSource(PgTestDatabase pg, long id, CompletableFuture<CliRunner.Result> follower)
        throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // a hang guard
      while (pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id = " + id) == 0) {
        if (follower.isDone()) {
          CliRunner.Result r = follower.get();
          throw new AssertionError("fallback stopped (exit " + r.exitCode() + ") instead of reconnecting:\n" + r.out()
              + r.err());
        }
        assertThat(System.nanoTime()).as("fallback brings customer " + id + " back").isLessThan(deadline);
        Thread.sleep(100);
      }
    }
  }

  @Nested
  @WithLogicalPostgres
  @WithSpannerEmulator
  class FallbackStuckLink {

    /**
     * The link fallback writes through stuck, not cut (every byte held, nothing reset) while Spanner takes writes:
     * fallback's read waits out its bound (here the URL's socketTimeout of 15 s, in place of the default 11
     * minutes), reconnects once the link clears, ends the server process the stuck connection left (which may hold
     * the batch's transaction), and brings every write; cutover --back verifies both sides equal.
     */
    @Test
    void aStuckLinkUnderFallbackIsNoticedAndCutoverBackIsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      pg.execute(SCHEMA);
      Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
      Path run = dir.resolve("run");
      try (TcpFaultProxy proxy = proxyTo(pg)) {
        PgTestDatabase viaProxy = new PgTestDatabase(pg.name(), through(pg, proxy).jdbcUrl() + "&socketTimeout=15");
        CompletableFuture<CliRunner.Result> migrate = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            migrateArgs(plan, viaProxy, spanner.path(), spanner.emulatorHost(), run, "--live",
                "--progress-interval", "1")));
        LiveMigrateIT.awaitStreaming(run, migrate);
        CliRunner.Result cutover = MigrateSupport.cli(List.of("cutover", "--run-dir", run.toString()));
        CliRunner.Result migrated = migrate.get(5, TimeUnit.MINUTES);
        assertThat(cutover.exitCode()).as(cutover.out() + cutover.err() + migrated.out() + migrated.err()).isZero();

        long started = System.currentTimeMillis();
        CompletableFuture<CliRunner.Result> follower = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(
            List.of("fallback", "--run-dir", run.toString(), "--progress-interval", "1")));
        com.google.cloud.spanner.DatabaseClient db = spanner.client();
        db.writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id")
            .to(995_000L).set("name").to("before").set("email").to("before@example.com").build()));
        FallbackSourceCut.awaitOnSource(pg, 995_000L, follower);

        long held = System.nanoTime();
        proxy.hold();
        db.writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id")
            .to(995_001L).set("name").to("while stuck").set("email").to("stuck@example.com").build()));
        Thread.sleep(25_000); // past the 15 s bound; the new connections' logins are held too
        proxy.release();
        FallbackSourceCut.awaitOnSource(pg, 995_001L, follower);
        long clearedAfter = System.nanoTime() - held;
        db.writeAtLeastOnce(List.of(com.google.cloud.spanner.Mutation.newInsertBuilder("customers").set("id")
            .to(995_002L).set("name").to("after").set("email").to("after@example.com").build()));
        FallbackSourceCut.awaitOnSource(pg, 995_002L, follower);

        CliRunner.Result back = MigrateSupport.cli(List.of("cutover", "--back", "--run-dir", run.toString()));
        CliRunner.Result followed = follower.get(3, TimeUnit.MINUTES);
        assertThat(back.exitCode()).as(back.out() + back.err() + followed.out() + followed.err()).isZero();
        assertThat(back.out()).contains("verified: all match");
        assertThat(followed.exitCode()).as(followed.out() + followed.err()).isZero();
        assertThat(followed.out()).as(followed.out()).contains("fallback: the connection to the source broke (")
            .contains("fallback: reconnected to the source");
        assertThat(followed.out() + followed.err()).doesNotContain("\tat ");
        record("exact by itself (fallback's source link stuck, then clear)", System.currentTimeMillis() - started);
        System.out.printf("FAULTS fallback's source link stuck (every byte held) for 25 s: noticed at the 15 s bound, "
            + "reconnected, the write made while stuck on the source %.1f s after the link stuck; cutover --back "
            + "verified all equal%n", clearedAfter / 1e9);
      }
      assertExact(pg, spanner);
      assertThat(pgLong(pg, "SELECT COUNT(*) FROM customers WHERE id >= 995000")).isEqualTo(3);
    }
  }

  /** A fault proxy in front of {@code pg}'s server. */
  private static TcpFaultProxy proxyTo(PgTestDatabase pg) throws java.io.IOException {
    java.net.URI uri = java.net.URI.create(pg.jdbcUrl().substring("jdbc:".length()));
    return TcpFaultProxy.start(uri.getHost(), uri.getPort());
  }

  /** {@code pg} reached through {@code proxy}: what pg2spanner is given as its source. */
  private static PgTestDatabase through(PgTestDatabase pg, TcpFaultProxy proxy) {
    java.net.URI uri = java.net.URI.create(pg.jdbcUrl().substring("jdbc:".length()));
    return new PgTestDatabase(pg.name(), pg.jdbcUrl().replace(":" + uri.getPort() + "/", ":" + proxy.port() + "/"));
  }

  /**
   * Waits until a walsender other than {@code lastPid} streams the run's slot (the last cut's reconnect is done: the
   * cut walsender may still show as active for a moment) and returns its process id.
   */
  private static long awaitSlotStreamed(PgTestDatabase pg, CompletableFuture<CliRunner.Result> migrate, long lastPid)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // a hang guard
    while (true) {
      // The run's own slot: the continuous verifier's consistent cuts make short-lived pg2spanner_cut_ slots, and
      // waiting for one of those (then cutting its connection, not the stream's) was the cut that showed no break.
      long pid = pgLong(pg, "SELECT COALESCE(max(active_pid), 0) FROM pg_replication_slots WHERE active "
          + "AND slot_name LIKE 'pg2spanner%' AND slot_name NOT LIKE 'pg2spanner_cut%'");
      if (pid != 0 && pid != lastPid) {
        return pid;
      }
      assertThat(migrate).as("migrate keeps streaming through the cuts").isNotDone();
      assertThat(System.nanoTime()).as("the slot is streamed again").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /**
   * The Beam runners' faults are made on the wire, as a remote worker would meet them, by a TCP proxy between pg2spanner and the emulator that, on a seeded schedule, cuts every open connection
   * (a commit in flight is lost, or applied with its reply lost) or stalls every byte for {@link #STALL_MILLIS}. The
   * schema phases, the job's reads of the target and its commits, and verify all pass through it.
   */
  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class BeamDirectRunner {

    @Test
    void theDirectRunnerUnderConnectionCutsAndStallsEndsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      underWireFaults(pg, spanner, dir, "direct", SEED + 5);
    }
  }

  /** As {@link BeamDirectRunner}, on Flink's embedded cluster. */
  @Nested
  @WithPostgres
  @WithSpannerEmulator
  class BeamFlinkRunner {

    @Test
    void theFlinkRunnerUnderConnectionCutsAndStallsEndsExact(PgTestDatabase pg, SpannerTestDatabase spanner,
        @TempDir Path dir) throws Exception {
      underWireFaults(pg, spanner, dir, "flink", SEED + 6);
    }
  }

  private static void underWireFaults(PgTestDatabase pg, SpannerTestDatabase spanner, Path dir, String runner, long seed)
      throws Exception {
    pg.execute(SCHEMA);
    Path plan = MigrateSupport.plan(pg, dir.resolve("plan"));
    String emulator = spanner.emulatorHost();
    int colon = emulator.lastIndexOf(':');
    java.util.Random schedule = new java.util.Random(seed);
    java.util.concurrent.atomic.AtomicLong cuts = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong stalls = new java.util.concurrent.atomic.AtomicLong();
    long started = System.currentTimeMillis();
    String outcome;
    String againTarget = null;
    try (TcpFaultProxy proxy = TcpFaultProxy.start(emulator.substring(0, colon),
        Integer.parseInt(emulator.substring(colon + 1)))) {
      List<String> args = migrateArgs(plan, pg, spanner.path(), "127.0.0.1:" + proxy.port(), dir.resolve("run"),
          "--runner", runner, "--workers", "2");
      CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> MigrateSupport.cli(args));
      // One fault every 1 to 3 s while the run lasts: a cut of every connection, or (one time in three) a stall.
      while (!run.isDone()) {
        long wait = 1_000 + schedule.nextInt(2_000);
        boolean stall = schedule.nextInt(3) == 0;
        try {
          run.get(wait, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          if (stall) {
            proxy.stall(STALL_MILLIS);
            stalls.incrementAndGet();
          } else {
            proxy.cutAll();
            cuts.incrementAndGet();
          }
        }
        assertThat(System.currentTimeMillis() - started).as("the run under faults ends (no hang)")
            .isLessThan(TimeUnit.MINUTES.toMillis(8));
      }
      CliRunner.Result first = run.get();
      assertThat(first.out() + first.err()).as(first.out() + first.err()).doesNotContain("\tat ");
      // The documented way on runs without faults: the proxy passes everything again. A run that stopped before
      // it changed the target keeps no run directory and says to try again: the same command, not --resume.
      if (first.exitCode() != 0 && first.err().contains("into an empty database")) {
        // A Beam job keeps no checkpoint: the documented way on is a new run into an empty database.
        String instance = spanner.id().getInstanceId().getInstance();
        spanner.admin().createDatabase(instance, "again", List.of()).get(2, TimeUnit.MINUTES);
        againTarget = "projects/" + spanner.id().getInstanceId().getProject() + "/instances/" + instance
            + "/databases/again";
        CliRunner.Result again = MigrateSupport.cli(migrateArgs(plan, pg, againTarget, spanner.emulatorHost(),
            dir.resolve("run-again"), "--runner", runner, "--workers", "2"));
        assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
        outcome = "stopped (exit " + first.exitCode() + "), exact after a new run into an empty database";
      } else if (first.exitCode() != 0 && !first.err().contains("--resume")) {
        assertThat(first.err()).as(first.out() + first.err()).contains("try again");
        CliRunner.Result again = MigrateSupport.cli(args);
        assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
        outcome = "stopped (exit " + first.exitCode() + ") before changing the target, exact after trying again";
      } else {
        outcome = exactOrAfterOneResume(first, args);
      }
    }
    System.out.printf("FAULTS %s runner, seed %d: %d cut(s) of every connection, %d stall(s) of %d ms; %s in %.1f s%n",
        runner, seed, cuts.get(), stalls.get(), STALL_MILLIS, outcome, (System.currentTimeMillis() - started) / 1e3);
    INJECTED.merge("connection_cut", cuts.get(), Long::sum);
    INJECTED.merge("connection_stall", stalls.get(), Long::sum);
    record(outcome, System.currentTimeMillis() - started);
    assertThat(cuts.get() + stalls.get()).as("the schedule injected faults during the run").isGreaterThanOrEqualTo(3);
    if (againTarget == null) {
      assertExact(pg, spanner);
    }
    // Every value, not only the counts: an independent verify without faults.
    CliRunner.Result verify = MigrateSupport.cli(List.of("verify", "--plan", plan.toString(), "--source",
        pg.jdbcUrl(), "--target", againTarget != null ? againTarget : spanner.path(), "--emulator",
        spanner.emulatorHost()));
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
  }

  private static void assertExact(PgTestDatabase pg, SpannerTestDatabase spanner) throws Exception {
    for (String table : List.of("customers", "orders", "order_lines")) {
      assertThat(spannerLong(spanner, "SELECT COUNT(*) FROM " + table)).as(table)
          .isEqualTo(pgLong(pg, "SELECT COUNT(*) FROM " + table));
    }
    // The values too: sums over what the workload changed.
    assertThat(spannerLong(spanner, "SELECT CAST(SUM(total) * 100 AS INT64) FROM orders"))
        .isEqualTo(pgLong(pg, "SELECT (SUM(total) * 100)::bigint FROM orders"));
    assertThat(spannerLong(spanner, "SELECT SUM(line) FROM order_lines"))
        .isEqualTo(pgLong(pg, "SELECT SUM(line) FROM order_lines"));
  }
}
