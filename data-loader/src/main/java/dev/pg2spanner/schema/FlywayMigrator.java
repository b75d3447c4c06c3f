package dev.pg2spanner.schema;

import com.google.cloud.spanner.SpannerException;
import dev.pg2spanner.ddl.Migration;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.targetdb.SpannerTarget;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.exception.FlywayValidateException;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.internal.exception.FlywayMigrateException;

/**
 * Applies the phase migrations ({@code V1__tables.sql}, {@code V2__indexes.sql}, {@code V3__foreign_keys.sql}) to
 * a Spanner database with Flyway, so the database keeps Flyway's schema history and the team can go on evolving
 * the schema with Flyway afterwards.
 *
 * <p>Connection: through the Spanner JDBC driver. On the emulator ({@link SpannerTarget#emulatorHost()} set) the
 * URL carries {@code autoConfigEmulator=true}, which uses plain text and no credentials; on real Spanner the driver
 * takes the application default credentials from the environment (ADC). Nothing here reads environment variables
 * itself.
 *
 * <p>Flyway's history table is Flyway's default, {@value #HISTORY_TABLE}, in Spanner's default schema;
 * flyway-gcp-spanner creates it (with an index {@code flyway_schema_history_s_idx}) on the first migrate.
 * Spanner runs DDL outside transactions, so a migration that fails half-way leaves what it already created and a
 * history row with success = false; Flyway then refuses to migrate until someone cleans up and runs
 * {@code flyway repair}.
 *
 * <p><b>Caveat: Flyway Community refuses Spanner databases larger than 10 GB</b> (flyway-gcp-spanner 12.4.0 throws
 * {@code FlywayEditionUpgradeRequiredException} when {@code spanner_sys.table_sizes_stats_1hour} reports more).
 * Phase 1 runs on an empty database and is safe; the post-load phases (indexes, foreign keys) on a large
 * database must instead be applied through the Spanner admin API and recorded in the history table exactly as
 * Flyway would (checksum included) — the migrate command owns that path; {@link #recordApplied(Migration, long)}
 * writes that history row. This class maps Flyway's refusal to a TARGET_CONFLICT that says so.
 */
public final class FlywayMigrator implements SchemaHistory {

  /** Flyway's default history table name; flyway-gcp-spanner needs nothing else. */
  public static final String HISTORY_TABLE = "flyway_schema_history";

  private static final Pattern DUPLICATE_NAME = Pattern.compile("Duplicate name in schema: ([^.\\s]+(?:\\.[^.\\s]+)?)");

  private final SpannerTarget target;
  private final Path migrationsDir;

  /**
   * @param target the database to migrate, never null
   * @param migrationsDir the directory holding the {@code V*__*.sql} files, never null
   */
  private final TrackedDataSource dataSource;

  public FlywayMigrator(SpannerTarget target, Path migrationsDir) {
    this.target = Objects.requireNonNull(target, "target");
    this.migrationsDir = Objects.requireNonNull(migrationsDir, "migrationsDir").toAbsolutePath();
    this.dataSource = new TrackedDataSource(jdbcUrl());
  }

  /**
   * Applies pending migrations up to and including {@code version}; already applied ones are skipped, so calling it
   * again is a no-op.
   *
   * @return the versions applied now, in order (empty when nothing was pending)
   * @throws Pg2SpannerException LOCAL_IO when the directory is missing; TARGET_CONNECTION when Spanner cannot be
   *     reached; TARGET_CONFLICT when the database already holds a conflicting object, an earlier migration
   *     failed, or the applied migrations differ from the files
   */
  public List<Integer> migrateTo(int version) {
    if (version < 1) {
      throw new IllegalArgumentException("version must be positive, was " + version);
    }
    requireDirectory();
    MigrateResult result;
    try {
      result = configure().target(String.valueOf(version)).load().migrate();
    } catch (FlywayException e) {
      throw translate(e, "applying the migrations in " + migrationsDir + " up to V" + version);
    } finally {
      dataSource.closeAll();
    }
    List<Integer> applied = new ArrayList<>();
    for (MigrateOutput m : result.migrations) {
      if (m.version != null && !m.version.isEmpty()) {
        applied.add(Integer.parseInt(m.version));
      }
    }
    return List.copyOf(applied);
  }

  /**
   * Creates Flyway's history table (and its index) with Flyway's own DDL, without applying any migration, so that
   * phase 1 can be applied through the admin API in one batch and recorded with {@link #recordApplied}. Flyway is run
   * over an empty migrations directory: it creates the table as its first migrate always does, and finds nothing to
   * apply. A no-op when the table exists.
   *
   * @throws Pg2SpannerException TARGET_CONFLICT when the database holds objects but no history (as
   *     {@link #migrateTo} would); TARGET_CONNECTION when Spanner cannot be reached
   */
  @Override
  public void ensureHistoryTable() {
    requireDirectory();
    Path empty;
    try {
      empty = Files.createTempDirectory("pg2spanner-flyway-");
    } catch (IOException e) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot create a temporary directory (" + e.getMessage()
          + "); check the temporary directory's space and permissions.", e);
    }
    try {
      // No validation: there is nothing to validate, and Flyway would warn that it found no migrations. Idempotent
      // (a history table a cut attempt created is found by the next), so a transient failure is tried again.
      withTransientRetry("creating Flyway's history table " + HISTORY_TABLE, () -> {
        try {
          return configure().locations("filesystem:" + empty).validateOnMigrate(false).load().migrate();
        } finally {
          dataSource.closeAll();
        }
      });
    } finally {
      try {
        Files.deleteIfExists(empty);
      } catch (IOException ignored) {
        // An empty directory left in the temporary directory.
      }
    }
  }

  /**
   * What Flyway's history table says is applied: versioned migrations in the order they were installed; empty
   * when no history table exists yet.
   *
   * @throws Pg2SpannerException TARGET_CONNECTION when Spanner cannot be reached
   */
  @Override
  public List<AppliedMigration> applied() {
    requireDirectory();
    // A read: a transient failure (a connection cut, a target briefly unavailable) is tried again.
    MigrationInfo[] infos = withTransientRetry("reading Flyway's history table " + HISTORY_TABLE, () -> {
      try {
        return configure().load().info().applied();
      } finally {
        dataSource.closeAll();
      }
    });
    List<AppliedMigration> out = new ArrayList<>();
    for (MigrationInfo info : infos) {
      if (info.getVersion() == null) {
        continue; // repeatable migrations: the tool writes none
      }
      out.add(new AppliedMigration(Integer.parseInt(info.getVersion().getVersion()), info.getDescription(),
          info.getChecksum(), !info.getState().isFailed(),
          info.getInstalledOn() == null ? null : info.getInstalledOn().toInstant()));
    }
    return List.copyOf(out);
  }

  /**
   * Records {@code migration} in Flyway's history table as applied and successful, exactly as Flyway would after
   * running it (type SQL, script = its file name, Flyway's CRC32 checksum of its text, the connection's user,
   * the commit timestamp), so that {@code flyway info}/{@code validate} and a later {@link #migrateTo} agree. For
   * the post-load phases applied through the admin API instead of Flyway (see the class comment). It does not run
   * the migration's statements.
   *
   * @param migration the migration whose statements the caller has applied, never null; its {@link
   *     Migration#script()} must be the text of the file in the migrations directory (MigrationFiles writes that)
   * @param executionMillis how long applying it took, in milliseconds
   * @throws Pg2SpannerException TARGET_CONFLICT when the history table does not exist yet (apply V1 with Flyway
   *     first) or already records this version; TARGET_CONNECTION when Spanner cannot be reached
   */
  @Override
  public void recordApplied(Migration migration, long executionMillis) {
    Objects.requireNonNull(migration, "migration");
    String where = target.describe();
    try (Connection c = TrackedDataSource.openWithin(jdbcUrl(), TrackedDataSource.OPEN_BOUND)) {
      // INFORMATION_SCHEMA cannot be read inside a read-write transaction: check before starting one.
      try (PreparedStatement exists = c.prepareStatement("SELECT COUNT(*) AS n FROM INFORMATION_SCHEMA.TABLES "
          + "WHERE TABLE_SCHEMA = '' AND TABLE_NAME = ?")) {
        exists.setString(1, HISTORY_TABLE);
        try (ResultSet rs = exists.executeQuery()) {
          if (!rs.next() || rs.getLong("n") == 0) {
            throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, where + " has no Flyway history table "
                + HISTORY_TABLE + " to record " + migration.fileName() + " in; apply V1 with Flyway first.");
          }
        }
      }
      String installedBy = c.getMetaData().getUserName();
      c.setAutoCommit(false);
      long rank;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(installed_rank), 0) AS max_rank, "
              + "COUNTIF(version = '" + migration.version() + "') AS same FROM " + HISTORY_TABLE)) {
        rs.next();
        if (rs.getLong("same") > 0) {
          c.rollback();
          throw new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "Flyway's history in " + where
              + " already records version " + migration.version() + "; nothing to record.");
        }
        rank = rs.getLong("max_rank") + 1;
      }
      // The same columns and values Flyway's SpannerDatabase.getInsertStatement writes.
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + HISTORY_TABLE + " (installed_rank, "
          + "version, description, type, script, checksum, installed_by, installed_on, execution_time, success) "
          + "VALUES (?, ?, ?, 'SQL', ?, ?, ?, PENDING_COMMIT_TIMESTAMP(), ?, true)")) {
        insert.setLong(1, rank);
        insert.setString(2, String.valueOf(migration.version()));
        insert.setString(3, migration.description());
        insert.setString(4, migration.fileName());
        insert.setLong(5, checksum(migration.script()));
        insert.setString(6, installedBy == null ? "" : installedBy);
        insert.setLong(7, executionMillis);
        insert.executeUpdate();
      }
      c.commit();
    } catch (SQLException e) {
      throw new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot record " + migration.fileName()
          + " in Flyway's history in " + where + " (" + firstLine(e.getMessage()) + "); check the target and "
          + "retry.", e);
    }
  }

  /** {@link #recordApplied(Migration, long)} with an execution time of 0 ms. */
  public void recordApplied(Migration migration) {
    recordApplied(migration, 0L);
  }

  /**
   * Flyway's checksum of a script: CRC32 over the UTF-8 bytes of each line without its line break (so it does not
   * depend on line endings), a leading byte-order mark ignored; as Flyway's ChecksumCalculator does.
   */
  static int checksum(String script) {
    CRC32 crc = new CRC32();
    String text = script.startsWith("\uFEFF") ? script.substring(1) : script;
    try (BufferedReader reader = new BufferedReader(new StringReader(text))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    }
    return (int) crc.getValue();
  }

  /**
   * The JDBC URL Flyway connects with (no secret in it: credentials come from ADC). {@code minSessions=0}: the driver
   * would otherwise create 100 sessions up front for Flyway's handful of statements, and delete each when its pooled
   * client closes: on a target that stopped answering that close took 29.8 s (0.0 s with none), holding the driver's
   * pool lock, so every other JDBC connection in the JVM waited behind it.
   */
  String jdbcUrl() {
    if (target.isEmulator()) {
      return "jdbc:cloudspanner://" + target.emulatorHost() + "/" + target.path()
          + "?autoConfigEmulator=true;minSessions=0";
    }
    return "jdbc:cloudspanner:/" + target.path() + "?minSessions=0";
  }

  private org.flywaydb.core.api.configuration.FluentConfiguration configure() {
    return Flyway.configure(FlywayMigrator.class.getClassLoader())
        .dataSource(dataSource)
        .locations("filesystem:" + migrationsDir)
        .table(HISTORY_TABLE)
        // A database that already holds tables but no history must not be "baselined" silently: that would skip
        // V1 and leave the plan's tables uncreated or different.
        .baselineOnMigrate(false)
        .cleanDisabled(true)
        .failOnMissingLocations(true);
  }

  private void requireDirectory() {
    if (!Files.isDirectory(migrationsDir)) {
      throw new Pg2SpannerException(ExitCode.LOCAL_IO, "the migrations directory " + migrationsDir
          + " does not exist; run plan (or point --plan at the directory that holds plan.yaml) first.");
    }
  }

  private Pg2SpannerException translate(FlywayException e, String doing) {
    String where = target.describe();
    if (e.getClass().getSimpleName().equals("FlywayEditionUpgradeRequiredException")) {
      return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "Flyway Community refused " + where
          + " because it is larger than 10 GB; apply the remaining phases through the admin API path of migrate.",
          e);
    }
    String failedVersion = e instanceof FlywayMigrateException me && me.getMigration() != null
        && me.getMigration().getVersion() != null ? "V" + me.getMigration().getVersion().getVersion() : null;
    if (e.getMessage() != null && e.getMessage().contains("but no schema history table")) {
      // baselineOnMigrate is off, so Flyway refuses a database that holds objects but no history: name them.
      List<String> tables = existingTables();
      String what = tables.isEmpty() ? "schema objects" : (tables.size() == 1 ? "table " : "tables ")
          + String.join(", ", tables);
      return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME,
          what + " already " + (tables.size() == 1 ? "exists"
          : "exist") + " in " + where + ", which has no Flyway history; use an empty database or --resume.", e);
    }
    SpannerException spanner = spannerCause(e);
    if (spanner != null) {
      String message = spanner.getMessage() == null ? "" : spanner.getMessage();
      Matcher duplicate = DUPLICATE_NAME.matcher(message);
      if (duplicate.find()) {
        return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.RESUME, "table " + duplicate.group(1)
            + " already exists in " + where + "; use an empty database or --resume.", e);
      }
      if (dev.pg2spanner.targetdb.SpannerFailures.isReachFailure(spanner)) {
        return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "cannot reach " + where + " while " + doing
            + " (" + spanner.getErrorCode() + ": " + firstLine(message) + "); check the target, the emulator or "
            + "your credentials and try again.", e);
      }
      switch (spanner.getErrorCode()) {
        case NOT_FOUND:
          if (message.toLowerCase(Locale.ROOT).matches("(?s).*(database|instance) not found.*")) {
            return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, where + " does not exist ("
                + firstLine(message) + "); create the database or fix --target.", e);
          }
          break;
        default:
          break;
      }
      if (failedVersion == null && !doing.startsWith("applying")) {
        // Not a migration Spanner refused: reading or creating the history failed with a code no retry cured.
        return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "Spanner failed " + doing + " on " + where
            + " (" + spanner.getErrorCode() + ": " + firstLine(message) + "); check the target and try again.", e);
      }
      return new Pg2SpannerException(ExitCode.DDL_REJECTED, "Spanner rejected "
          + (failedVersion == null ? "a migration" : "migration " + failedVersion) + " while " + doing + " on "
          + where + ": " + firstLine(message) + "; fix the target database or the plan, then retry.", e);
    }
    if (e instanceof FlywayValidateException || e.getMessage() != null
        && e.getMessage().contains("failed migration")) {
      return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, NextStep.STATED, "Flyway's history in " + where
          + " does not match " + migrationsDir + " (" + firstLine(e.getMessage()) + "); use an empty database, or "
          + "remove half-applied objects and run flyway repair.", e);
    }
    if (failedVersion != null) {
      return new Pg2SpannerException(ExitCode.TARGET_CONFLICT, "migration " + failedVersion + " failed on "
          + where + ": " + firstLine(e.getMessage()) + "; fix the target database or the plan, then retry.", e);
    }
    return new Pg2SpannerException(ExitCode.TARGET_CONNECTION, "Flyway could not work with " + where + " while "
        + doing + ": " + firstLine(e.getMessage()) + "; check the target and try again.", e);
  }

  /** Up to five user tables of the target, for a conflict message; empty when they cannot be listed. */
  private List<String> existingTables() {
    String sql = "SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES "
        + "WHERE TABLE_SCHEMA NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS') ORDER BY TABLE_SCHEMA, TABLE_NAME LIMIT 6";
    List<String> names = new ArrayList<>();
    try (Connection c = TrackedDataSource.openWithin(jdbcUrl(), TrackedDataSource.OPEN_BOUND);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        String schema = rs.getString("TABLE_SCHEMA");
        names.add((schema == null || schema.isEmpty() ? "" : schema + ".") + rs.getString("TABLE_NAME"));
      }
    } catch (SQLException | RuntimeException ignored) {
      // Only the message loses detail; the conflict itself is already certain.
      return List.of();
    }
    if (names.size() > 5) {
      names = new ArrayList<>(names.subList(0, 5));
      names.add("...");
    }
    return names;
  }

  /** Attempts of an idempotent Flyway operation when Spanner fails it transiently. */
  static final int TRANSIENT_ATTEMPTS = 4;

  /**
   * Runs an idempotent Flyway operation, trying it again (up to {@link #TRANSIENT_ATTEMPTS} times, 1, 2 then 4 s
   * apart) when Spanner failed it with a transient code
   * ({@link dev.pg2spanner.targetdb.SpannerFailures#isTransientForIdempotentCall}), as a cut connection or a busy
   * target gives. Anything else, or the last
   * attempt's failure, is translated as before.
   */
  private <T> T withTransientRetry(String doing, java.util.function.Supplier<T> operation) {
    for (int attempt = 1; ; attempt++) {
      try {
        return operation.get();
      } catch (FlywayException e) {
        SpannerException cause = spannerCause(e);
        boolean transientFailure = cause != null
            && dev.pg2spanner.targetdb.SpannerFailures.isTransientForIdempotentCall(cause);
        if (!transientFailure || attempt >= TRANSIENT_ATTEMPTS) {
          throw translate(e, doing);
        }
        org.slf4j.LoggerFactory.getLogger(FlywayMigrator.class).info("{} failed ({}); trying again", doing,
            cause.getErrorCode());
        try {
          Thread.sleep(1_000L << (attempt - 1));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new Pg2SpannerException(ExitCode.INTERRUPTED, "interrupted while " + doing
              + "; rerun the same command", interrupted);
        }
      }
    }
  }

  private static SpannerException spannerCause(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof SpannerException s) {
        return s;
      }
    }
    return null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no message";
    }
    String trimmed = message.strip();
    int newline = trimmed.indexOf('\n');
    String line = newline < 0 ? trimmed : trimmed.substring(0, newline).strip();
    return line.endsWith(".") ? line.substring(0, line.length() - 1) : line;
  }

  /**
   * Closes the Spanner clients the JDBC driver pools for Flyway. They would otherwise keep the JVM (and, when the
   * emulator has already been stopped, its exit) waiting. Safe to call when nothing is pooled; a later Flyway call
   * simply opens a new client.
   */
  public static void releaseConnections() {
    releaseConnections(dev.pg2spanner.targetdb.SpannerConnector.CLOSE_BOUND);
  }

  /** {@link #releaseConnections()}, waiting at most {@code bound} (shorter once the run gave up on the target). */
  public static void releaseConnections(java.time.Duration bound) {
    try {
      // Bounded: on a target that stopped answering, closing the pooled clients retries for a minute or more.
      dev.pg2spanner.targetdb.SpannerConnector.closeWithin(
          com.google.cloud.spanner.connection.SpannerPool::closeSpannerPool, bound);
    } catch (RuntimeException e) {
      // Connections still open elsewhere in this JVM: they release their clients when they close.
      org.slf4j.LoggerFactory.getLogger(FlywayMigrator.class).debug("JDBC Spanner pool not closed: {}",
          e.getMessage());
    }
  }
}
