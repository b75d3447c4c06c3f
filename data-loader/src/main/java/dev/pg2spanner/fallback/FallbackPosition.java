package dev.pg2spanner.fallback;

import com.google.cloud.Timestamp;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * How far fallback got, in the source: table {@value #TABLE}, one row per change stream, holding the commit time up to
 * which every change of the stream is applied. It is written in the same PostgreSQL transaction as the changes it
 * covers, so after a crash ({@code kill -9} included) the source holds exactly the changes up to it and fallback
 * continues from there. Dropped by {@code cutover --back}.
 */
public final class FallbackPosition {

  /** In {@code public}: the source's default schema, outside the plan's tables. */
  public static final String TABLE = "public.pg2spanner_fallback_position";

  private FallbackPosition() {}

  static void create(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (stream text PRIMARY KEY, applied_to text NOT NULL, "
          + "changes bigint NOT NULL, updated_at timestamptz NOT NULL)");
    }
  }

  /** What the source holds: every change committed to Spanner up to {@code appliedTo}, {@code changes} of them. */
  record Saved(Timestamp appliedTo, long changes) {}

  /** The commit time every change up to which is applied, and how many were, or empty before the first window. */
  static Optional<Saved> read(Connection c, String stream) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT applied_to, changes FROM " + TABLE
        + " WHERE stream = ?")) {
      ps.setString(1, stream);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new Saved(Timestamp.parseTimestamp(rs.getString("applied_to")),
            rs.getLong("changes"))) : Optional.empty();
      }
    }
  }

  /** Records {@code appliedTo} in the caller's transaction. */
  static void save(Connection c, String stream, Timestamp appliedTo, long changes) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " AS p VALUES (?, ?, ?, now()) "
        + "ON CONFLICT (stream) DO UPDATE SET applied_to = EXCLUDED.applied_to, "
        + "changes = p.changes + EXCLUDED.changes, updated_at = now()")) {
      ps.setString(1, stream);
      ps.setString(2, appliedTo.toString());
      ps.setLong(3, changes);
      ps.executeUpdate();
    }
  }

  static void drop(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + TABLE);
    }
  }
}
