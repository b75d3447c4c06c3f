package dev.pg2spanner.planner;

import dev.pg2spanner.catalog.CatalogFingerprint;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgObject;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.expression.ColumnRef;
import dev.pg2spanner.expression.ExpressionTranslator;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.expression.Translation;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.hotspot.KeySample;
import dev.pg2spanner.mapping.ColumnEvidence;
import dev.pg2spanner.mapping.MappingNote;
import dev.pg2spanner.mapping.ProbedValues;
import dev.pg2spanner.mapping.TypeMapper;
import dev.pg2spanner.mapping.TypeMapping;
import dev.pg2spanner.naming.NamePlan;
import dev.pg2spanner.plan.CheckPlan;
import dev.pg2spanner.plan.ColumnPlan;
import dev.pg2spanner.plan.ForeignKeyPlan;
import dev.pg2spanner.plan.IndexPlan;
import dev.pg2spanner.plan.Interleave;
import dev.pg2spanner.plan.InterleaveTree;
import dev.pg2spanner.plan.KeyConsequences;
import dev.pg2spanner.plan.KeyPart;
import dev.pg2spanner.plan.KeyStrategy;
import dev.pg2spanner.plan.Plan;
import dev.pg2spanner.plan.RowHash;
import dev.pg2spanner.plan.TablePlan;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerLimits;
import dev.pg2spanner.spanner.SpannerNames;
import dev.pg2spanner.spanner.SpannerType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns the catalog (plus value evidence) into a {@link Plan}: types, names, keys, interleaving, constraints,
 * deferred indexes and foreign keys, and a finding for everything a person should know. A pure function of its
 * inputs: the same catalog and evidence give the same plan.
 */
public final class Planner {

  /**
   * The limits the design is made within (the dialect-free part of them; the PostgreSQL dialect's differences are
   * applied by {@link PostgresDialectPlan}).
   */
  private static final SpannerLimits LIMITS = SpannerLimits.GOOGLE_STANDARD_SQL;

  private final PlannerOptions options;

  public Planner(PlannerOptions options) {
    this.options = options;
  }

  /**
   * @param catalog what the source holds
   * @param evidence per table ("schema.name") and column, the values examined; missing entries mean none
   */
  public Plan plan(PlanInputs inputs) {
    PgCatalog catalog = inputs.catalog();
    NamePlan names = NamePlan.of(catalog, options.namedSchemas());
    // Keys whose values Spanner cannot hold get a synthetic key: such a table can neither be nor have an interleaved
    // child (a child's key starts with its parent's).
    java.util.Set<String> oversizedKeys = new java.util.HashSet<>();
    inputs.keyBytes().forEach((table, keys) -> {
      if (keys.getOrDefault(KeyBytes.PRIMARY_KEY, 0L) > LIMITS.maxKeyBytes()) {
        oversizedKeys.add(table);
      }
    });
    InterleaveAnalyzer.Result interleaving = InterleaveAnalyzer.analyze(catalog, options.interleaveWithoutRenames(),
        oversizedKeys);
    ColumnNames columnNames = ColumnNames.of(catalog, names, interleaving);

    List<TablePlan> tables = new ArrayList<>();
    Map<String, TableExpressions> expressions = new HashMap<>();
    for (PgTable table : catalog.tables()) {
      TableExpressions typed = new TableExpressions();
      expressions.put(table.qualifiedName(), typed);
      tables.add(planTable(table, typed, catalog, names, columnNames, interleaving,
          inputs.evidence().getOrDefault(table.qualifiedName(), Map.of()),
          inputs.probes().getOrDefault(table.qualifiedName(), Map.of()),
          inputs.keyBytes().getOrDefault(table.qualifiedName(), Map.of())));
    }

    List<Finding> global = new ArrayList<>();
    for (PgObject object : catalog.otherObjects()) {
      global.add(notMigrated(object, options.dialect()));
    }
    // Renames are attached to their table when they have one.
    Map<String, List<Finding>> tableFindings = new HashMap<>();
    for (Finding f : names.renames()) {
      if (!concerns(f, options.dialect())) {
        continue;
      }
      if (f.table() == null) {
        global.add(f);
      } else {
        tableFindings.computeIfAbsent(f.table(), k -> new ArrayList<>()).add(f);
      }
    }
    for (Finding f : interleaving.findings()) {
      tableFindings.computeIfAbsent(f.table(), k -> new ArrayList<>()).add(f);
    }
    for (Finding f : columnNames.renames().stream().filter(f -> concerns(f, options.dialect())).toList()) {
      tableFindings.computeIfAbsent(f.table(), k -> new ArrayList<>()).add(f);
    }
    List<TablePlan> withFindings = tables.stream()
        .map(t -> withExtraFindings(t, tableFindings.getOrDefault(t.source(), List.of())))
        .toList();
    KeyDesigner.Result keys = KeyDesigner.design(catalog, parentsFirst(withFindings), inputs, names, options,
        expressions);

    List<String> schemas = options.schemas().isEmpty()
        ? List.copyOf(new TreeSet<>(catalog.tables().stream().map(PgTable::schema).toList()))
        : options.schemas();
    Plan.Source source = new Plan.Source(options.endpoint(), catalog.serverVersion(), schemas,
        CatalogFingerprint.of(catalog.tables()));
    Plan.Target target = new Plan.Target(options.dialect().dialect(), options.namedSchemas(), options.nodes());
    List<TablePlan> split = keys.tables().stream().map(t -> t.withSplitPoints(SplitPoints.propose(t,
        inputs.samples().getOrDefault(t.source(), KeySample.empty(t.source())), options.nodes()))).toList();
    if (options.dialect().isPostgres()) {
      // Decided once above, in the plan's dialect; written here as the PostgreSQL dialect spells it.
      split = PostgresDialectPlan.adapt(split, keys.keyExpressions(), expressions, catalog);
    }
    return new Plan(Plan.FORMAT_VERSION, options.toolVersion(), options.generatedAt(), source, target,
        split, keys.sequences(), global);
  }

  /**
   * False for a finding that says nothing about a database in {@code dialect}: a name kept although it is a GoogleSQL
   * reserved word is quoted in the PostgreSQL dialect exactly as PostgreSQL quotes it, so the application's queries
   * already do, and there is nothing to tell.
   */
  private static boolean concerns(Finding f, SpannerDialect dialect) {
    return !(dialect.isPostgres() && f.code() == FindingCode.NAME_CHANGED
        && Boolean.TRUE.equals(f.evidence().get("reserved")));
  }

  /**
   * One table's plan, made in named steps, each on the {@link TableDraft} the steps before it filled: the order is
   * the order of the findings in the plan.
   */
  private TablePlan planTable(PgTable t, TableExpressions typed, PgCatalog catalog, NamePlan names,
      ColumnNames allColumnNames,
      InterleaveAnalyzer.Result interleaving, Map<String, ColumnEvidence> evidence,
      Map<String, List<ProbedValues>> probes, Map<String, Long> keyBytes) {
    TableDraft d = new TableDraft(t, allColumnNames.of(t), typed, options.dialect());
    mapTypes(d, evidence, probes);
    planColumns(d, names);
    planChecks(d, names);
    planKey(d, names, keyBytes.getOrDefault(KeyBytes.PRIMARY_KEY, 0L));
    InterleaveAnalyzer.Decision decision = interleaving.decisions().get(d.table);
    if (decision != null) {
      d.interleave = new Interleave(names.table(decision.parent()), decision.onDelete(), decision.foreignKey().name());
    }
    planIndexes(d, names, keyBytes);
    planForeignKeys(d, catalog, names, allColumnNames, decision);
    if (d.rowHash != null) {
      d.indexes.add(new IndexPlan(null, d.rowHash.index(), List.of(KeyPart.asc(d.rowHash.column())), false, false,
          List.of(), null));
    }
    noteTableKind(d);
    return new TablePlan(d.table, t.hasInheritanceChildren(), names.table(t), t.stats().rowEstimate(),
        t.stats().tableBytes(), d.columns, d.primaryKey, d.strategy, d.interleave, d.indexes, d.foreignKeys,
        d.checks, d.findings, List.of(), d.rowHash);
  }

  /** What {@link #planTable}'s steps have decided so far for one table. */
  private static final class TableDraft {
    final PgTable t;
    final String table;
    /** Source column name to target column name. */
    final Map<String, String> columnNames;
    final List<Finding> findings = new ArrayList<>();
    final Map<String, TypeMapping> mappings = new HashMap<>();
    /** Every column as CHECKs and generated columns may refer to it. */
    final Map<String, ColumnRef> checkColumns = new HashMap<>();
    final List<ColumnPlan> columns = new ArrayList<>();
    final List<CheckPlan> checks = new ArrayList<>();
    final List<KeyPart> primaryKey = new ArrayList<>();
    KeyStrategy strategy;
    RowHash rowHash;
    Interleave interleave;
    final List<IndexPlan> indexes = new ArrayList<>();
    final List<ForeignKeyPlan> foreignKeys = new ArrayList<>();
    /** The defaults, generated expressions and CHECKs written so far, typed. */
    final TableExpressions typed;
    /**
     * The plan's dialect: the type mapping decides in it, and findings name types and quote expressions as its DDL
     * writes them. The draft's own DDL text is GoogleSQL until {@link PostgresDialectPlan} writes it in the other.
     */
    final SpannerDialect dialect;

    TableDraft(PgTable t, Map<String, String> columnNames, TableExpressions typed, SpannerDialect dialect) {
      this.t = t;
      this.dialect = dialect;
      this.typed = typed;
      this.table = t.qualifiedName();
      this.columnNames = columnNames;
    }
  }

  /** Step 1: every column's type, first, since CHECKs and generated columns may refer to any column of the table. */
  private static void mapTypes(TableDraft d, Map<String, ColumnEvidence> evidence,
      Map<String, List<ProbedValues>> probes) {
    for (PgColumn c : d.t.columns()) {
      TypeMapping mapping = TypeMapper.afterProbe(c.type(), TypeMapper.refine(c.type(),
          TypeMapper.map(c.type(), d.dialect), evidence.get(c.name()), d.dialect), probes.get(c.name()), d.dialect);
      d.mappings.put(c.name(), mapping);
      d.checkColumns.put(c.name(), ColumnRef.named(d.columnNames.get(c.name()), c.type(), mapping.target(),
          mapping.conversion()));
    }
  }

  /** Step 2: the columns, with their type notes, defaults, generated expressions and the CHECKs their types need. */
  private static void planColumns(TableDraft d, NamePlan names) {
    PgTable t = d.t;
    SpannerDialect dialect = d.dialect;
    for (PgColumn c : t.columns()) {
      String target = d.columnNames.get(c.name());
      TypeMapping mapping = d.mappings.get(c.name());
      for (MappingNote note : mapping.notes()) {
        d.findings.add(new Finding(note.code(), note.severity(), d.table, c.name(), null, note.message(),
            note.evidence()));
      }
      boolean notNull = c.notNull() || (c.type().domainNotNull() && !c.type().array());
      SpannerExpression defaultValue = translateDefault(t, c, mapping.target(), dialect, d.findings);
      String defaultExpression = null;
      if (defaultValue != null) {
        defaultExpression = defaultValue.googleSql();
        d.typed.putDefault(target, defaultValue);
      }
      String generated = null;
      if (c.isGenerated()) {
        Translation g = ExpressionTranslator.generated(dialect, c.generatedExpression(), d.checkColumns,
            mapping.target());
        if (g.translated()) {
          generated = g.expression();
          d.typed.putGenerated(target, g.value());
        } else {
          d.findings.add(Finding.of(FindingCode.DEFAULT_NOT_TRANSLATED, d.table, c.name(), null,
              "Generated column " + c.name() + " (" + c.generatedExpression() + ") cannot be expressed in Spanner ("
                  + g.reason(dialect) + "); its current values are copied as plain data and new rows must supply them.",
              Map.of("expression", c.generatedExpression())));
        }
      }
      d.columns.add(new ColumnPlan(c.name(), c.type().display(), target, mapping.target().ddl(), notNull,
          mapping.conversion(), defaultExpression, generated));
      List<SpannerExpression> typeChecks = mapping.checksFor(target);
      for (int i = 0; i < typeChecks.size(); i++) {
        // newObject is a pure function of the desired name, so each check of a column asks for its own.
        String desired = "ck_" + names.table(t).replace('.', '_') + "_" + target + (i == 0 ? "" : "_" + (i + 1));
        String name = names.newObject(t, desired);
        d.checks.add(new CheckPlan(c.type().schema() + "." + c.type().name(), name, typeChecks.get(i).googleSql()));
        d.typed.putCheck(name, typeChecks.get(i));
      }
    }
  }

  /** Step 3: the table's own CHECKs, translated, or a finding saying why not. */
  private static void planChecks(TableDraft d, NamePlan names) {
    java.util.Set<String> generatedColumns = d.t.columns().stream().filter(PgColumn::isGenerated)
        .map(PgColumn::name).collect(java.util.stream.Collectors.toSet());
    for (PgCheck check : d.t.checks()) {
      if (!check.validated()) {
        d.findings.add(Finding.of(FindingCode.CHECK_NOT_TRANSLATED, d.table, null, check.name(),
            "CHECK " + check.name() + " is NOT VALID in PostgreSQL (existing rows may violate it), so it is not "
                + "created in Spanner, which would validate every row. Validate it in PostgreSQL first, or add it "
                + "after cleaning the data.", Map.of("expression", check.expression())));
        continue;
      }
      Translation tr = ExpressionTranslator.check(d.dialect, check.expression(), d.checkColumns,
          generatedColumns);
      if (tr.translated()) {
        String name = names.constraint(d.t, check.name());
        d.checks.add(new CheckPlan(check.name(), name, tr.expression()));
        d.typed.putCheck(name, tr.value());
      } else {
        d.findings.add(Finding.of(FindingCode.CHECK_NOT_TRANSLATED, d.table, null, check.name(),
            "CHECK " + check.name() + " (" + check.expression() + ") is not created in Spanner: "
                + tr.reason(d.dialect) + ".",
            Map.of("expression", check.expression())));
      }
    }
  }

  /**
   * Step 4: the primary key, kept as in PostgreSQL, or a synthetic UUID key when the table has none or Spanner cannot
   * hold the one it has (too many columns, or values longer than a key may be: {@code longestKey}, measured); a table
   * without a key also gets its row hash.
   */
  private static void planKey(TableDraft d, NamePlan names, long longestKey) {
    PgTable t = d.t;
    String table = d.table;
    boolean keyTooLong = t.primaryKey() != null && t.primaryKey().columns().size() <= LIMITS.maxKeyColumns()
        && longestKey > LIMITS.maxKeyBytes();
    boolean keyTooWide = t.primaryKey() != null && t.primaryKey().columns().size() > LIMITS.maxKeyColumns();
    String rowId = t.primaryKey() == null || keyTooWide || keyTooLong ? names.newColumn(t, "row_id") : null;
    if (keyTooLong) {
      // Measured from the data: Spanner refuses such a row's key, so only a new key keeps every row (issue 28).
      d.findings.add(Finding.of(FindingCode.KEY_LIMIT, table, null, t.primaryKey().name(),
          "The longest primary key (" + String.join(", ", t.primaryKey().columns()) + ") in the data is "
              + longestKey + " bytes; Spanner allows " + LIMITS.maxKeyBytes() + " bytes per key and would refuse "
              + "those rows. So that every row arrives, the plan gives " + table + " a synthetic key (a random UUID "
              + "per row) and keeps the key's columns as ordinary columns: Spanner no longer enforces their "
              + "uniqueness, and the table is not interleaved. To keep a natural key instead, shorten those values "
              + "in the source (or key a hash of them) and plan again. "
              + KeyConsequences.inFinding(KeyConsequences.synthetic(rowId)),
          Map.of("longestKeyBytes", longestKey, "limitBytes", LIMITS.maxKeyBytes()))
          .withSeverity(dev.pg2spanner.finding.Severity.WARNING));
    }
    if (keyTooWide) {
      // A plan migrate would refuse is no plan: a valid design instead, with the reason (issue 15).
      d.findings.add(Finding.of(FindingCode.KEY_LIMIT, table, null, t.primaryKey().name(),
          "The primary key has " + t.primaryKey().columns().size() + " columns; Spanner allows "
              + LIMITS.maxKeyColumns() + ". The plan gives " + table + " a synthetic key (a random UUID per row) "
              + "instead and keeps the " + t.primaryKey().columns().size() + " columns as ordinary columns: Spanner "
              + "no longer enforces their uniqueness (a unique index allows " + LIMITS.maxKeyColumns()
              + " key columns too), and the table is not interleaved. "
              + KeyConsequences.inFinding(KeyConsequences.synthetic(rowId)),
          Map.of("columns", t.primaryKey().columns().size(), "limit", LIMITS.maxKeyColumns()))
          .withSeverity(dev.pg2spanner.finding.Severity.WARNING));
    }
    if (rowId == null) {
      for (String c : t.primaryKey().columns()) {
        d.primaryKey.add(KeyPart.asc(d.columnNames.get(c)));
      }
      d.strategy = KeyStrategy.keep("the key is kept as in PostgreSQL");
      return;
    }
    // KeyDraft records this default as typed (a synthetic key's column), for the PostgreSQL dialect.
    d.columns.add(0, new ColumnPlan(null, null, rowId, SpannerType.string(36).ddl(), true, ValueConversion.SYNTHETIC,
        dev.pg2spanner.plan.KeyDefault.UUID.expression(SpannerDialect.GOOGLE_STANDARD_SQL), null));
    d.primaryKey.add(KeyPart.asc(rowId));
    d.strategy = KeyStrategy.synthetic((keyTooWide ? "the primary key has more columns than Spanner allows"
        : keyTooLong ? "the primary key's values are longer than Spanner allows"
        : "the table has no primary key") + "; a random UUID key " + rowId + " is added (rows are never "
        + "deduplicated)");
    if (keyTooWide || keyTooLong) {
      return;
    }
    RowHash rowHash = rowHash(t, names, d.columns);
    d.rowHash = rowHash;
    d.findings.add(Finding.of(FindingCode.NO_PRIMARY_KEY, table, null, null,
        table + " has no primary key. Spanner needs one, so the plan adds " + rowId + " "
            + SpannerType.string(36).ddl(d.dialect) + " holding a random UUID per row: random keys spread writes, and "
            + "nothing is deduplicated. "
            + KeyConsequences.inFinding(KeyConsequences.synthetic(rowId)) + (rowHash == null ? "" : " It also adds "
            + rowHash.column() + " " + SpannerType.INT64.ddl(d.dialect) + ", a hash of each row's values, with the index " + rowHash.index()
            + ": a live migration finds the row an update or delete changes through it instead of scanning the "
            + "table (the change names no key). Both may be dropped after cutover; the application's own writes "
            + "leave the column NULL."),
        Map.of("rows", t.stats().rowEstimate() == null ? "unknown" : t.stats().rowEstimate())));
  }

  /** Step 5: the secondary indexes (created after the load), with their findings; one whose keys are too long is not. */
  private static void planIndexes(TableDraft d, NamePlan names, Map<String, Long> keyBytes) {
    for (PgIndex index : d.t.indexes()) {
      long longestIndexKey = keyBytes.getOrDefault(index.name(), 0L);
      if (longestIndexKey > LIMITS.maxKeyBytes() && indexMigrates(index, d.columns, d.columnNames)) {
        d.findings.add(indexKeyTooLong(d.t, index, longestIndexKey, d.dialect));
        continue;
      }
      planIndex(d.t, index, names, d.columnNames, d.columns, d.primaryKey).ifPresent(d.indexes::add);
      d.findings.addAll(indexFindings(d.t, index, d.columns, d.primaryKey, d.dialect));
    }
  }

  /** Step 6: the foreign keys, except the one the table is interleaved by ({@code decision}, may be null). */
  private static void planForeignKeys(TableDraft d, PgCatalog catalog, NamePlan names, ColumnNames allColumnNames,
      InterleaveAnalyzer.Decision decision) {
    for (PgForeignKey fk : d.t.foreignKeys()) {
      if (decision != null && decision.foreignKey().name().equals(fk.name())) {
        continue;
      }
      planForeignKey(d.t, fk, catalog, names, allColumnNames, d.findings).ifPresent(d.foreignKeys::add);
    }
  }

  /** Step 7: what the table's kind means for the migration (partitioned, inherited from, never analyzed). */
  private static void noteTableKind(TableDraft d) {
    PgTable t = d.t;
    String table = d.table;
    if (t.kind() == PgTable.Kind.PARTITIONED && t.partitioning() != null) {
      d.findings.add(Finding.of(FindingCode.PARTITIONED_TABLE, table, null, null,
          table + " is partitioned (" + t.partitioning().key() + ", " + t.partitioning().partitions().size()
              + " partitions); it becomes one Spanner table, which splits by key on its own. Its rows are read "
              + "through the parent.",
          Map.of("partitionKey", t.partitioning().key(), "partitions", t.partitioning().partitions())));
    }
    if (t.hasInheritanceChildren()) {
      d.findings.add(Finding.of(FindingCode.INHERITANCE, table, null, null,
          table + " has tables that INHERIT from it; only its own rows are migrated into it (read with FROM ONLY), "
              + "and each child table migrates as a table of its own.", Map.of()));
    }
    if (t.stats().rowEstimate() == null) {
      d.findings.add(Finding.of(FindingCode.STATISTICS_MISSING, table, null, null,
          table + " has never been analyzed, so row counts and column correlation (hotspot evidence) are unknown.",
          Map.of()));
    }
  }

  /**
   * The row hash of a table planned without a primary key (issue 30): an added nullable INT64 column, named so that it
   * collides with none of the table's columns, over every column the loader writes now; the index on it is added with
   * the table's other indexes (so created after the load). Adds the column to {@code columns}. Null when the table
   * has no column to hash or no room for another column.
   */
  private static RowHash rowHash(PgTable t, NamePlan names, List<ColumnPlan> columns) {
    List<String> hashed = columns.stream().filter(ColumnPlan::isLoaded).map(ColumnPlan::target).toList();
    if (hashed.isEmpty() || columns.size() >= LIMITS.maxColumnsPerTable()) {
      return null; // nothing to hash, or no room for one more column: changes are found by a scan
    }
    String column = names.newColumn(t, RowHash.DESIRED_COLUMN);
    columns.add(new ColumnPlan(null, null, column, "INT64", false, ValueConversion.SYNTHETIC,
        null, null));
    String table = names.table(t);
    int dot = table.indexOf('.');
    String index = names.newObject(t, "ix_" + table.substring(dot + 1) + "_" + column);
    return new RowHash(column, dot < 0 ? index : table.substring(0, dot) + "." + index, hashed);
  }

  /** The column's DEFAULT translated, or null (with a finding saying why, when there was one to translate). */
  private static SpannerExpression translateDefault(PgTable t, PgColumn c, SpannerType target, SpannerDialect dialect,
      List<Finding> findings) {
    if (c.identity() != PgColumn.Identity.NONE || c.sequence() != null) {
      findings.add(Finding.of(FindingCode.DEFAULT_NOT_TRANSLATED, t.qualifiedName(), c.name(), null,
          "Column " + c.name() + " takes new values from sequence " + c.sequence() + ". Spanner has no ordered "
              + "sequences; the key strategy decides where new values come from (see the key decision for this "
              + "table). Existing values are copied unchanged.",
          c.sequence() == null ? Map.of("identity", c.identity().name()) : Map.of("sequence", c.sequence())));
      return null;
    }
    if (c.defaultExpression() == null) {
      return null;
    }
    Translation tr = ExpressionTranslator.defaultValue(dialect, c.defaultExpression(), c.type(), target);
    if (tr.translated()) {
      // Quoted as the plan's dialect writes it; one that dialect cannot hold is reported as not created instead
      // (PostgresDialectPlan), so there is nothing to say here about how it differs.
      java.util.Optional<String> created = tr.in(dialect);
      if (tr.reason() != null && created.isPresent()) {
        // A wall-clock column filled with the UTC clock: new rows no longer line up with the migrated ones.
        boolean misaligned = tr.reason().contains("without time zone");
        findings.add(Finding.of(FindingCode.DEFAULT_CHANGED, t.qualifiedName(), c.name(), null,
            "The default of " + c.name() + " (" + c.defaultExpression() + ") is created as " + created.get()
                + ", but " + tr.reason(dialect) + ".", Map.of("expression", c.defaultExpression(),
                "translation", created.get()))
            .withSeverity(misaligned ? dev.pg2spanner.finding.Severity.WARNING : dev.pg2spanner.finding.Severity.INFO));
      }
      return tr.value();
    }
    findings.add(Finding.of(FindingCode.DEFAULT_NOT_TRANSLATED, t.qualifiedName(), c.name(), null,
        "The default of " + c.name() + " (" + c.defaultExpression() + ") is not created in Spanner: "
            + tr.reason(dialect) + ". New rows must supply the value.", Map.of("expression", c.defaultExpression())));
    return null;
  }

  private static java.util.Optional<IndexPlan> planIndex(PgTable t, PgIndex index, NamePlan names,
      Map<String, String> columnNames, List<ColumnPlan> columns, List<KeyPart> primaryKey) {
    if (!indexMigrates(index, columns, columnNames)) {
      return java.util.Optional.empty();
    }
    List<KeyPart> parts = new ArrayList<>();
    boolean anyNullable = false;
    for (PgIndex.Element e : index.elements()) {
      String target = columnNames.get(e.column());
      if (parts.stream().anyMatch(p -> p.column().equals(target))) {
        continue; // a repeated column adds nothing to the key, and Spanner refuses it (indexFindings says so)
      }
      parts.add(new KeyPart(target, e.descending()));
      anyNullable |= columns.stream().anyMatch(c -> c.target().equals(target) && !c.notNull());
    }
    boolean notNullPredicate = index.predicate() != null && isNotNullPredicate(index.predicate(), index);
    // PostgreSQL unique indexes treat NULLs as distinct; a Spanner unique index treats them as equal values, so
    // only NULL_FILTERED keeps rows with NULLs from colliding. NULLS NOT DISTINCT means the plain form.
    boolean nullFiltered = notNullPredicate || (index.unique() && anyNullable && !index.nullsNotDistinct());
    List<String> keyTargets = parts.stream().map(KeyPart::column).toList();
    List<String> pkTargets = primaryKey.stream().map(KeyPart::column).toList();
    List<String> storing = index.include().stream().map(columnNames::get)
        .filter(c -> !keyTargets.contains(c) && !pkTargets.contains(c)).toList();
    return java.util.Optional.of(new IndexPlan(index.name(), names.index(t, index.name()), parts, index.unique(),
        nullFiltered, storing, null));
  }

  private static boolean indexMigrates(PgIndex index, List<ColumnPlan> columns, Map<String, String> columnNames) {
    if (!index.valid()) {
      return false;
    }
    if (!index.method().equals("btree") && !index.method().equals("hash")) {
      return false;
    }
    if (index.elements().stream().anyMatch(PgIndex.Element::isExpression)) {
      return false;
    }
    if (index.elements().size() > LIMITS.maxIndexKeyColumns()) {
      return false;
    }
    for (PgIndex.Element e : index.elements()) {
      String target = columnNames.get(e.column());
      ColumnPlan c = columns.stream().filter(p -> p.target().equals(target)).findFirst().orElse(null);
      if (c == null || c.targetType().startsWith("ARRAY") || c.targetType().equals("JSON")) {
        return false;
      }
    }
    // A partial index Spanner cannot express: a unique one would forbid rows PostgreSQL allows, so it is left out;
    // a plain one is created over all rows (bigger, never wrong).
    return index.predicate() == null || isNotNullPredicate(index.predicate(), index) || !index.unique();
  }

  private static List<Finding> indexFindings(PgTable t, PgIndex index, List<ColumnPlan> columns,
      List<KeyPart> primaryKey, SpannerDialect dialect) {
    String table = t.qualifiedName();
    List<Finding> out = new ArrayList<>();
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("definition", index.definition());
    String why = null;
    if (!index.valid()) {
      why = "it is INVALID in PostgreSQL (a failed CREATE INDEX CONCURRENTLY); rebuild it there if it is needed";
    } else if (!index.method().equals("btree") && !index.method().equals("hash")) {
      why = index.method().toUpperCase(java.util.Locale.ROOT) + " indexes have no Spanner equivalent"
          + (index.method().equals("gin") ? "; for text search consider a TOKENLIST column with a SEARCH INDEX" : "");
    } else if (index.elements().stream().anyMatch(PgIndex.Element::isExpression)) {
      why = "it indexes an expression; Spanner indexes columns only (add a STORED generated column and index it)";
    } else if (index.elements().size() > LIMITS.maxIndexKeyColumns()) {
      why = "it has more than " + LIMITS.maxIndexKeyColumns() + " key columns";
    } else if (index.predicate() != null && !isNotNullPredicate(index.predicate(), index) && index.unique()) {
      why = "it is a partial UNIQUE index (WHERE " + index.predicate() + "); Spanner cannot limit uniqueness to "
          + "some rows, and a full unique index would reject rows PostgreSQL accepts";
    }
    if (why == null) {
      for (PgIndex.Element e : index.elements()) {
        ColumnPlan c = columns.stream().filter(p -> e.column().equals(p.source())).findFirst().orElse(null);
        if (c != null && (c.targetType().startsWith("ARRAY") || c.targetType().equals("JSON"))) {
          why = "column " + e.column() + " becomes " + SpannerType.parse(c.targetType()).ddl(dialect)
              + ", which Spanner cannot index";
        }
      }
    }
    if (why != null) {
      out.add(Finding.of(FindingCode.NOT_MIGRATED, table, null, index.name(),
          FindingCode.NOT_MIGRATED.message("Index " + index.name(), why), ev));
      return out;
    }
    List<String> repeated = repeatedColumns(index);
    if (!repeated.isEmpty()) {
      out.add(Finding.of(FindingCode.INDEX_CHANGED, table, null, index.name(),
          "Index " + index.name() + " lists " + String.join(", ", repeated) + " more than once in its key; Spanner "
              + "refuses a repeated key column, so the plan keeps only the first occurrence: the index holds and "
              + "orders the same rows (a second occurrence only breaks ties the first already broke).", ev));
    }
    if (index.method().equals("hash")) {
      out.add(Finding.of(FindingCode.INDEX_CHANGED, table, null, index.name(),
          "HASH index " + index.name() + " becomes an ordinary Spanner index (it serves the same equality lookups).",
          ev));
    }
    if (index.predicate() != null && !isNotNullPredicate(index.predicate(), index)) {
      out.add(Finding.of(FindingCode.INDEX_CHANGED, table, null, index.name(),
          "Partial index " + index.name() + " (WHERE " + index.predicate() + ") becomes a full index over every row: "
              + "Spanner can only filter NULLs. It is larger, and every write to the table maintains it.", ev));
    }
    if (index.unique() && !index.nullsNotDistinct() && index.predicate() == null) {
      boolean anyNullable = index.elements().stream().anyMatch(e -> columns.stream()
          .anyMatch(c -> e.column().equals(c.source()) && !c.notNull()));
      if (anyNullable) {
        out.add(Finding.of(FindingCode.INDEX_CHANGED, table, null, index.name(),
            "Unique index " + index.name() + " covers nullable columns, so it becomes UNIQUE NULL_FILTERED: like "
                + "PostgreSQL, rows with a NULL in the key never collide (and are not in the index).", ev));
      }
    }
    if (index.stats().scans() != null && index.stats().scans() == 0 && !index.unique()) {
      ev.put("idxScan", 0);
      ev.put("bytes", index.stats().bytes());
      out.add(Finding.of(FindingCode.UNUSED_INDEX, table, null, index.name(),
          "Index " + index.name() + " has not been used since statistics were reset (idx_scan = 0).", ev));
    }
    return out;
  }

  /**
   * An index whose longest key in the data is over Spanner's limit: Spanner would refuse to build it after the load
   * (the emulator does too), so the plan leaves it out by default and proposes what keeps its lookups.
   */
  private static Finding indexKeyTooLong(PgTable t, PgIndex index, long longestKey, SpannerDialect dialect) {
    List<String> columns = index.elements().stream().map(PgIndex.Element::column).distinct().toList();
    String first = columns.get(0);
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("definition", index.definition());
    ev.put("longestKeyBytes", longestKey);
    ev.put("limitBytes", LIMITS.maxKeyBytes());
    return Finding.of(FindingCode.KEY_LIMIT, t.qualifiedName(), null, index.name(),
        "Index " + index.name() + " on (" + String.join(", ", columns) + ") has keys of up to " + longestKey
            + " bytes in the data (its columns plus the primary key, which Spanner stores in every index entry); "
            + "Spanner allows " + LIMITS.maxKeyBytes() + " bytes per key and would refuse to build it after the "
            + "load. The plan leaves the index out, so the table and every row migrate"
            + (index.unique() ? ", but Spanner no longer enforces the uniqueness of (" + String.join(", ", columns)
                + ")" : "")
            + ". To keep its lookups, index a hash of the value instead (a STORED generated column such as "
            + hashColumn(first, dialect) + " with " + (index.unique() ? "a UNIQUE" : "an") + " index on it, queried "
            + "with the same expression), or a prefix (" + (dialect.isPostgres() ? "substr(" : "SUBSTR(")
            + SpannerNames.quote(dialect, first) + ", 1, 1000) in a generated column, then filter on the full "
            + "value): add it to plan.yaml's columns and indexes.", ev)
        .withSeverity(dev.pg2spanner.finding.Severity.WARNING);
  }

  /** A column holding the SHA-256 of text column {@code column}, as {@code dialect}'s DDL writes it. */
  private static String hashColumn(String column, SpannerDialect dialect) {
    String hash = SpannerNames.quote(dialect, column + "_sha256");
    String source = SpannerNames.quote(dialect, column);
    return dialect.isPostgres() ? hash + " bytea holding the SHA-256 of " + source
        : hash + " BYTES(32) AS (SHA256(" + source + "))";
  }

  /** The columns an index lists more than once in its key, in the order of their repeats. */
  private static List<String> repeatedColumns(PgIndex index) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    java.util.Set<String> repeated = new java.util.LinkedHashSet<>();
    for (PgIndex.Element e : index.elements()) {
      if (!e.isExpression() && !seen.add(e.column())) {
        repeated.add(e.column());
      }
    }
    return List.copyOf(repeated);
  }

  /** True for predicates of the form "col IS NOT NULL [AND col IS NOT NULL ...]" over the index's key columns. */
  static boolean isNotNullPredicate(String predicate, PgIndex index) {
    List<String> keyColumns = index.elements().stream().map(PgIndex.Element::column).toList();
    return ExpressionTranslator.notNullColumns(predicate).filter(keyColumns::containsAll).isPresent();
  }

  private static java.util.Optional<ForeignKeyPlan> planForeignKey(PgTable t, PgForeignKey fk, PgCatalog catalog,
      NamePlan names, ColumnNames allColumnNames, List<Finding> findings) {
    Map<String, String> columnNames = allColumnNames.of(t);
    String table = t.qualifiedName();
    PgTable referenced = catalog.table(fk.referencedSchema(), fk.referencedTable()).orElse(null);
    if (referenced == null) {
      findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, table, null, fk.name(),
          "Foreign key " + fk.name() + " is not created: it references " + fk.referencedQualifiedName()
              + ", which is not part of this migration.", Map.of("references", fk.referencedQualifiedName())));
      return java.util.Optional.empty();
    }
    Interleave.OnDelete onDelete;
    switch (fk.onDelete()) {
      case CASCADE -> onDelete = Interleave.OnDelete.CASCADE;
      case NO_ACTION, RESTRICT -> onDelete = Interleave.OnDelete.NO_ACTION;
      default -> {
        onDelete = Interleave.OnDelete.NO_ACTION;
        findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, table, null, fk.name(),
            "Foreign key " + fk.name() + " has ON DELETE " + fk.onDelete().name().replace('_', ' ') + ", which Spanner "
                + "does not support; it becomes ON DELETE NO ACTION, so deleting a referenced row now fails while "
                + "references exist. Clear the references in the application first (or choose CASCADE in plan.yaml).",
            Map.of("onDelete", fk.onDelete().name())));
      }
    }
    if (fk.onUpdate() != PgForeignKey.Action.NO_ACTION && fk.onUpdate() != PgForeignKey.Action.RESTRICT) {
      findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, table, null, fk.name(),
          "Foreign key " + fk.name() + " has ON UPDATE " + fk.onUpdate().name().replace('_', ' ') + "; Spanner "
              + "foreign keys have no ON UPDATE action (key columns cannot be updated in place).",
          Map.of("onUpdate", fk.onUpdate().name())));
    }
    if (!fk.validated()) {
      findings.add(Finding.of(FindingCode.FOREIGN_KEY_CHANGED, table, null, fk.name(),
          "Foreign key " + fk.name() + " is NOT VALID in PostgreSQL; Spanner validates every row when it creates the "
              + "key, so the migration fails at the foreign-key phase if rows violate it. Validate it first "
              + "(ALTER TABLE ... VALIDATE CONSTRAINT) or delete it from plan.yaml.", Map.of()));
    }
    Map<String, String> referencedNames = allColumnNames.of(referenced);
    return java.util.Optional.of(new ForeignKeyPlan(fk.name(), names.constraint(t, fk.name()),
        fk.columns().stream().map(columnNames::get).toList(), names.table(referenced),
        fk.referencedColumns().stream().map(referencedNames::get).toList(), onDelete));
  }

  private static Finding notMigrated(PgObject o, SpannerDialect dialect) {
    String name = (o.schema() == null ? "" : o.schema() + ".") + o.name();
    String kind = o.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    String advice = switch (o.kind()) {
      case VIEW -> "recreate it with CREATE VIEW ... SQL SECURITY INVOKER after migrate ("
          + (dialect.isPostgres() ? "in the PostgreSQL dialect" : "GoogleSQL syntax") + ")";
      case MATERIALIZED_VIEW -> "Spanner has no materialized views: use a table maintained by the application, or "
          + "a view";
      case TRIGGER, EVENT_TRIGGER, RULE -> "Spanner has no triggers: move its logic into the application (or a "
          + "change stream consumer)";
      case FUNCTION, PROCEDURE, AGGREGATE -> "Spanner has no user-defined server code: move its logic into the "
          + "application";
      case POLICY -> "Spanner has no row-level security: use fine-grained access control (roles on tables/columns) "
          + "or enforce it in the application";
      case EXTENSION -> "extensions do not exist in Spanner; columns of extension types are listed per table";
      case EXCLUDED_TABLE -> "left out on purpose by plan " + o.detail() + ": neither its table nor its rows are "
          + "migrated (plan without that expression to include it)";
      case FOREIGN_TABLE -> o.on() == null ? "its rows live on another server; Spanner has no foreign tables"
          : "Spanner has no foreign tables. Its rows ARE migrated: it is a partition of " + o.on() + ", read "
              + "through its foreign server and loaded into " + o.on() + "'s Spanner table like every other partition";
      default -> "it has no Spanner equivalent";
    };
    Severity severity = o.kind() == PgObject.Kind.EXTENSION || o.kind() == PgObject.Kind.EXCLUDED_TABLE
        || (o.kind() == PgObject.Kind.FOREIGN_TABLE && o.on() != null) ? Severity.INFO : Severity.WARNING;
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("kind", o.kind().name());
    evidence.put("object", name);
    if (o.on() != null) {
      evidence.put("on", o.on());
    }
    if (o.detail() != null) {
      evidence.put("detail", o.detail());
    }
    String subject = o.kind() == PgObject.Kind.FOREIGN_TABLE && o.on() != null
        ? "The definition of foreign table " + name + " (server, user mapping, options)"
        : capitalise(kind) + " " + name + (o.on() == null ? "" : " on " + o.on());
    return new Finding(FindingCode.NOT_MIGRATED, severity, o.on(), null, null,
        FindingCode.NOT_MIGRATED.message(subject, advice), evidence);
  }

  private static TablePlan withExtraFindings(TablePlan t, List<Finding> extra) {
    if (extra.isEmpty()) {
      return t;
    }
    List<Finding> all = new ArrayList<>(t.findings());
    all.addAll(extra);
    return new TablePlan(t.source(), t.readOnly(), t.target(), t.rowsEstimate(), t.bytesEstimate(), t.columns(),
        t.primaryKey(), t.keyStrategy(), t.interleave(), t.indexes(), t.foreignKeys(), t.checks(), all,
        t.splitPoints(), t.rowHash());
  }

  /** Parents before interleaved children; otherwise the catalog's (schema, name) order. */
  static List<TablePlan> parentsFirst(List<TablePlan> tables) {
    Map<String, TablePlan> byTarget = new LinkedHashMap<>();
    tables.stream().sorted(Comparator.comparing(TablePlan::source)).forEach(t -> byTarget.put(t.target(), t));
    return InterleaveTree.of(List.copyOf(byTarget.values())).parentsFirst().stream().map(byTarget::get).toList();
  }

  private static String capitalise(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
