package dev.pg2spanner.it;

import dev.pg2spanner.testing.PgTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live tests' source: a schema with every shape streaming must handle, and a writer that keeps changing it the
 * way an application does — inserts, non-key updates that leave large TOASTed values unchanged, updates that move
 * a row to another key (with an unchanged TOASTed value), deletes (cascading to interleaved children), a
 * transaction that inserts a parent and its children, changes to a table without a key (REPLICA IDENTITY FULL).
 */
final class LiveWorkload implements AutoCloseable {

  /** Shapes: bigserial parent with an external (never compressed) big text; interleavable child; natural-key table
   * with a big doc; keyless audit table; a table that gets truncated. */
  static final String[] SCHEMA = {
      "CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL, big text, "
          + "balance numeric(14,2) NOT NULL DEFAULT 0)",
      "ALTER TABLE accounts ALTER COLUMN big SET STORAGE EXTERNAL",
      "CREATE TABLE entries (account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, "
          + "seq int NOT NULL, amount numeric(12,2) NOT NULL, memo text, PRIMARY KEY (account_id, seq))",
      "CREATE TABLE tags (code text PRIMARY KEY, label text, doc text)",
      "ALTER TABLE tags ALTER COLUMN doc SET STORAGE EXTERNAL",
      "CREATE TABLE audit (at timestamptz NOT NULL, message text NOT NULL, detail jsonb)",
      "ALTER TABLE audit REPLICA IDENTITY FULL",
      "CREATE TABLE scratch (id int PRIMARY KEY, v text)",
      "INSERT INTO accounts (name, big) SELECT 'account ' || g, repeat(md5(g::text), 400) "
          + "FROM generate_series(1, 400) g",
      "INSERT INTO entries SELECT a, s, (a * s) % 1000 / 10.0, 'memo ' || s FROM generate_series(1, 400) a, "
          + "generate_series(1, 5) s",
      "INSERT INTO tags SELECT 'tag-' || g, 'label ' || g, repeat(md5('doc' || g), 300) FROM generate_series(1, 100) g",
      "INSERT INTO audit SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', 'event ' || g, "
          + "jsonb_build_object('n', g) FROM generate_series(1, 300) g",
      "INSERT INTO scratch SELECT g, 'v' || g FROM generate_series(1, 50) g",
      "ANALYZE"};

  private final PgTestDatabase pg;
  private final Random random = new Random(7);
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong transactions = new AtomicLong();
  private Thread thread;
  private volatile Throwable failure;
  /** Shared by every workload of the JVM, so two of them never move a tag to the same new code. */
  private static final AtomicLong NEXT = new AtomicLong(1_000);

  LiveWorkload(PgTestDatabase pg) {
    this.pg = pg;
  }

  static void createSchema(PgTestDatabase pg) throws SQLException {
    pg.execute(SCHEMA);
  }

  /** Starts writing in the background, a transaction about every 10 ms (the emulator serialises commits). */
  LiveWorkload start() {
    thread = new Thread(() -> {
      try (Connection c = pg.connect()) {
        while (running.get()) {
          oneTransaction(c);
          transactions.incrementAndGet();
          Thread.sleep(10);
        }
      } catch (Throwable t) {
        failure = t;
      }
    }, "live-workload");
    thread.start();
    return this;
  }

  long transactions() {
    return transactions.get();
  }

  /** Runs {@code n} transactions in the calling thread. */
  void run(int n) throws SQLException {
    try (Connection c = pg.connect()) {
      for (int i = 0; i < n; i++) {
        oneTransaction(c);
      }
    }
  }

  private void oneTransaction(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      switch (random.nextInt(9)) {
        case 0 -> {
          // A parent and its children in one transaction.
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO accounts (name, big) VALUES (?, repeat(md5(?), "
              + "300)) RETURNING id")) {
            ps.setString(1, "new " + random.nextInt());
            ps.setString(2, Integer.toString(random.nextInt()));
            var rs = ps.executeQuery();
            rs.next();
            long id = rs.getLong(1);
            s.execute("INSERT INTO entries SELECT " + id + ", g, g * 1.5, 'fresh' FROM generate_series(1, 3) g");
          }
        }
        // A non-key update: big is unchanged (sent as unchanged TOAST).
        case 1, 2 -> s.execute("UPDATE accounts SET balance = balance + 1.25 WHERE id = " + account());
        case 3 -> s.execute("UPDATE entries SET memo = 'changed ' || now()::text, amount = amount + 1 "
            + "WHERE account_id = " + account() + " AND seq = 1");
        // Deleting an account cascades to its entries (in PostgreSQL and, interleaved, in Spanner).
        case 4 -> s.execute("DELETE FROM accounts WHERE id = " + account());
        // A key change with an unchanged TOASTed doc.
        case 5 -> s.execute("UPDATE tags SET code = 'moved-' || " + NEXT.getAndIncrement() + ", label = 'moved' "
            + "WHERE code = (SELECT code FROM tags ORDER BY random() LIMIT 1)");
        case 6 -> s.execute("INSERT INTO audit VALUES (now(), 'live event " + NEXT.getAndIncrement()
            + "', '{\"k\": [1, 2]}')");
        // Keyless table: update and delete found by the whole old row.
        case 7 -> s.execute("UPDATE audit SET message = message || ' (seen)' WHERE ctid = (SELECT ctid FROM audit "
            + "ORDER BY random() LIMIT 1)");
        default -> s.execute("DELETE FROM audit WHERE ctid = (SELECT ctid FROM audit ORDER BY random() LIMIT 1)");
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private long account() {
    return 1 + random.nextInt(450);
  }

  /** Stops the writer and rethrows what failed in it. */
  @Override
  public void close() throws Exception {
    running.set(false);
    if (thread != null) {
      thread.join(30_000);
    }
    if (failure instanceof Exception e) {
      throw e;
    }
    if (failure != null) {
      throw new AssertionError(failure);
    }
  }
}
