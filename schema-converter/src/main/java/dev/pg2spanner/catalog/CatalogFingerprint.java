package dev.pg2spanner.catalog;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * A hash of what the load depends on in the source schema: for each planned table its name, columns (name, type,
 * nullability, generated or not) and primary key. {@code plan} stores it; {@code migrate} and {@code verify}
 * recompute it from the live catalog, so a table dropped or a column changed since {@code plan} is caught before
 * any row moves. Indexes, statistics and comments are left out on purpose: they may change without making the
 * plan wrong.
 */
public final class CatalogFingerprint {

  private CatalogFingerprint() {}

  /** "sha256:" and 64 hex digits; the same tables in any order give the same value. */
  public static String of(List<PgTable> tables) {
    StringBuilder canonical = new StringBuilder();
    tables.stream().sorted(Comparator.comparing(PgTable::schema).thenComparing(PgTable::name))
        .forEach(t -> appendTable(canonical, t));
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return "sha256:" + HexFormat.of().formatHex(digest.digest(canonical.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
    }
  }

  private static void appendTable(StringBuilder sb, PgTable t) {
    sb.append("table ").append(t.qualifiedName()).append(' ').append(t.kind()).append('\n');
    for (PgColumn c : t.columns()) {
      sb.append("  column ").append(c.name()).append(' ').append(c.type().display())
          .append(c.notNull() ? " not null" : " null")
          .append(c.isGenerated() ? " generated" : "")
          .append('\n');
    }
    sb.append("  key ").append(t.primaryKey() == null ? "-" : String.join(",", t.primaryKey().columns())).append('\n');
  }
}
