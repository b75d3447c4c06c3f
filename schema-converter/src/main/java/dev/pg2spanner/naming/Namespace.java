package dev.pg2spanner.naming;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Resolves case-insensitive collisions among a set of names, deterministically: the result depends only on the
 * claims, never on the order they were added or on hash-map order.
 *
 * <p>Claims are sorted by kind rank (tables before the objects that hang off them), then names that are legal
 * as they are before sanitised ones, then the name an unquoted identifier reaches in PostgreSQL (the lower-case one:
 * {@code orders} before {@code "Orders"} and {@code "ORDERS"}, so the application's unchanged {@code SELECT ... FROM
 * orders} still reads the same table in a case-insensitive Spanner), then by source identity. A first pass gives every claim whose name is still
 * free that name; a second pass gives the remaining claims {@code name_2}, {@code name_3}, ... skipping every
 * name the first pass handed out. So a legal name such as {@code orders_2} is never displaced by the renaming of
 * another object.
 */
final class Namespace {

  /**
   * One object asking for a name.
   *
   * @param rank objects of lower rank win collisions (tables 0, sequences 1, indexes 2, constraints 3)
   * @param identity the source identity used to order claims, e.g. "public\u0000Orders"
   * @param description how findings name the object, e.g. "table public.Orders"
   * @param sourceName the object's own name in PostgreSQL (unqualified, as the catalog holds it)
   * @param sanitized the wanted (legal) name and why it differs from the source
   * @param keys the collision keys a name occupies (more than one when an object lives in two namespaces)
   */
  record Claim(int rank, String identity, String description, String sourceName, Identifier.Sanitized sanitized,
      Function<String, List<String>> keys) {

    /** True when an unquoted identifier reaches this object in PostgreSQL (its name is all lower-case). */
    boolean unquoted() {
      return Identifier.reachedUnquoted(sourceName);
    }
  }

  /**
   * @param name the assigned name
   * @param collidedWith the description of the object that kept the wanted name, or null when there was no
   *     collision
   */
  record Assignment(String name, String collidedWith) {}

  private static final Comparator<Claim> ORDER = Comparator.comparingInt(Claim::rank)
      .thenComparing(c -> c.sanitized().changed())
      .thenComparing(c -> !c.unquoted())
      .thenComparing(Claim::identity)
      .thenComparing(Claim::description);

  private Namespace() {}

  /**
   * Assigns a name to every claim.
   *
   * @param claims the claims, in any order
   * @param reserved keys that no claim may take (e.g. Spanner's own schema names), with the reason
   * @return the assignment of each claim, in the claims' sorted order
   */
  static Map<Claim, Assignment> assign(List<Claim> claims, Map<String, String> reserved) {
    List<Claim> sorted = new ArrayList<>(claims);
    sorted.sort(ORDER);
    Map<String, String> taken = new HashMap<>(reserved);
    Map<Claim, String> first = new HashMap<>();
    for (Claim c : sorted) {
      String wanted = c.sanitized().name();
      if (free(taken, c.keys().apply(wanted))) {
        first.put(c, wanted);
        c.keys().apply(wanted).forEach(k -> taken.put(k, c.description()));
      }
    }
    Map<Claim, Assignment> result = new LinkedHashMap<>();
    for (Claim c : sorted) {
      String wanted = c.sanitized().name();
      if (first.containsKey(c)) {
        result.put(c, new Assignment(wanted, null));
        continue;
      }
      String winner = c.keys().apply(wanted).stream().filter(taken::containsKey).map(taken::get).findFirst()
          .orElseThrow();
      String name = nextFree(wanted, taken, c.keys());
      c.keys().apply(name).forEach(k -> taken.put(k, c.description()));
      result.put(c, new Assignment(name, winner));
    }
    return result;
  }

  /** {@code wanted} when its keys are free in {@code taken}, else the first free {@code wanted_N} (N ≥ 2). */
  static String nextFree(String wanted, Map<String, String> taken, Function<String, List<String>> keys) {
    if (free(taken, keys.apply(wanted))) {
      return wanted;
    }
    for (int n = 2; ; n++) {
      String candidate = Identifier.withSuffix(wanted, "_" + n);
      if (free(taken, keys.apply(candidate))) {
        return candidate;
      }
    }
  }

  /** As {@link #nextFree(String, Map, Function)} against a plain set of taken keys. */
  static String nextFree(String wanted, Set<String> taken, Function<String, List<String>> keys) {
    Map<String, String> asMap = new HashMap<>();
    taken.forEach(k -> asMap.put(k, ""));
    return nextFree(wanted, asMap, keys);
  }

  private static boolean free(Map<String, String> taken, List<String> keys) {
    return keys.stream().noneMatch(taken::containsKey);
  }
}
