package dev.pg2spanner.live.stream;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.preflight.LiveReadiness;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConnector;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.postgresql.PGConnection;
import org.postgresql.replication.ReplicationSlotInfo;

/**
 * The source side of a live run: the publication, the logical replication slot whose exported snapshot the load
 * reads, and dropping both. Every name starts with {@value LiveReadiness#NAME_PREFIX}, so {@code check} can find
 * what a run left behind.
 */
public final class ReplicationSetup {

  /** How long slot creation may wait for transactions that were already writing to finish. */
  static final Duration SLOT_WAIT = Duration.ofMinutes(10);

  private ReplicationSetup() {}

  /** A created slot and the load's snapshot, imported from it. */
  public record Created(String consistentPoint, SnapshotSession snapshot) {}

  /** {@code CREATE PUBLICATION} for the planned tables (an inheritance parent with ONLY: its children are tables of their own). */
  public static void createPublication(SourceConnector source, String publication, Plan plan) {
    List<String> items = new ArrayList<>();
    for (TablePlan t : plan.tables()) {
      int dot = t.source().indexOf('.');
      items.add((t.readOnly() ? "ONLY " : "") + PgNames.qualified(t.source().substring(0, dot),
          t.source().substring(dot + 1)));
    }
    String sql = "CREATE PUBLICATION " + PgNames.quote(publication) + " FOR TABLE " + String.join(", ", items)
        + " WITH (publish = 'insert, update, delete, truncate')";
    try (Connection c = source.open(); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_PRIVILEGES, "cannot create the publication " + publication
          + " on the source (" + e.getMessage() + "). Have a table owner run `" + sql + "` and pass --publication "
          + publication + ", or grant this role CREATE on the database and ownership of the tables", e);
    }
  }

  /**
   * Creates the slot and opens the load's snapshot from it.
   *
   * @throws Pg2SpannerException SOURCE_NOT_READY when the slot cannot be created (name taken, no free slot) or its
   *     creation waits on other transactions for longer than {@link #SLOT_WAIT}
   */
  public static Created createSlot(SourceConnector source, String slot, PrintWriter out) {
    return create(source, slot, false, SLOT_WAIT, blockers -> {
      out.println("  creating the replication slot waits for transactions that were writing when it started: "
          + blockers);
      out.flush();
    });
  }

  /**
   * A consistent cut for verification while streaming: a temporary slot exports a snapshot that holds exactly the
   * transactions committed before its consistent point, which is imported here; the slot itself ends with its
   * connection, at once (the imported snapshot lives on in its own transaction).
   *
   * @param wait how long to wait for transactions already writing (the slot waits for them to end)
   * @throws Pg2SpannerException SOURCE_NOT_READY when no slot can be created (none free) or the wait runs out
   */
  public static Created temporaryCut(SourceConnector source, Duration wait) {
    String name = LiveReadiness.NAME_PREFIX + "cut_" + java.util.UUID.randomUUID().toString().replace("-", "")
        .substring(0, 12);
    return create(source, name, true, wait, blockers -> LOG.info("A verification cut waits for {}", blockers));
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReplicationSetup.class);

  private static Created create(SourceConnector source, String slot, boolean temporary, Duration wait,
      java.util.function.Consumer<String> waiting) {
    Connection replication = source.openReplication();
    ExecutorService waiter = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pg2spanner-create-slot");
      t.setDaemon(true);
      return t;
    });
    try {
      LiveStream.applySessionSettings(replication);
      Future<ReplicationSlotInfo> made = waiter.submit(() -> {
        var builder = replication.unwrap(PGConnection.class).getReplicationAPI().createReplicationSlot().logical()
            .withSlotName(slot).withOutputPlugin("pgoutput");
        if (temporary) {
          builder = builder.withTemporaryOption();
        }
        return builder.make();
      });
      ReplicationSlotInfo info = awaitSlot(source, made, wait, waiting);
      // The slot's snapshot lives only until this connection's next command: import it first.
      SnapshotSession snapshot = SnapshotSession.importing(source, info.getSnapshotName());
      return new Created(info.getConsistentPoint().asString(), snapshot);
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, "cannot create the replication slot " + slot
          + " on the source (" + e.getMessage() + "); run `pg2spanner check` for what the source needs", e);
    } finally {
      waiter.shutdownNow();
      try {
        replication.close();
      } catch (SQLException ignored) {
        // the slot persists without this connection
      }
    }
  }

  /** Waits for the slot, saying which transactions hold it up (it waits for every transaction already writing). */
  private static ReplicationSlotInfo awaitSlot(SourceConnector source, Future<ReplicationSlotInfo> made,
      Duration wait, java.util.function.Consumer<String> waiting) throws SQLException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      try {
        return made.get(Math.max(1, Math.min(10_000, (deadline - System.nanoTime()) / 1_000_000)),
            TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        String blockers = writingTransactions(source);
        if (System.nanoTime() > deadline) {
          made.cancel(true);
          throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, "creating the replication slot waited "
              + wait.toSeconds() + " s for transactions that were already writing to finish: "
              + blockers + ". End them (or wait for a quieter moment) and run migrate --live again");
        }
        waiting.accept(blockers);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof SQLException sql) {
          throw sql;
        }
        throw new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        made.cancel(true);
        throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, "interrupted while creating the replication slot",
            e);
      }
    }
  }

  private static String writingTransactions(SourceConnector source) {
    String sql = "SELECT string_agg(format('pid %s (%s, since %s)', pid, coalesce(nullif(application_name, ''), "
        + "usename), date_trunc('second', xact_start)), '; ' ORDER BY xact_start) AS blockers "
        + "FROM pg_catalog.pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()";
    try (Connection c = source.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      String blockers = rs.getString("blockers");
      return blockers == null ? "(none right now)" : blockers;
    } catch (SQLException | RuntimeException e) {
      return "(cannot list them: " + e.getMessage() + ")";
    }
  }

  /**
   * Drops the slot. Its own stream must be closed; a walsender that still holds it (a process killed a moment ago)
   * gets a few seconds to go, then is ended.
   *
   * @return false when the slot did not exist
   */
  public static boolean dropSlot(SourceConnector source, String slot) {
    try (Connection c = source.open()) {
      for (int attempt = 1; ; attempt++) {
        Integer activePid = activePid(c, slot);
        if (activePid == null && !exists(c, slot)) {
          return false;
        }
        if (activePid == null) {
          try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            ps.setString(1, slot);
            ps.execute();
            return true;
          }
        }
        if (attempt == 10) {
          try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, activePid);
            ps.execute();
          }
        }
        Thread.sleep(500);
        if (attempt > 20) {
          throw new Pg2SpannerException(ExitCode.SOURCE_NOT_READY, "the replication slot " + slot + " stays in use "
              + "by process " + activePid + "; end it and drop the slot: `" + LiveReadiness.dropCommand(slot) + "`");
        }
      }
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot drop the replication slot " + slot + " ("
          + e.getMessage() + "); drop it by hand, it holds WAL on the source: `" + LiveReadiness.dropCommand(slot)
          + "`", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "interrupted while dropping the replication slot "
          + slot + "; drop it by hand: `" + LiveReadiness.dropCommand(slot) + "`", e);
    }
  }

  public static void dropPublication(SourceConnector source, String publication) {
    try (Connection c = source.open(); Statement s = c.createStatement()) {
      s.execute("DROP PUBLICATION IF EXISTS " + PgNames.quote(publication));
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot drop the publication " + publication + " ("
          + e.getMessage() + "); drop it by hand: `DROP PUBLICATION " + PgNames.quote(publication) + ";`", e);
    }
  }

  /** What a slot holds back on the source, for messages: "holds 12.3 MB of WAL", or why that is unknown. */
  public static String retained(SourceConnector source, String slot) {
    try (Connection c = source.open(); PreparedStatement ps = c.prepareStatement("SELECT "
        + "pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS retained, confirmed_flush_lsn::text AS "
        + "confirmed FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? "holds " + LiveReadiness.size(rs.getLong("retained")) + " of WAL and keeps every change "
            + "since " + rs.getString("confirmed") + " (where streaming continues)" : "no longer exists";
      }
    } catch (SQLException | RuntimeException e) {
      return "holds an unknown amount of WAL (the source did not answer) and keeps every change not yet applied";
    }
  }

  private static Integer activePid(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT active_pid FROM pg_catalog.pg_replication_slots "
        + "WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        int pid = rs.getInt("active_pid");
        return rs.wasNull() ? null : pid;
      }
    }
  }

  private static boolean exists(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_replication_slots WHERE "
        + "slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
