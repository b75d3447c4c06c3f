package dev.pg2spanner.live;

import dev.pg2spanner.ddl.DdlPrinter;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.live.stream.CatalogFollower;
import dev.pg2spanner.live.stream.Lsn;
import dev.pg2spanner.live.stream.ReplicationSetup;
import dev.pg2spanner.live.stream.SourceShape;
import dev.pg2spanner.load.LoadEngine;
import dev.pg2spanner.load.LoadOptions;
import dev.pg2spanner.load.LoadResult;
import dev.pg2spanner.load.convert.TableConverter;
import dev.pg2spanner.load.read.SourceReader;
import dev.pg2spanner.load.source.Piece;
import dev.pg2spanner.load.source.PiecePlanner;
import dev.pg2spanner.load.source.SnapshotSession;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.SequencePlan;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.planner.TableReplan;
import dev.pg2spanner.rundir.RunFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconciliation of the target with the source's catalog ({@link CatalogFollower} found them apart), run on the
 * applier's thread with everything before it committed: dropped tables, created tables, created and dropped indexes,
 * each translated by the planner's own rules into Spanner DDL sent in batched requests. The result (the revised plan,
 * the statements, the relations added and the tables dropped) is recorded by the session as one Flyway version and
 * one plan revision.
 */
final class CatalogReconcile {

  private static final Logger LOG = LoggerFactory.getLogger(CatalogReconcile.class);

  /** How long the snapshot a new table is copied from may wait for transactions already writing. */
  private static final Duration COPY_SNAPSHOT_WAIT = Duration.ofMinutes(10);

  private final LiveSession.Context ctx;
  private final LiveState state;
  private final Set<String> ignoredIndexes;
  private Plan plan;
  private final List<String> statements = new ArrayList<>();
  private final List<String> described = new ArrayList<>();
  private final List<SourceShape.Relation> added = new ArrayList<>();
  private final List<String> dropped = new ArrayList<>();

  CatalogReconcile(LiveSession.Context ctx, LiveState state, Plan plan, Set<String> ignoredIndexes) {
    this.ctx = ctx;
    this.state = state;
    this.plan = plan;
    this.ignoredIndexes = ignoredIndexes;
  }

  Plan plan() {
    return plan;
  }

  List<String> statements() {
    return List.copyOf(statements);
  }

  List<String> described() {
    return List.copyOf(described);
  }

  List<SourceShape.Relation> added() {
    return List.copyOf(added);
  }

  List<String> dropped() {
    return List.copyOf(dropped);
  }

  /**
   * @param droppedBefore the source tables found dropped when the reconciliation was asked for: every change to them
   *     precedes this point of the stream, so they can go (a table found dropped only now may still have changes
   *     on the way, and waits for the next message)
   */
  void run(Connection c, List<String> droppedBefore) throws SQLException {
    CatalogFollower.Seen seen = CatalogFollower.look(c, plan, ignoredIndexes);
    for (String source : droppedBefore) {
      if (seen.dropped().contains(source)) {
        plan.tableBySource(source).ifPresent(this::dropTable);
      }
    }
    for (Map.Entry<String, Boolean> created : seen.created().entrySet()) {
      addTable(c, created.getKey(), created.getValue());
    }
    for (Map.Entry<String, Set<String>> e : seen.indexes().entrySet()) {
      TablePlan table = plan.tableBySource(e.getKey()).orElse(null);
      if (table != null) {
        followIndexes(c, table, e.getValue());
      }
    }
  }

  // ---- DROP TABLE ------------------------------------------------------------------------------------------------

  private void dropTable(TablePlan table) {
    for (TablePlan child : plan.tables()) {
      if (child.interleave() != null && child.interleave().parent().equals(table.target())) {
        throw cannot(table.source(), "it was dropped, but " + child.source() + ", interleaved in it in Spanner, is "
            + "still on the source", "drop " + child.source() + " too (its rows go with the parent in Spanner), or "
            + "create " + table.source() + " again, then rerun migrate --live --resume");
      }
    }
    List<LiveDdl.Step> steps = new ArrayList<>();
    for (TablePlan other : plan.tables()) {
      if (other == table) {
        continue;
      }
      List<ForeignKeyPlan> referencing = other.foreignKeys().stream()
          .filter(fk -> fk.referencedTable().equals(table.target())).toList();
      for (ForeignKeyPlan fk : referencing) {
        steps.add(new LiveDdl.Step(DdlPrinter.dropConstraint(plan, other, fk.target()), LiveDdl.Kind.CONSTRAINT,
            qualified(other, fk.target()), false));
      }
      if (!referencing.isEmpty()) {
        List<ForeignKeyPlan> keep = new ArrayList<>(other.foreignKeys());
        keep.removeAll(referencing);
        plan = plan.withTable(with(other, other.indexes(), keep));
      }
    }
    for (IndexPlan index : table.indexes()) {
      steps.add(new LiveDdl.Step(DdlPrinter.dropIndex(plan, table, index), LiveDdl.Kind.INDEX, indexName(table,
          index), false));
    }
    for (ForeignKeyPlan fk : table.foreignKeys()) {
      steps.add(new LiveDdl.Step(DdlPrinter.dropConstraint(plan, table, fk.target()), LiveDdl.Kind.CONSTRAINT,
          qualified(table, fk.target()), false));
    }
    steps.add(new LiveDdl.Step(DdlPrinter.dropTable(plan, table), LiveDdl.Kind.TABLE, table.target(), false));
    statements.addAll(LiveDdl.applySteps(ctx, steps, "table " + table.source() + " dropped"));
    plan = plan.withoutTable(table.target());
    dropped.add(table.target());
    described.add("table " + table.source() + " dropped: " + table.target() + " dropped in Spanner"
        + (table.indexes().isEmpty() ? "" : " with its " + table.indexes().size() + " index(es)"));
  }

  // ---- CREATE TABLE ----------------------------------------------------------------------------------------------

  private void addTable(Connection c, String source, boolean identifiable) throws SQLException {
    if (!identifiable) {
      throw cannot(source, "it was created without a primary key or replica identity, so PostgreSQL cannot "
          + "identify its updated and deleted rows, and publishing it would make PostgreSQL refuse the "
          + "application's UPDATE and DELETE on it", "give it a primary key (`ALTER TABLE " + source + " ADD PRIMARY "
          + "KEY (...)`) or a replica identity (`ALTER TABLE " + source + " REPLICA IDENTITY FULL`), or drop it; "
          + "then rerun migrate --live --resume: its rows are copied then and its changes streamed");
    }
    CatalogFollower.publish(c, state.publication(), source, state.createdPublication());
    TableReplan.Result replan = TableReplan.of(c, plan, source, "pg2spanner").orElse(null);
    if (replan == null) {
      return; // gone again before it was planned
    }
    TablePlan table = replan.table();
    if (plan.tableByTarget(table.target()).isPresent()) {
      throw cannot(source, "it was created, and the planner names it " + table.target() + " in Spanner, which a "
          + "planned table is called already", "rename it on the source, then rerun migrate --live --resume");
    }
    Set<String> names = indexNames(plan);
    for (IndexPlan index : table.indexes()) {
      if (names.contains(index.target().toLowerCase(Locale.ROOT))) {
        throw cannot(source, "it was created with the index " + index.source() + ", which the planner names "
            + index.target() + " in Spanner, the name of an index already there", "rename the index on the source "
            + "(`ALTER INDEX ... RENAME TO ...`), then rerun migrate --live --resume");
      }
    }
    List<SequencePlan> sequences = replan.sequences().stream()
        .filter(s -> plan.sequences().stream().noneMatch(have -> have.target().equals(s.target()))).toList();
    List<LiveDdl.Step> create = new ArrayList<>();
    LiveDdl.Step tableStep = new LiveDdl.Step(DdlPrinter.createTable(plan, table), LiveDdl.Kind.TABLE,
        table.target(), true);
    if (LiveDdl.exists(ctx, tableStep)) {
      // Left by a run that stopped after creating it and before recording it: dropped, so the copy starts empty.
      List<LiveDdl.Step> leftover = new ArrayList<>();
      for (IndexPlan index : table.indexes()) {
        leftover.add(new LiveDdl.Step(DdlPrinter.dropIndex(plan, table, index), LiveDdl.Kind.INDEX,
            indexName(table, index), false));
      }
      leftover.add(new LiveDdl.Step(DdlPrinter.dropTable(plan, table), LiveDdl.Kind.TABLE, table.target(), false));
      LiveDdl.applySteps(ctx, leftover, "table " + source + " created again after a stop");
    }
    for (SequencePlan s : sequences) {
      create.add(new LiveDdl.Step(DdlPrinter.createSequence(plan, s), LiveDdl.Kind.SEQUENCE, s.target(), true));
    }
    create.add(tableStep);
    statements.addAll(LiveDdl.applySteps(ctx, create, "table " + source + " created"));

    Plan single = new Plan(plan.formatVersion(), plan.generatedBy(), plan.generatedAt(), plan.source(),
        plan.target(), List.of(table), sequences, List.of());
    ReplicationSetup.Created cut = ReplicationSetup.temporaryCut(ctx.source(), COPY_SNAPSHOT_WAIT);
    long at = Lsn.parse(cut.consistentPoint());
    long rows;
    List<SourceShape.Relation> shapes;
    try (SnapshotSession snapshot = cut.snapshot()) {
      shapes = SourceShape.read(snapshot.coordinator(), single);
      rows = copy(snapshot, single, table, at);
    }
    shapes.forEach(shape -> added.add(shape.copiedTo(at)));

    List<LiveDdl.Step> indexes = new ArrayList<>();
    for (IndexPlan index : table.indexes()) {
      indexes.add(new LiveDdl.Step(DdlPrinter.createIndex(plan, table, index), LiveDdl.Kind.INDEX,
          indexName(table, index), true));
    }
    statements.addAll(LiveDdl.applySteps(ctx, indexes, "indexes of the new table " + source));
    plan = plan.withTableAdded(table, sequences);
    described.add("table " + source + " created: planned as " + table.target() + " (key "
        + String.join(", ", table.primaryKey().stream().map(KeyPart::column).toList()) + ", "
        + table.keyStrategy().kind().toString().toLowerCase(Locale.ROOT).replace('_', ' ') + ": "
        + table.keyStrategy().reason() + "), created in Spanner"
        + (table.indexes().isEmpty() ? "" : " with " + table.indexes().size() + " index(es)") + ", " + rows
        + " row(s) copied from the snapshot at " + cut.consistentPoint() + ", its changes streamed from there");
  }

  /** Copies the table's rows in {@code snapshot} with the load's own engine (one blind write per batch). */
  private long copy(SnapshotSession snapshot, Plan single, TablePlan table, long at) {
    Path dir = ctx.runDirectory().resolve(RunFiles.TABLES_ADDED)
        .resolve(table.target().replaceAll("[^A-Za-z0-9_]+", "_") + "-" + Long.toHexString(at));
    try {
      deleteTree(dir);
      Files.createDirectories(dir);
      Map<String, TableConverter> converters = TableConverter.compileAll(single, true);
      List<Piece> pieces = PiecePlanner.wholeTables(snapshot.coordinator(), List.of(table));
      LoadOptions options = new LoadOptions(2, 0, dir, dir.resolve(RunFiles.DEAD_LETTER), true, Duration.ofSeconds(30),
          false);
      LoadResult result = new LoadEngine(ctx.client(), single, options, ctx.out()).run(pieces,
          () -> SourceReader.COPY.open(snapshot.openReader(), converters));
      return result.rowsWritten();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.INTERRUPTED, NextStep.RESUME, "interrupted while copying the new table "
          + table.source() + "; rerun migrate --live --resume (it is copied again)", e);
    } catch (SQLException | IOException e) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, NextStep.RESUME,
          "cannot copy the new table " + table.source()
          + " (" + e.getMessage() + "); streaming stopped before its changes, rerun migrate --live --resume", e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  // ---- CREATE / DROP INDEX ---------------------------------------------------------------------------------------

  private void followIndexes(Connection c, TablePlan table, Set<String> now) throws SQLException {
    List<IndexPlan> indexes = new ArrayList<>(table.indexes());
    List<LiveDdl.Step> steps = new ArrayList<>();
    for (IndexPlan index : table.indexes()) {
      if (index.source() != null && !now.contains(index.source())) {
        steps.add(new LiveDdl.Step(DdlPrinter.dropIndex(plan, table, index), LiveDdl.Kind.INDEX,
            indexName(table, index), false));
        indexes.remove(index);
        described.add("index " + index.source() + " of " + table.source() + " dropped: " + index.target()
            + " dropped in Spanner");
      }
    }
    Set<String> inPlan = new HashSet<>(table.indexes().stream().map(IndexPlan::source).filter(Objects::nonNull)
        .toList());
    List<String> missing = now.stream().filter(i -> !inPlan.contains(i))
        .filter(i -> !ignoredIndexes.contains(CatalogFollower.indexKey(table.source(), i))).sorted().toList();
    if (!missing.isEmpty()) {
      TableReplan.Result replan = TableReplan.of(c, plan, table.source(), "pg2spanner").orElse(null);
      if (replan != null) {
        Map<String, String> replannedSource = new HashMap<>();
        replan.table().columns().forEach(col -> replannedSource.put(col.target(), col.source()));
        Map<String, String> currentTarget = new HashMap<>();
        table.columns().stream().filter(col -> col.source() != null)
            .forEach(col -> currentTarget.put(col.source(), col.target()));
        Set<String> names = indexNames(plan);
        for (String name : missing) {
          IndexPlan want = replan.table().indexes().stream().filter(i -> name.equals(i.source())).findFirst()
              .orElse(null);
          if (want == null) {
            ignoredIndexes.add(CatalogFollower.indexKey(table.source(), name));
            LOG.info("Index {} of {} is not planned (planning leaves it out); Spanner gets none", name,
                table.source());
            continue;
          }
          List<KeyPart> parts = new ArrayList<>();
          List<String> storing = new ArrayList<>();
          boolean mapped = true;
          boolean computed = false;
          for (KeyPart part : want.columns()) {
            String src = replannedSource.get(part.column());
            String target = src == null ? null : currentTarget.get(src);
            computed |= src == null;
            mapped &= target != null;
            parts.add(new KeyPart(target == null ? part.column() : target, part.descending()));
          }
          for (String col : want.storing()) {
            String src = replannedSource.get(col);
            String target = src == null ? null : currentTarget.get(src);
            computed |= src == null;
            mapped &= target != null;
            storing.add(target == null ? col : target);
          }
          if (!mapped) {
            if (computed) {
              ignoredIndexes.add(CatalogFollower.indexKey(table.source(), name));
              described.add("index " + name + " of " + table.source() + " created on the source: not followed, as "
                  + "the planner puts a column Spanner computes into it (create it in Spanner yourself)");
            }
            continue; // a column it needs is not in the plan yet: its Relation message has not arrived
          }
          String target = want.target();
          for (int n = 2; names.contains(target.toLowerCase(Locale.ROOT)); n++) {
            target = want.target() + "_" + n;
          }
          names.add(target.toLowerCase(Locale.ROOT));
          IndexPlan index = new IndexPlan(want.source(), target, parts, want.unique(), want.nullFiltered(), storing,
              null);
          steps.add(new LiveDdl.Step(DdlPrinter.createIndex(plan, table, index), LiveDdl.Kind.INDEX,
              indexName(table, index), true));
          indexes.add(index);
          described.add("index " + name + " of " + table.source() + " created: " + (index.unique() ? "UNIQUE " : "")
              + "INDEX " + target + " (" + String.join(", ", parts.stream().map(KeyPart::column).toList())
              + ") created in Spanner");
        }
      }
    }
    if (!indexes.equals(table.indexes())) {
      statements.addAll(LiveDdl.applySteps(ctx, steps, "indexes of " + table.source()));
      plan = plan.withTable(with(table, indexes, table.foreignKeys()));
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  private static TablePlan with(TablePlan t, List<IndexPlan> indexes, List<ForeignKeyPlan> foreignKeys) {
    return new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), t.columns(),
        t.primaryKey(), t.keyStrategy(), t.interleave(), indexes, foreignKeys, t.checks(), t.findings(),
        t.splitPoints(), t.rowHash());
  }

  /** Every index name and table name of the plan, lower-case (Spanner's names are case-insensitive). */
  private static Set<String> indexNames(Plan plan) {
    Set<String> names = new HashSet<>();
    for (TablePlan t : plan.tables()) {
      names.add(t.target().toLowerCase(Locale.ROOT));
      t.indexes().forEach(i -> names.add(i.target().toLowerCase(Locale.ROOT)));
    }
    return names;
  }

  private static String indexName(TablePlan table, IndexPlan index) {
    return index.target().indexOf('.') >= 0 || table.targetSchema() == null ? index.target()
        : table.targetSchema() + "." + index.target();
  }

  private static String qualified(TablePlan table, String constraint) {
    return table.targetSchema() == null ? constraint : table.targetSchema() + "." + constraint;
  }

  /** @param wayOn how to go on, in words: each continues the live run with --resume once the source is mended */
  private static Pg2SpannerException cannot(String table, String change, String wayOn) {
    return new Pg2SpannerException(ExitCode.PLAN_INVALID, NextStep.RESUME,
        "the source table " + table + " changed while the planned "
        + "schemas streamed: " + change + ". pg2spanner cannot follow that in Spanner, so streaming stopped before "
        + "applying it (nothing was lost: the slot keeps every change). The way on: " + wayOn);
  }
}
