package dev.pg2spanner.migrate;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Caps {@code --workers} by the connections the source can spare, so that a large worker count never takes the
 * last connections a production application needs ("sorry, too many clients already").
 *
 * <p>A run opens one connection per worker plus {@link #OWN_CONNECTIONS} of its own (the snapshot coordinator, the
 * checks). It leaves {@link #reserve} free: a tenth of {@code max_connections}, at least {@link #MIN_RESERVE}.
 * A role or database connection limit ({@code rolconnlimit}, {@code datconnlimit}) caps it further.
 */
final class SourceCapacity {

  /** The coordinator that holds the snapshot and this check's own connection. */
  static final int OWN_CONNECTIONS = 2;
  /** Connections always left to others, whatever {@code max_connections} is. */
  static final int MIN_RESERVE = 5;

  private SourceCapacity() {}

  /** {@code o}, with its workers reduced to what the source can spare (and a line saying so), or unchanged. */
  static MigrateOptions capWorkers(Connection c, MigrateOptions o, PrintWriter out) throws SQLException {
    int spare;
    String why;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, "
            + "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int, "
            + "(SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user), "
            + "(SELECT count(*) FROM pg_stat_activity WHERE usename = current_user "
            + "AND backend_type = 'client backend')::int, "
            + "(SELECT datconnlimit FROM pg_database WHERE datname = current_database()), "
            + "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            + "AND backend_type = 'client backend')::int")) {
      rs.next();
      int max = rs.getInt(1);
      int superuserReserved = rs.getInt(2);
      int inUse = rs.getInt(3);
      int reserve = reserve(max);
      spare = max - superuserReserved - inUse - reserve;
      why = "max_connections " + max + ", " + inUse + " in use, " + (superuserReserved + reserve)
          + " kept free for others";
      int roleLimit = rs.getInt(4);
      if (roleLimit >= 0 && roleLimit - rs.getInt(5) < spare) {
        spare = roleLimit - rs.getInt(5);
        why = "this role's connection limit " + roleLimit + ", " + rs.getInt(5) + " in use";
      }
      int databaseLimit = rs.getInt(6);
      if (databaseLimit >= 0 && databaseLimit - rs.getInt(7) < spare) {
        spare = databaseLimit - rs.getInt(7);
        why = "this database's connection limit " + databaseLimit + ", " + rs.getInt(7) + " in use";
      }
    }
    // This check's connection is already counted as in use; the coordinator is not open yet.
    int workers = Math.max(1, spare - (OWN_CONNECTIONS - 1));
    if (workers >= o.workers()) {
      return o;
    }
    out.println("note: --workers " + o.workers() + " lowered to " + workers + ": the source can spare only that "
        + "many connections (" + why + ")");
    out.flush();
    return o.withWorkers(workers);
  }

  /** Connections left free for the application: a tenth of {@code max_connections}, at least {@link #MIN_RESERVE}. */
  static int reserve(int maxConnections) {
    return Math.max(MIN_RESERVE, maxConnections / 10);
  }
}
