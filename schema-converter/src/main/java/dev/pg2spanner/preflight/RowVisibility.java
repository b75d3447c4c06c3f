package dev.pg2spanner.preflight;

import dev.pg2spanner.source.PgNames;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Can this role read every row of the tables to migrate? A role can read fewer rows than a table holds without any
 * error: row-level security returns only the rows its policies allow (none at all when no policy applies), and
 * PostgreSQL says nothing about the rest. So {@code check}, {@code plan}, {@code migrate} and {@code verify} ask the
 * catalog first, for every relation whose rows are read:
 *
 * <ul>
 *   <li>the table itself ({@code plan} reads a partitioned table through its parent), and</li>
 *   <li>each leaf partition of a partitioned table ({@code migrate} and {@code verify} read partitions directly, so
 *       a partition's own grants and policies apply, which a read through the parent ignores).</li>
 * </ul>
 *
 * <p>Row-level security applies to a relation when it is enabled ({@code relrowsecurity}) and the role is neither a
 * superuser nor {@code BYPASSRLS}, unless the role owns the relation (ownership through an inherited role counts)
 * and it is not forced ({@code relforcerowsecurity}). {@code pg_read_all_data} grants SELECT but does not bypass
 * row-level security. A relation the role cannot SELECT (or whose schema it cannot use) fails the read loudly, but
 * only once the load reaches it; it is reported here too, so migrate can refuse before touching the target.
 *
 * <p>Reading is one query for the relations and one for the policies of those row-level security applies to; the
 * decision is {@link #evaluate}, a pure function.
 */
public final class RowVisibility {

  private static final int POLICIES_SHOWN = 3;

  private RowVisibility() {}

  /** Why this role does not read every row of a relation. */
  public enum Problem {
    /** Row-level security is enabled and the role is not the owner: only rows a policy allows are returned. */
    ROW_SECURITY,
    /** {@code FORCE ROW LEVEL SECURITY}: the policies apply to the owner as well. */
    FORCED_ROW_SECURITY,
    /** The role may not SELECT the relation: reading it fails. */
    NO_SELECT,
    /** The role may not use the relation's schema: reading it fails. */
    NO_SCHEMA_USAGE;

    /** True for the problems that return fewer rows without an error. */
    public boolean filters() {
      return this == ROW_SECURITY || this == FORCED_ROW_SECURITY;
    }
  }

  /**
   * The connected role.
   *
   * @param name {@code current_user}
   * @param superuser {@code rolsuper}: reads everything
   * @param bypassRls {@code rolbypassrls}: row-level security never applies (the attribute is not inherited)
   */
  public record Role(String name, boolean superuser, boolean bypassRls) {
    public Role {
      Objects.requireNonNull(name, "name");
    }
  }

  /**
   * A row-level security policy, as {@code pg_policy} holds it.
   *
   * @param name the policy's name
   * @param permissive PERMISSIVE (rows any permissive policy allows) or RESTRICTIVE (rows every one allows)
   * @param command {@code SELECT}, {@code ALL}, ...
   * @param roles the roles it applies to ({@code PUBLIC} for everyone)
   * @param using its USING expression, or null
   * @param applies true when it applies to this role's reads (a SELECT or ALL policy for PUBLIC or a role it has
   *     the privileges of)
   */
  public record Policy(String name, boolean permissive, String command, List<String> roles, String using,
      boolean applies) {
    public Policy {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(command, "command");
      roles = List.copyOf(roles);
    }

    /** "third (FOR SELECT TO PUBLIC USING (grp = 0))". */
    public String describe() {
      return name + " (" + (permissive ? "" : "RESTRICTIVE ") + "FOR " + command + " TO " + String.join(", ", roles)
          + (using == null ? "" : " USING " + using) + (applies ? "" : "; not for this role") + ")";
    }
  }

  /**
   * What the catalog says about one relation a planned table's rows are read from.
   *
   * @param table the planned table, "schema.name" unquoted (the plan's key)
   * @param relation the relation, "schema.name" quoted where needed ({@code format('%I.%I')})
   * @param partition the relation is a partition of {@code table} (at any level)
   * @param partitioned the relation is a partitioned table (it holds no rows of its own)
   * @param rowSecurity {@code relrowsecurity}
   * @param forceRowSecurity {@code relforcerowsecurity}
   * @param owner the role has the privileges of the relation's owner
   * @param schemaUsage the role may use the relation's schema
   * @param select the role may SELECT the whole relation
   * @param policies the relation's SELECT and ALL policies (read only when row-level security applies)
   */
  public record Relation(String table, String relation, boolean partition, boolean partitioned, boolean rowSecurity,
      boolean forceRowSecurity, boolean owner, boolean schemaUsage, boolean select, List<Policy> policies) {
    public Relation {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(relation, "relation");
      policies = List.copyOf(policies);
    }

    Relation withPolicies(List<Policy> newPolicies) {
      return new Relation(table, relation, partition, partitioned, rowSecurity, forceRowSecurity, owner, schemaUsage,
          select, newPolicies);
    }
  }

  /**
   * One relation whose rows the role does not all read.
   *
   * @param table the planned table, "schema.name" unquoted
   * @param relation the relation read ({@code table} itself, or one of its partitions), quoted where needed
   * @param partition the relation is a partition of {@code table}
   * @param problem why
   * @param policies for row-level security, the relation's SELECT and ALL policies; empty otherwise
   */
  public record Restriction(String table, String relation, boolean partition, Problem problem,
      List<Policy> policies) {
    public Restriction {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(relation, "relation");
      Objects.requireNonNull(problem, "problem");
      policies = List.copyOf(policies);
    }

    /** True when no permissive policy applies to the role: row-level security then hides every row. */
    public boolean seesNoRows() {
      return problem.filters() && policies.stream().noneMatch(p -> p.applies() && p.permissive());
    }

    /** The relation (and its table, for a partition). */
    public String where() {
      return relation + (partition ? " (a partition of " + table + ")" : "");
    }

    /** One clause: where, what, and which policies. */
    public String describe() {
      return where() + ": " + detail();
    }

    /** What and which policies, without where. */
    public String detail() {
      String what = switch (problem) {
        case ROW_SECURITY -> "row-level security";
        case FORCED_ROW_SECURITY -> "row-level security, forced (it applies to the owner too)";
        case NO_SELECT -> "no SELECT privilege";
        case NO_SCHEMA_USAGE -> "no USAGE on its schema";
      };
      if (!problem.filters()) {
        return what;
      }
      String shown = policies.stream().limit(POLICIES_SHOWN).map(Policy::describe).collect(Collectors.joining(", "));
      String more = policies.size() > POLICIES_SHOWN ? " and " + (policies.size() - POLICIES_SHOWN) + " more" : "";
      String which = policies.isEmpty() ? "no SELECT policy"
          : (policies.size() == 1 ? "policy " : "policies ") + shown + more;
      return what + ", " + which + (seesNoRows() ? "; no policy lets this role read any row" : "");
    }
  }

  /**
   * The answer.
   *
   * @param role the connected role
   * @param restrictions every relation whose rows it does not all read, by table then relation
   */
  public record Report(Role role, List<Restriction> restrictions) {
    public Report {
      Objects.requireNonNull(role, "role");
      restrictions = List.copyOf(restrictions);
    }

    /** The relations row-level security filters (reads succeed and return fewer rows). */
    public List<Restriction> filtered() {
      return restrictions.stream().filter(r -> r.problem().filters()).toList();
    }

    /** The relations the role cannot read at all (reads fail). */
    public List<Restriction> unreadable() {
      return restrictions.stream().filter(r -> !r.problem().filters()).toList();
    }

    /** The planned tables ("schema.name") of which the role reads only some rows, sorted. */
    public List<String> filteredTables() {
      return List.copyOf(filtered().stream().map(Restriction::table).collect(Collectors.toCollection(TreeSet::new)));
    }

    /** The restrictions of one planned table. */
    public List<Restriction> of(String table) {
      return restrictions.stream().filter(r -> r.table().equals(table)).toList();
    }

    /**
     * What to do about the filtered tables, as a clause: "run as a role that reads every row: ...". The owner helps
     * only where the policies are not forced.
     */
    public String advice() {
      boolean ownerHelps = filtered().stream().anyMatch(r -> r.problem() == Problem.ROW_SECURITY);
      return "run as a role that reads every row: one with BYPASSRLS (as a superuser: ALTER ROLE "
          + PgNames.quote(role.name()) + " BYPASSRLS;)"
          + (ownerHelps ? ", a superuser, or the tables' owner (where row-level security is not forced)"
              : " or a superuser");
    }
  }

  /**
   * Reads the relations of {@code tables} and decides.
   *
   * @param tables the planned tables, "schema.name" unquoted; null for every table in the user schemas (what
   *     {@code check} asks)
   */
  public static Report read(Connection c, List<String> tables) throws SQLException {
    Role role = role(c);
    if (role.superuser()) {
      return new Report(role, List.of());
    }
    List<Relation> relations = relations(c, tables);
    Map<String, List<Policy>> policies = policies(c, relations.stream()
        .filter(r -> r.rowSecurity() && !role.bypassRls() && (!r.owner() || r.forceRowSecurity()))
        .map(Relation::relation).distinct().toList());
    List<Relation> withPolicies = relations.stream()
        .map(r -> policies.containsKey(r.relation()) ? r.withPolicies(policies.get(r.relation())) : r)
        .toList();
    return evaluate(role, withPolicies);
  }

  /** The decision, from the catalog's facts (see the class comment). */
  public static Report evaluate(Role role, List<Relation> relations) {
    List<Restriction> restrictions = new ArrayList<>();
    if (!role.superuser()) {
      for (Relation r : relations) {
        // An intermediate partitioned table holds no rows and is never read itself.
        boolean read = !(r.partition() && r.partitioned());
        if (read && !r.schemaUsage()) {
          restrictions.add(new Restriction(r.table(), r.relation(), r.partition(), Problem.NO_SCHEMA_USAGE, List.of()));
        } else if (read && !r.select()) {
          restrictions.add(new Restriction(r.table(), r.relation(), r.partition(), Problem.NO_SELECT, List.of()));
        }
        if (r.rowSecurity() && !role.bypassRls() && (!r.owner() || r.forceRowSecurity())) {
          restrictions.add(new Restriction(r.table(), r.relation(), r.partition(),
              r.forceRowSecurity() ? Problem.FORCED_ROW_SECURITY : Problem.ROW_SECURITY, r.policies()));
        }
      }
    }
    return new Report(role, restrictions);
  }

  private static Role role(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user AS usr, "
        + "r.rolsuper AS su, r.rolbypassrls AS bypass FROM pg_catalog.pg_roles r WHERE r.rolname = current_user")) {
      rs.next();
      return new Role(rs.getString("usr"), rs.getBoolean("su"), rs.getBoolean("bypass"));
    }
  }

  private static List<Relation> relations(Connection c, List<String> tables) throws SQLException {
    // Partitions are found level by level from each table; inheritance children are tables of their own.
    String sql = "WITH RECURSIVE tree(table_name, oid) AS ("
        + "SELECT n.nspname || '.' || c.relname, c.oid FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE NOT c.relispartition AND " + SourcePreflight.SYSTEM_SCHEMA_FILTER
        + (tables == null ? " AND c.relkind IN ('r', 'p')"
            : " AND c.relkind IN ('r', 'p', 'm', 'f') AND n.nspname || '.' || c.relname = ANY (?)")
        + " UNION ALL "
        + "SELECT t.table_name, i.inhrelid FROM tree t JOIN pg_catalog.pg_class p ON p.oid = t.oid AND p.relkind = 'p' "
        + "JOIN pg_catalog.pg_inherits i ON i.inhparent = t.oid) "
        + "SELECT t.table_name, format('%I.%I', n.nspname, c.relname) AS relation_name, "
        + "c.relispartition AS is_partition, c.relkind = 'p' AS is_partitioned, c.relrowsecurity AS rls, "
        + "c.relforcerowsecurity AS forced, pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE') AS is_owner, "
        + "pg_catalog.has_schema_privilege(n.oid, 'USAGE') AS schema_usage, "
        + "pg_catalog.has_table_privilege(c.oid, 'SELECT') AS can_select "
        + "FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.oid "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ORDER BY 1, 2";
    List<Relation> relations = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (tables != null) {
        ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          relations.add(new Relation(rs.getString("table_name"), rs.getString("relation_name"),
              rs.getBoolean("is_partition"), rs.getBoolean("is_partitioned"), rs.getBoolean("rls"),
              rs.getBoolean("forced"), rs.getBoolean("is_owner"), rs.getBoolean("schema_usage"),
              rs.getBoolean("can_select"), List.of()));
        }
      }
    }
    return relations;
  }

  /** The SELECT and ALL policies of each relation, by relation name as {@link #relations} prints it. */
  private static Map<String, List<Policy>> policies(Connection c, List<String> relations) throws SQLException {
    Map<String, List<Policy>> byRelation = new HashMap<>();
    if (relations.isEmpty()) {
      return byRelation;
    }
    for (String relation : relations) {
      byRelation.put(relation, new ArrayList<>());
    }
    String sql = "SELECT format('%I.%I', n.nspname, c.relname) AS relation_name, p.polname, "
        + "p.polpermissive AS permissive, CASE p.polcmd WHEN 'r' THEN 'SELECT' ELSE 'ALL' END AS command, "
        + "ARRAY(SELECT CASE WHEN r = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(r)::text END "
        + "FROM unnest(p.polroles) r ORDER BY 1) AS roles, "
        + "pg_catalog.pg_get_expr(p.polqual, p.polrelid) AS using_expr, "
        + "EXISTS (SELECT 1 FROM unnest(p.polroles) r "
        + "WHERE r = 0 OR pg_catalog.pg_has_role(current_user, r, 'USAGE')) AS applies "
        + "FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE p.polcmd IN ('r', '*') AND format('%I.%I', n.nspname, c.relname) = ANY (?) ORDER BY 1, 2";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("text", relations.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Array roles = rs.getArray("roles");
          byRelation.get(rs.getString("relation_name")).add(new Policy(rs.getString("polname"),
              rs.getBoolean("permissive"), rs.getString("command"), List.of((String[]) roles.getArray()),
              rs.getString("using_expr"), rs.getBoolean("applies")));
        }
      }
    }
    return byRelation;
  }
}
