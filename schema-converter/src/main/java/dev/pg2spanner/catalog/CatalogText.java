package dev.pg2spanner.catalog;

import dev.pg2spanner.source.PgLexer;
import dev.pg2spanner.source.PgLexer.Kind;
import dev.pg2spanner.source.PgLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Pure text helpers for what the catalog functions print: constraint definitions, column defaults and trigger
 * types. Kept apart from {@link CatalogReader} so they can be tested without a server.
 */
final class CatalogText {

  private CatalogText() {}

  /**
   * The expression inside {@code CHECK (...)} of a {@code pg_get_constraintdef} text, without trailing
   * {@code NOT VALID} or {@code NO INHERIT}: "CHECK ((price > 0)) NOT VALID" gives "(price > 0)". A text that does
   * not start with CHECK is returned trimmed and unchanged.
   */
  static String checkExpression(String constraintDef) {
    String def = constraintDef.trim();
    if (!def.regionMatches(true, 0, "CHECK", 0, 5)) {
      return def;
    }
    int open = def.indexOf('(', 5);
    if (open < 0 || !def.substring(5, open).isBlank()) {
      return def;
    }
    List<Token> tokens = PgLexer.tokenize(def);
    int first = 0;
    while (tokens.get(first).position() != open) {
      first++;
    }
    int close = PgLexer.closing(tokens, first);
    return close < 0 ? def : def.substring(open + 1, tokens.get(close).position());
  }

  /**
   * The sequence name written in the first {@code nextval('...')} call of a column default, as the text inside
   * the string literal: {@code nextval('public."Order_Seq"'::regclass)} gives {@code public."Order_Seq"}. Accepts
   * every spelling pg_get_expr produces: {@code ::regclass} or {@code ::text} casts, the old
   * {@code nextval(('x'::text)::regclass)} form, and a schema-qualified {@code pg_catalog.nextval}. The caller
   * resolves the name through the server ({@code to_regclass}), which applies PostgreSQL's own quoting and
   * search_path rules.
   *
   * <p>This is the fallback: the reader first uses the dependency PostgreSQL records from the default to the
   * sequence, which exists for every {@code 'x'::regclass} argument but not for a text argument.
   *
   * @return the literal's content, or empty when the default has no nextval call on a string literal
   */
  static Optional<String> nextvalArgument(String defaultExpression) {
    if (defaultExpression == null) {
      return Optional.empty();
    }
    // Tokens, so that 'nextval(...)' inside a string or a quoted identifier is not a call.
    List<Token> tokens = PgLexer.tokenize(defaultExpression);
    for (int at = 0; at < tokens.size(); at++) {
      if (!tokens.get(at).isKeyword("nextval") || tokens.get(at + 1).kind() != Kind.LPAREN) {
        continue;
      }
      // skip the call's parenthesis and any extra ones of the old (('x'::text)::regclass) form
      int i = at + 1;
      while (tokens.get(i).kind() == Kind.LPAREN) {
        i++;
      }
      if (tokens.get(i).kind() == Kind.STRING) {
        return Optional.of(tokens.get(i).text());
      }
      // not a literal (a column, an E'' string pg_get_expr never prints for a name, ...): look further
    }
    return Optional.empty();
  }

  // pg_trigger.tgtype bits (PostgreSQL's TRIGGER_TYPE_* in catalog/pg_trigger.h)
  private static final int TRIGGER_ROW = 1;
  private static final int TRIGGER_BEFORE = 1 << 1;
  private static final int TRIGGER_INSERT = 1 << 2;
  private static final int TRIGGER_DELETE = 1 << 3;
  private static final int TRIGGER_UPDATE = 1 << 4;
  private static final int TRIGGER_TRUNCATE = 1 << 5;
  private static final int TRIGGER_INSTEAD = 1 << 6;

  /**
   * The function call of a {@code pg_get_triggerdef} text, after EXECUTE FUNCTION (EXECUTE PROCEDURE before
   * PostgreSQL 11 printed it so), e.g. "public.last_updated()"; null when absent.
   */
  static String triggerCall(String triggerDef) {
    if (triggerDef == null) {
      return null;
    }
    for (String marker : List.of(" EXECUTE FUNCTION ", " EXECUTE PROCEDURE ")) {
      int at = triggerDef.lastIndexOf(marker);
      if (at >= 0) {
        return triggerDef.substring(at + marker.length()).trim();
      }
    }
    return null;
  }

  /**
   * A trigger's timing and events as CREATE TRIGGER spells them, e.g. "BEFORE INSERT OR UPDATE ON public.film FOR
   * EACH ROW EXECUTE FUNCTION public.last_updated()". Events are listed in pg_get_triggerdef's order.
   *
   * @param on the table, "schema.name"
   * @param call the function call, e.g. "public.last_updated()", or null to leave the EXECUTE part out
   */
  static String triggerDetail(int tgtype, String on, String call) {
    String timing = (tgtype & TRIGGER_INSTEAD) != 0 ? "INSTEAD OF"
        : (tgtype & TRIGGER_BEFORE) != 0 ? "BEFORE" : "AFTER";
    List<String> events = new ArrayList<>();
    if ((tgtype & TRIGGER_INSERT) != 0) {
      events.add("INSERT");
    }
    if ((tgtype & TRIGGER_DELETE) != 0) {
      events.add("DELETE");
    }
    if ((tgtype & TRIGGER_UPDATE) != 0) {
      events.add("UPDATE");
    }
    if ((tgtype & TRIGGER_TRUNCATE) != 0) {
      events.add("TRUNCATE");
    }
    String level = (tgtype & TRIGGER_ROW) != 0 ? "FOR EACH ROW" : "FOR EACH STATEMENT";
    return timing + " " + String.join(" OR ", events) + " ON " + on + " " + level
        + (call == null ? "" : " EXECUTE FUNCTION " + call);
  }
}
