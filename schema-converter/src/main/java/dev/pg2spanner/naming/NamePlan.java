package dev.pg2spanner.naming;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgCheck;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgUniqueConstraint;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Every Spanner name the plan uses, computed once for the whole catalog: legal, at most 128 characters, and
 * free of case-insensitive collisions.
 *
 * <p>Spanner puts tables, indexes, constraints and sequences of one schema in one case-insensitive namespace,
 * while PostgreSQL gives indexes a namespace per schema and constraints one per table, and lets schemas reuse
 * table names. Collisions are resolved deterministically: claimants are ordered by kind (tables keep their
 * names before sequences, indexes and constraints do), then names legal as they are before sanitised ones,
 * then by source identity; the first keeps the name, the next ones get {@code _2}, {@code _3}, ... Names that
 * are already legal are never changed for any other reason (case kept; reserved words kept and back-quoted by
 * {@link SpannerNames#quote}).
 *
 * <p>Constraint names are additionally kept unique across all schemas: whether Spanner scopes them by named
 * schema is not something this plan should bet a migration on.
 *
 * <p>Immutable and thread-safe.
 */
public final class NamePlan {

  /** PostgreSQL's default schema: its tables go to Spanner's default schema, unprefixed. */
  public static final String PUBLIC = "public";

  private static final String DEFAULT_SCHEMA = "";
  private static final String CONSTRAINT_SPACE = "#constraint.";
  private static final String SCHEMA_SPACE = "#schema.";
  private static final int RANK_TABLE = 0;
  private static final int RANK_SEQUENCE = 1;
  private static final int RANK_INDEX = 2;
  private static final int RANK_CONSTRAINT = 3;

  /** Schema names Spanner keeps for itself. */
  private static final Set<String> SPANNER_SCHEMAS = Set.of("information_schema", "spanner_sys");

  private record TableId(String schema, String name) {
    static TableId of(PgTable t) {
      return new TableId(t.schema(), t.name());
    }
  }

  private record ObjectId(TableId table, String name) {}

  private final boolean namedSchemas;
  /** PostgreSQL schema → Spanner named schema; absent for public and whenever named schemas are off. */
  private final Map<String, String> schemas;
  private final Map<TableId, String> tables;
  private final Map<TableId, Map<String, String>> columns;
  private final Map<ObjectId, String> indexes;
  private final Map<ObjectId, String> constraints;
  private final Map<String, String> sequences;
  /** Every collision key taken in the schema namespaces (and the global constraint namespace). */
  private final Set<String> objectKeys;
  private final List<Finding> renames;

  private NamePlan(boolean namedSchemas, Map<String, String> schemas, Map<TableId, String> tables,
      Map<TableId, Map<String, String>> columns, Map<ObjectId, String> indexes, Map<ObjectId, String> constraints,
      Map<String, String> sequences, Set<String> objectKeys, List<Finding> renames) {
    this.namedSchemas = namedSchemas;
    this.schemas = Map.copyOf(schemas);
    this.tables = Map.copyOf(tables);
    Map<TableId, Map<String, String>> cols = new HashMap<>();
    columns.forEach((k, v) -> cols.put(k, Map.copyOf(v)));
    this.columns = Map.copyOf(cols);
    this.indexes = Map.copyOf(indexes);
    this.constraints = Map.copyOf(constraints);
    this.sequences = Map.copyOf(sequences);
    this.objectKeys = Set.copyOf(objectKeys);
    this.renames = List.copyOf(renames);
  }

  /**
   * Computes every name for the catalog's tables (with their columns, indexes, unique constraints, foreign keys
   * and checks) and sequences.
   *
   * @param catalog the source catalog, not null
   * @param namedSchemas true: non-public PostgreSQL schemas become Spanner named schemas; false: their tables,
   *     indexes and sequences get the schema name as a prefix
   */
  public static NamePlan of(PgCatalog catalog, boolean namedSchemas) {
    Objects.requireNonNull(catalog, "catalog");
    List<Finding> schemaFindings = new ArrayList<>();
    Map<String, String> schemas = namedSchemas ? assignSchemas(catalog, schemaFindings) : Map.of();

    List<Namespace.Claim> claims = new ArrayList<>();
    Map<Namespace.Claim, TableId> tableClaims = new HashMap<>();
    Map<Namespace.Claim, ObjectId> indexClaims = new HashMap<>();
    Map<Namespace.Claim, ObjectId> constraintClaims = new HashMap<>();
    Map<Namespace.Claim, PgSequence> sequenceClaims = new HashMap<>();

    for (PgTable t : catalog.tables()) {
      String space = space(schemas, t.schema());
      Namespace.Claim table = new Namespace.Claim(RANK_TABLE, identity(t.schema(), t.name()),
          "table " + t.qualifiedName(), t.name(), wantedName(t.schema(), t.name(), "t", namedSchemas), objectKeys(space));
      claims.add(table);
      tableClaims.put(table, TableId.of(t));

      Set<String> indexNames = new LinkedHashSet<>();
      t.indexes().stream().map(PgIndex::name).forEach(indexNames::add);
      t.uniqueConstraints().stream().map(PgUniqueConstraint::name).forEach(indexNames::add);
      for (String index : indexNames) {
        Namespace.Claim c = new Namespace.Claim(RANK_INDEX, identity(t.schema(), t.name(), index),
            "index " + index + " on " + t.qualifiedName(), index, wantedName(t.schema(), index, "i", namedSchemas),
            objectKeys(space));
        claims.add(c);
        indexClaims.put(c, new ObjectId(TableId.of(t), index));
      }

      Set<String> constraintNames = new LinkedHashSet<>();
      t.foreignKeys().stream().map(PgForeignKey::name).forEach(constraintNames::add);
      t.checks().stream().map(PgCheck::name).forEach(constraintNames::add);
      for (String constraint : constraintNames) {
        // A constraint is written inside its table's DDL: no schema prefix, just a legal, unique name.
        Namespace.Claim c = new Namespace.Claim(RANK_CONSTRAINT, identity(t.schema(), t.name(), constraint),
            "constraint " + constraint + " on " + t.qualifiedName(), constraint, Identifier.sanitize(constraint, "k"),
            constraintKeys(space));
        claims.add(c);
        constraintClaims.put(c, new ObjectId(TableId.of(t), constraint));
      }
    }
    for (PgSequence s : catalog.sequences()) {
      Namespace.Claim c = new Namespace.Claim(RANK_SEQUENCE, identity(s.schema(), s.name()),
          "sequence " + s.qualifiedName(), s.name(), wantedName(s.schema(), s.name(), "s", namedSchemas),
          objectKeys(space(schemas, s.schema())));
      claims.add(c);
      sequenceClaims.put(c, s);
    }

    Map<Namespace.Claim, Namespace.Assignment> assigned = Namespace.assign(claims, Map.of());
    Set<String> keys = new HashSet<>();
    assigned.forEach((c, a) -> keys.addAll(c.keys().apply(a.name())));

    Map<TableId, String> tables = new HashMap<>();
    Map<ObjectId, String> indexes = new HashMap<>();
    Map<ObjectId, String> constraints = new HashMap<>();
    Map<String, String> sequences = new HashMap<>();
    // Findings are gathered per source object and emitted in source order below, so their order is stable.
    Map<TableId, Finding> tableFindings = new HashMap<>();
    Map<ObjectId, Finding> indexFindings = new HashMap<>();
    Map<ObjectId, Finding> constraintFindings = new HashMap<>();
    Map<String, Finding> sequenceFindings = new TreeMap<>();

    for (Map.Entry<Namespace.Claim, Namespace.Assignment> e : assigned.entrySet()) {
      Namespace.Claim c = e.getKey();
      Namespace.Assignment a = e.getValue();
      if (tableClaims.containsKey(c)) {
        TableId id = tableClaims.get(c);
        String target = qualify(schemas.get(id.schema()), a.name());
        tables.put(id, target);
        finding(id.schema() + "." + id.name(), target, "table", c, a)
            .ifPresent(f -> tableFindings.put(id, f));
      } else if (indexClaims.containsKey(c)) {
        ObjectId id = indexClaims.get(c);
        String target = qualify(schemas.get(id.table().schema()), a.name());
        indexes.put(id, target);
        finding(id.name(), target, "index", c, a)
            .ifPresent(f -> indexFindings.put(id, withTable(f, id)));
      } else if (constraintClaims.containsKey(c)) {
        ObjectId id = constraintClaims.get(c);
        constraints.put(id, a.name());
        finding(id.name(), a.name(), "constraint", c, a)
            .ifPresent(f -> constraintFindings.put(id, withTable(f, id)));
      } else {
        PgSequence s = sequenceClaims.get(c);
        String target = qualify(schemas.get(s.schema()), a.name());
        sequences.put(s.qualifiedName(), target);
        finding(s.qualifiedName(), target, "sequence", c, a)
            .ifPresent(f -> sequenceFindings.put(identity(s.schema(), s.name()), f));
      }
    }

    Map<TableId, Map<String, String>> columns = new HashMap<>();
    List<Finding> renames = new ArrayList<>(schemaFindings);
    List<PgTable> sortedTables = new ArrayList<>(catalog.tables());
    sortedTables.sort((x, y) -> identity(x.schema(), x.name()).compareTo(identity(y.schema(), y.name())));
    for (PgTable t : sortedTables) {
      TableId id = TableId.of(t);
      Optional.ofNullable(tableFindings.get(id)).ifPresent(renames::add);
      reservedWarning(t, null, null, unqualified(tables.get(id)), "table").ifPresent(renames::add);
      columns.put(id, assignColumns(t, renames));
      new TreeSet<>(indexNamesOf(t)).forEach(name -> {
        ObjectId oid = new ObjectId(id, name);
        Optional.ofNullable(indexFindings.get(oid)).ifPresent(renames::add);
        reservedWarning(t, null, name, unqualified(indexes.get(oid)), "index").ifPresent(renames::add);
      });
      new TreeSet<>(constraintNamesOf(t)).forEach(name -> {
        ObjectId oid = new ObjectId(id, name);
        Optional.ofNullable(constraintFindings.get(oid)).ifPresent(renames::add);
        reservedWarning(t, null, name, constraints.get(oid), "constraint").ifPresent(renames::add);
      });
    }
    renames.addAll(sequenceFindings.values());
    return new NamePlan(namedSchemas, schemas, tables, columns, indexes, constraints, sequences, keys, renames);
  }

  /** The Spanner table name: "orders", or "billing.invoices" in a named schema (unquoted). */
  public String table(PgTable t) {
    String name = tables.get(TableId.of(t));
    if (name == null) {
      throw unknown("table", t.qualifiedName());
    }
    return name;
  }

  /** The Spanner column name of {@code pgColumn} in {@code t} (unquoted). */
  public String column(PgTable t, String pgColumn) {
    Map<String, String> names = columnsOf(t);
    String name = names.get(pgColumn);
    if (name == null) {
      throw unknown("column", t.qualifiedName() + "." + pgColumn);
    }
    return name;
  }

  /**
   * The Spanner name of an index or of a UNIQUE constraint (which Spanner expresses as a unique index), unique
   * across its schema's namespace; qualified with its named schema like {@link #table}, e.g. "billing.idx".
   */
  public String index(PgTable t, String pgIndexOrConstraintName) {
    String name = indexes.get(new ObjectId(TableId.of(t), pgIndexOrConstraintName));
    if (name == null) {
      throw unknown("index or unique constraint", pgIndexOrConstraintName + " on " + t.qualifiedName());
    }
    return name;
  }

  /**
   * The Spanner name of a foreign key or CHECK constraint of {@code t}, unique across the database; never
   * qualified (a constraint is written inside its table's DDL).
   */
  public String constraint(PgTable t, String pgConstraintName) {
    String name = constraints.get(new ObjectId(TableId.of(t), pgConstraintName));
    if (name == null) {
      throw unknown("foreign key or check constraint", pgConstraintName + " on " + t.qualifiedName());
    }
    return name;
  }

  /** The Spanner sequence name, qualified with its named schema like {@link #table}. */
  public String sequence(PgSequence s) {
    String name = sequences.get(s.qualifiedName());
    if (name == null) {
      throw unknown("sequence", s.qualifiedName());
    }
    return name;
  }

  /**
   * A fresh column name for a column the plan adds (e.g. "shard_id", "row_id"), not colliding with any of t's
   * columns. Pure: the same arguments always give the same answer, so call it once per purpose.
   *
   * @param desired the wanted name; sanitised like a source name
   */
  public String newColumn(PgTable t, String desired) {
    Set<String> taken = new HashSet<>();
    columnsOf(t).values().forEach(n -> taken.add(Identifier.key(n)));
    return Namespace.nextFree(Identifier.sanitize(desired, "c").name(), taken, n -> List.of(Identifier.key(n)));
  }

  /**
   * A fresh, unqualified name in {@code t}'s schema namespace for an object the plan adds (e.g. a CHECK for an
   * enum column). It collides with no table, index, sequence or constraint, so it may serve as a constraint name
   * as is, or, qualified with the table's named schema, as the name of an index or sequence. Pure, like
   * {@link #newColumn}.
   */
  public String newObject(PgTable t, String desired) {
    table(t);
    String space = space(schemas, t.schema());
    return Namespace.nextFree(Identifier.sanitize(desired, "o").name(), objectKeys, constraintKeys(space));
  }

  /**
   * Every rename, and every name kept as a GoogleSQL reserved word, as {@link FindingCode#NAME_CHANGED} findings
   * in a deterministic order: schemas, then tables by source name with their columns, indexes and constraints,
   * then sequences.
   */
  public List<Finding> renames() {
    return renames;
  }

  /** The Spanner named schemas to CREATE, sorted; empty when named schemas are off. */
  public List<String> namedSchemas() {
    return List.copyOf(new TreeSet<>(schemas.values()));
  }


  private Map<String, String> columnsOf(PgTable t) {
    Map<String, String> names = columns.get(TableId.of(t));
    if (names == null) {
      throw unknown("table", t.qualifiedName());
    }
    return names;
  }

  private static IllegalArgumentException unknown(String kind, String name) {
    return new IllegalArgumentException("the name plan has no " + kind + " " + name
        + ": it was built from a catalog that does not contain it");
  }

  // ---------------------------------------------------------------------------------------------------------
  // Building

  private static Map<String, String> assignSchemas(PgCatalog catalog, List<Finding> findings) {
    Set<String> pgSchemas = new TreeSet<>();
    catalog.tables().forEach(t -> pgSchemas.add(t.schema()));
    catalog.sequences().forEach(s -> pgSchemas.add(s.schema()));
    pgSchemas.remove(PUBLIC);
    List<Namespace.Claim> claims = new ArrayList<>();
    for (String schema : pgSchemas) {
      claims.add(new Namespace.Claim(0, schema, "schema " + schema, schema, Identifier.sanitize(schema, "s"),
          n -> List.of(SCHEMA_SPACE + Identifier.key(n))));
    }
    Map<String, String> reserved = new HashMap<>();
    SPANNER_SCHEMAS.forEach(s -> reserved.put(SCHEMA_SPACE + s, "Spanner's own schema " + s));
    Map<String, String> result = new LinkedHashMap<>();
    Namespace.assign(claims, reserved).forEach((c, a) -> {
      String schema = c.identity();
      result.put(schema, a.name());
      List<String> why = reasons(c, a);
      if (!why.isEmpty()) {
        findings.add(Finding.of(FindingCode.NAME_CHANGED, null, null, null,
            FindingCode.NAME_CHANGED.message("Schema " + schema, "Spanner named schema " + a.name(),
                String.join("; ", why)) + " Every table in it is renamed accordingly.",
            evidence("schema", schema, a.name(), why)));
      }
    });
    return result;
  }

  private static Map<String, String> assignColumns(PgTable t, List<Finding> findings) {
    List<Namespace.Claim> claims = new ArrayList<>();
    Map<Namespace.Claim, PgColumn> byClaim = new HashMap<>();
    for (PgColumn col : t.columns()) {
      // Who keeps a contested name: the one an unquoted identifier reaches in PostgreSQL, then the older column.
      Namespace.Claim c = new Namespace.Claim(0, String.format("%06d", col.position()) + "\u0000" + col.name(),
          "column " + col.name(), col.name(), Identifier.sanitize(col.name(), "c"), n -> List.of(Identifier.key(n)));
      claims.add(c);
      byClaim.put(c, col);
    }
    Map<String, String> names = new HashMap<>();
    Map<String, List<Finding>> ordered = new TreeMap<>();
    Namespace.assign(claims, Map.of()).forEach((c, a) -> {
      PgColumn col = byClaim.get(c);
      names.put(col.name(), a.name());
      List<String> why = reasons(c, a);
      List<Finding> fs = new ArrayList<>();
      if (!why.isEmpty()) {
        fs.add(Finding.of(FindingCode.NAME_CHANGED, t.qualifiedName(), col.name(), null,
            FindingCode.NAME_CHANGED.message("Column " + col.name() + " of " + t.qualifiedName(), a.name(),
                String.join("; ", why)),
            evidence("column", col.name(), a.name(), why)).withSeverity(severity(c, a)));
      }
      reservedWarning(t, col.name(), null, a.name(), "column").ifPresent(fs::add);
      ordered.put(c.identity(), fs);
    });
    ordered.values().forEach(findings::addAll);
    return names;
  }

  private static Identifier.Sanitized wantedName(String schema, String name, String prefix, boolean namedSchemas) {
    if (namedSchemas || PUBLIC.equals(schema)) {
      return Identifier.sanitize(name, prefix);
    }
    // Without named schemas the schema survives as a prefix, so billing.invoices and public.invoices stay apart.
    Identifier.Sanitized s = Identifier.sanitize(schema + "_" + name, prefix);
    List<String> reasons = new ArrayList<>();
    reasons.add("is prefixed with its schema " + schema + " because named schemas are off");
    reasons.addAll(s.reasons());
    return new Identifier.Sanitized(s.name(), reasons);
  }

  /** A rename finding without a table; {@link #withTable} attaches indexes and constraints to theirs. */
  private static Optional<Finding> finding(String source, String target, String kind, Namespace.Claim c,
      Namespace.Assignment a) {
    List<String> why = reasons(c, a);
    if (why.isEmpty()) {
      return Optional.empty();
    }
    String message = FindingCode.NAME_CHANGED.message(Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + " "
        + source, target, String.join("; ", why));
    return Optional.of(Finding.of(FindingCode.NAME_CHANGED, kind.equals("table") ? source : null, null, null,
        message, evidence(kind, source, target, why)).withSeverity(severity(c, a)));
  }

  /**
   * A warning when the rename changes what an unquoted name reaches: the object PostgreSQL reaches by its unquoted
   * name lost that name in Spanner to another object, so an unchanged query now reads the other one; else info.
   */
  private static Severity severity(Namespace.Claim c, Namespace.Assignment a) {
    return reachedByAnotherName(c, a) ? Severity.WARNING : FindingCode.NAME_CHANGED.defaultSeverity();
  }

  /**
   * True when queries name {@code c}'s kind (schemas, tables, columns, sequences; not indexes or constraints), an
   * unquoted identifier reached it by its own name in PostgreSQL, and another object took that name in Spanner.
   */
  private static boolean reachedByAnotherName(Namespace.Claim c, Namespace.Assignment a) {
    return a.collidedWith() != null && c.rank() <= RANK_SEQUENCE && c.unquoted() && !c.sanitized().changed();
  }

  private static Finding withTable(Finding f, ObjectId id) {
    String table = id.table().schema() + "." + id.table().name();
    String message = f.message().replaceFirst(" becomes ", " on " + table + " becomes ");
    return Finding.of(FindingCode.NAME_CHANGED, table, null, id.name(), message, f.evidence())
        .withSeverity(f.severity());
  }

  private static List<String> reasons(Namespace.Claim c, Namespace.Assignment a) {
    List<String> why = new ArrayList<>(c.sanitized().reasons());
    if (a.collidedWith() != null) {
      String scope = c.description().startsWith("column ") ? ""
          : c.description().startsWith("schema ") ? " (Spanner schema names are case-insensitive)"
          : " (in Spanner, tables, indexes, constraints and sequences share one case-insensitive namespace)";
      why.add((c.sanitized().changed() ? "then " : "") + "collides case-insensitively with " + a.collidedWith()
          + ", which keeps that name" + scope);
      if (reachedByAnotherName(c, a)) {
        why.add("an unchanged query that names it " + c.sourceName() + " reaches " + a.collidedWith()
            + " in Spanner instead: change those queries to " + a.name());
      } else if (!c.sanitized().changed() && c.rank() <= RANK_SEQUENCE && !c.unquoted()) {
        why.add("queries that quote it (\"" + c.sourceName() + "\") must use " + a.name() + ": Spanner ignores "
            + "case, so " + c.sourceName() + " names " + a.collidedWith() + " there");
      }
    }
    return why;
  }

  private static Optional<Finding> reservedWarning(PgTable t, String column, String index, String name,
      String kind) {
    if (name == null || !SpannerNames.isReserved(name)) {
      return Optional.empty();
    }
    String subject = column != null ? "Column " + column + " of " + t.qualifiedName()
        : index != null ? Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + " " + index + " on "
            + t.qualifiedName()
        : "Table " + t.qualifiedName();
    Map<String, Object> evidence = new TreeMap<>();
    evidence.put("kind", kind);
    evidence.put("target", name);
    evidence.put("reserved", true);
    return Optional.of(Finding.of(FindingCode.NAME_CHANGED, t.qualifiedName(), column, index,
        subject + " keeps the name " + name + ", a GoogleSQL reserved word: the DDL back-quotes it, and every "
            + "query must write it as `" + name + "`.", evidence));
  }

  private static Map<String, Object> evidence(String kind, String source, String target, List<String> why) {
    Map<String, Object> evidence = new TreeMap<>();
    evidence.put("kind", kind);
    evidence.put("source", source);
    evidence.put("target", target);
    evidence.put("reasons", List.copyOf(why));
    return evidence;
  }

  private static Set<String> indexNamesOf(PgTable t) {
    Set<String> names = new HashSet<>();
    t.indexes().forEach(i -> names.add(i.name()));
    t.uniqueConstraints().forEach(u -> names.add(u.name()));
    return names;
  }

  private static Set<String> constraintNamesOf(PgTable t) {
    Set<String> names = new HashSet<>();
    t.foreignKeys().forEach(f -> names.add(f.name()));
    t.checks().forEach(c -> names.add(c.name()));
    return names;
  }

  /** The collision namespace of a PostgreSQL schema: its named schema, or the default schema. */
  private static String space(Map<String, String> schemas, String pgSchema) {
    return schemas.getOrDefault(pgSchema, DEFAULT_SCHEMA);
  }

  private static Function<String, List<String>> objectKeys(String space) {
    return n -> List.of(space + "." + Identifier.key(n));
  }

  private static Function<String, List<String>> constraintKeys(String space) {
    return n -> List.of(space + "." + Identifier.key(n), CONSTRAINT_SPACE + Identifier.key(n));
  }

  private static String qualify(String namedSchema, String name) {
    return namedSchema == null ? name : namedSchema + "." + name;
  }

  private static String unqualified(String name) {
    return name == null ? null : name.substring(name.indexOf('.') + 1);
  }

  private static String identity(String... parts) {
    return String.join("\u0000", parts);
  }
}
