package dev.pg2spanner.live.stream;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.SourceConnector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;

/**
 * Reads a row's current values from the source, for the values a change does not carry: unchanged TOASTed values of
 * an update that moves the row to another key (the stream sends them as "unchanged", and the old Spanner row is
 * deleted), and generated columns (never streamed). Reading the <em>current</em> value is right for the final state:
 * if the value changed after this change, a later change carries it; if the row is gone, a later delete follows.
 *
 * <p>One connection, with the snapshot readers' session settings so the text is what the converters parse; also
 * the live run's window on the source for lag and catalog questions. Not thread-safe.
 */
public final class SourceLookup implements SourceReads, AutoCloseable {

  /** Longer than any lookup by key or catalog question takes. */
  private static final int NETWORK_TIMEOUT_MILLIS = 60_000;

  private final SourceConnector source;
  private Connection connection;

  public SourceLookup(SourceConnector source) {
    this.source = source;
  }

  /** The open connection (opened on first use, and again after a failure). */
  Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      Connection c = source.open();
      try {
        c.unwrap(PGConnection.class).setPrepareThreshold(0);
        // A source that stops answering (network gone) fails the statement instead of hanging the stream.
        c.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
        try (Statement s = c.createStatement()) {
          for (String setting : SnapshotSession.SESSION_SETTINGS.split("; ")) {
            s.execute(setting);
          }
        }
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  @Override
  public Map<String, String> row(String relation, List<String> keyColumns, List<String> keyTypes, List<String> keyTexts,
      List<String> wanted) {
    int dot = relation.indexOf('.');
    StringBuilder sql = new StringBuilder("SELECT ");
    for (int i = 0; i < wanted.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(PgNames.quote(wanted.get(i)));
    }
    sql.append(" FROM ONLY ").append(PgNames.qualified(relation.substring(0, dot), relation.substring(dot + 1)))
        .append(" WHERE ");
    for (int i = 0; i < keyColumns.size(); i++) {
      sql.append(i == 0 ? "" : " AND ").append(PgNames.quote(keyColumns.get(i))).append(" = CAST(? AS ")
          .append(keyTypes.get(i)).append(')');
    }
    try (PreparedStatement ps = connection().prepareStatement(sql.toString())) {
      for (int i = 0; i < keyTexts.size(); i++) {
        ps.setString(i + 1, keyTexts.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < wanted.size(); i++) {
          values.put(wanted.get(i), rs.getString(i + 1));
        }
        return values;
      }
    } catch (SQLException e) {
      closeQuietly();
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "cannot read the current values of a changed row "
          + "of " + relation + " from the source (" + e.getMessage() + "); check the source, then rerun with "
          + "--resume", e);
    }
  }

  @Override
  public String partitionRoot(int relationId) {
    List<String> root = values("SELECT n.nspname || '.' || c.relname FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = pg_partition_root(?::oid)",
        Integer.toString(relationId));
    return root.isEmpty() ? null : root.get(0);
  }

  /** Single values of a query ({@code ?} bound to {@code args} as text), e.g. the current WAL position. */
  public List<String> values(String sql, String... args) {
    try (PreparedStatement ps = connection().prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        List<String> row = new ArrayList<>();
        if (rs.next()) {
          for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            row.add(rs.getString(i));
          }
        }
        return row;
      }
    } catch (SQLException e) {
      closeQuietly();
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "the source stopped answering (" + e.getMessage()
          + "); check it, then rerun migrate --live --resume", e);
    }
  }

  private void closeQuietly() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException ignored) {
      // reopened on next use
    }
    connection = null;
  }

  @Override
  public void close() {
    closeQuietly();
  }
}
