package dev.pg2spanner.live.stream;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link LiveStream} needs of a logical replication connection: the next message, the server's last sent
 * position, and a way to confirm a position. pgjdbc's stream in production; a scripted one in the stream's tests.
 */
interface ReplicationStream extends AutoCloseable {

  /** The next message, or null when none waits now (never blocks). */
  ByteBuffer readPending() throws SQLException;

  /** The end of the last message the server sent. */
  long lastReceiveLsn();

  /** Tells the server that everything before {@code lsn} is applied: the slot may free the WAL behind it. */
  void confirm(long lsn);

  /** Sends the confirmed position now rather than at the next status interval. */
  void forceStatus() throws SQLException;

  @Override
  void close();

  /** pgjdbc's replication stream over its own connection (closed with it). */
  static ReplicationStream of(Connection connection, PGReplicationStream stream) {
    return new ReplicationStream() {
      private final Logger log = LoggerFactory.getLogger(LiveStream.class);

      @Override
      public ByteBuffer readPending() throws SQLException {
        return stream.readPending();
      }

      @Override
      public long lastReceiveLsn() {
        return stream.getLastReceiveLSN().asLong();
      }

      @Override
      public void confirm(long lsn) {
        LogSequenceNumber position = Lsn.of(lsn);
        stream.setFlushedLSN(position);
        stream.setAppliedLSN(position);
      }

      @Override
      public void forceStatus() throws SQLException {
        if (!stream.isClosed()) {
          stream.forceUpdateStatus();
        }
      }

      @Override
      public void close() {
        try {
          stream.close();
        } catch (SQLException e) {
          log.debug("Closing the replication stream: {}", e.getMessage());
        }
        try {
          connection.close();
        } catch (SQLException e) {
          log.debug("Closing the replication connection: {}", e.getMessage());
        }
      }
    };
  }
}
