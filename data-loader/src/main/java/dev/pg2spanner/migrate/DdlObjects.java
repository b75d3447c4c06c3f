package dev.pg2spanner.migrate;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The schema object a DDL statement of the migrations creates, and the objects a database already holds (from
 * {@code getDatabaseDdl}), so that a resumed phase sends only what is missing. Objects are compared by kind and
 * name; Spanner names are case-insensitive, so names compare lower-cased and without back quotes. Constraint names
 * (foreign keys, CHECKs) are one namespace per schema, whatever table holds them.
 */
final class DdlObjects {

  private static final String PART = "(?:`[^`]+`|\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_]*)";
  private static final String NAME = "(" + PART + "(?:\\s*\\.\\s*" + PART + ")?)";
  private static final Pattern CREATE = Pattern.compile("(?is)^\\s*CREATE\\s+(?:UNIQUE\\s+)?(?:NULL_FILTERED\\s+)?"
      + "(?:SEARCH\\s+)?(SCHEMA|SEQUENCE|TABLE|INDEX|VIEW|CHANGE\\s+STREAM)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?" + NAME
      + "(?:\\s+ON\\s+" + NAME + ")?");
  private static final Pattern ADD_CONSTRAINT = Pattern.compile("(?is)^\\s*ALTER\\s+TABLE\\s+" + NAME
      + "\\s+ADD\\s+CONSTRAINT\\s+" + NAME + "\\s+(FOREIGN\\s+KEY|CHECK)\\b");
  private static final Pattern CONSTRAINT = Pattern.compile("(?i)\\bCONSTRAINT\\s+" + NAME);

  private DdlObjects() {}

  /**
   * "index orders_placed_at_idx" or "constraint fk_orders_customers": the key of the object {@code statement}
   * creates; null when the statement creates no named object this class knows.
   */
  static String key(String statement) {
    Matcher c = CREATE.matcher(statement);
    if (c.find()) {
      return c.group(1).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ") + " " + normalise(c.group(2));
    }
    Matcher a = ADD_CONSTRAINT.matcher(statement);
    if (a.find()) {
      return "constraint " + normalise(a.group(2));
    }
    return null;
  }

  /** How messages name the object: "index orders_placed_at_idx on orders", "foreign key fk_x on orders". */
  static String describe(String statement) {
    Matcher c = CREATE.matcher(statement);
    if (c.find()) {
      String kind = c.group(1).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
      return kind + " " + plain(c.group(2)) + (c.group(3) == null ? "" : " on " + plain(c.group(3)));
    }
    Matcher a = ADD_CONSTRAINT.matcher(statement);
    if (a.find()) {
      String kind = a.group(3).toUpperCase(Locale.ROOT).startsWith("CHECK") ? "check " : "foreign key ";
      return kind + plain(a.group(2)) + " on " + plain(a.group(1));
    }
    String s = statement.strip().replaceAll("\\s+", " ");
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  /** The keys of every object {@code ddl} (a database's {@code getDatabaseDdl}) creates, constraints included. */
  static Set<String> existing(List<String> ddl) {
    Set<String> keys = new HashSet<>();
    for (String statement : ddl) {
      String key = key(statement);
      if (key != null) {
        keys.add(key);
      }
      Matcher m = CONSTRAINT.matcher(statement);
      while (m.find()) {
        keys.add("constraint " + normalise(m.group(1)));
      }
    }
    return keys;
  }

  /** Whether the object {@code statement} creates is among {@code existing}; false for an unknown statement. */
  static boolean exists(String statement, Set<String> existing) {
    String key = key(statement);
    return key != null && existing.contains(key);
  }

  private static String normalise(String name) {
    return plain(name).toLowerCase(Locale.ROOT);
  }

  private static String plain(String name) {
    return name.replace("`", "").replace("\"\"", "\u0000").replace("\"", "").replace('\u0000', '"')
        .replaceAll("\\s+", "");
  }
}
