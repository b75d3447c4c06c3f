package dev.pg2spanner.beam;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.load.read.CopyPieceReader;
import dev.pg2spanner.load.read.PieceSource;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.load.read.SourceReader;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.plan.PlanFiles;
import dev.pg2spanner.source.PgNames;
import dev.pg2spanner.source.Secret;
import dev.pg2spanner.source.SourceConfig;
import dev.pg2spanner.source.SourceConnector;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.apache.beam.sdk.io.FileSystems;

/**
 * The production {@link PieceSourceFactory}: a JDBC reader of the source with the in-process loader's
 * {@link TableConverter}s, compiled once per source from the plan's YAML, reading each piece as the in-process loader
 * does: with the launcher's {@link SourceReader}, by default {@link CopyPieceReader} (binary COPY where the table
 * allows, else text COPY: several times the rows a result set gives per CPU second, BENCHMARKS.md). A COPY that
 * fails or whose sink throws aborts the reader's transaction; Beam then discards the DoFn instance, and its
 * successor opens a reader of its own.
 *
 * <p>Snapshot: with a snapshot id, every reader imports the launcher's exported snapshot ({@code SET TRANSACTION
 * SNAPSHOT}) once, in {@code @Setup}, and reads every piece in that one transaction, so the whole job reads one
 * consistent state; that works only while the launching process keeps its exporting transaction open (it waits for
 * the job: the DirectRunner, Flink's embedded or a remote cluster, Dataflow) and only on the server that exported it.
 * For {@code migrate --live} that state is the replication slot's snapshot, so the stream continues exactly where
 * the job's rows end. Without one, each DoFn instance reads inside a snapshot of its own: consistent per worker, not
 * across them.
 *
 * <p>Session settings: the readers need exactly the settings {@link SnapshotSession} gives its readers (the value
 * parsers depend on them). Rather than copy them here, where they could drift, a reader is taken from a
 * short-lived {@link SnapshotSession} (session-level settings survive the end of its transaction) and, when a
 * snapshot id is given, its transaction is rolled back and the launcher's snapshot imported instead. That costs one
 * extra short connection per DoFn instance, not per piece.
 *
 * @param planYaml the plan, as {@link PlanFiles#toYaml}
 * @param jdbcUrl the source URL, without a password
 * @param passwordFile a password file reference (local or gs://), or null
 * @param snapshotId the launcher's exported snapshot, or null
 * @param reader how pieces are read (chosen on the launcher: workers do not see its environment)
 */
public record JdbcPieceSources(String planYaml, String jdbcUrl, String passwordFile, String snapshotId,
    SourceReader reader) implements PieceSourceFactory {

  private static final long serialVersionUID = 1L;

  /** With the default reader, {@link SourceReader#COPY}. */
  public JdbcPieceSources(String planYaml, String jdbcUrl, String passwordFile, String snapshotId) {
    this(planYaml, jdbcUrl, passwordFile, snapshotId, SourceReader.COPY);
  }

  @Override
  public PieceSource open() {
    Map<String, TableConverter> converters = TableConverter.compileAll(PlanFiles.fromYaml(planYaml, "plan.yaml"),
        reader.binaryCopy());
    SourceConnector connector = new SourceConnector(new SourceConfig(jdbcUrl, password()));
    Connection connection;
    try (SnapshotSession own = SnapshotSession.open(connector)) {
      connection = own.openReader();
    }
    if (snapshotId != null) {
      importSnapshot(connection, connector);
    }
    return reader.open(connection, converters);
  }

  private void importSnapshot(Connection reader, SourceConnector connector) {
    try {
      reader.rollback();
      try (Statement statement = reader.createStatement()) {
        statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        statement.execute("SET TRANSACTION SNAPSHOT " + PgNames.literal(snapshotId));
      }
    } catch (SQLException e) {
      try {
        reader.close();
      } catch (SQLException ignored) {
        // Already failing; the server ends the session when the socket closes.
      }
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, importFailure(connector.config().endpoint(),
          workerHost(), e.getMessage()), e);
    }
  }

  /**
   * Why a worker could not import the launcher's snapshot, and what to do: PostgreSQL says only "invalid snapshot
   * identifier" both when the exporting transaction has ended and when the worker reached another server.
   */
  String importFailure(String endpoint, String worker, String reason) {
    return "a worker (on " + worker + ") cannot import the launcher's snapshot " + snapshotId + " on PostgreSQL at "
        + endpoint + " (" + reason + "). A snapshot can be imported only on the server that exported it (not a "
        + "replica, nor another server the same name reaches from the worker) and only while the launching "
        + "pg2spanner keeps its transaction open: check that the workers' --source reaches the launcher's server "
        + "and that the launcher kept running with its source connection alive for the whole job, then run migrate "
        + "again into an empty database";
  }

  private static String workerHost() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "an unnamed host";
    }
  }

  /** The first line of the password file, read here on the worker; null when there is none. */
  Secret password() {
    if (passwordFile == null || passwordFile.isBlank()) {
      return null;
    }
    try (InputStream in = Channels.newInputStream(FileSystems.open(FileSystems.matchNewResource(passwordFile,
        false)))) {
      String content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int nl = content.indexOf('\n');
      String line = nl < 0 ? content : content.substring(0, nl);
      return Secret.of(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot read the source password file " + passwordFile
          + " on the worker (" + e.getClass().getSimpleName() + "); check the path and that the worker may read "
          + "it", e);
    }
  }

  @Override
  public String toString() {
    // The plan YAML is long and the password file only a reference; keep display data short.
    return "JdbcPieceSources[" + SourceConfig.redact(jdbcUrl) + (snapshotId == null ? "" : ", snapshot "
        + snapshotId) + "]";
  }
}
