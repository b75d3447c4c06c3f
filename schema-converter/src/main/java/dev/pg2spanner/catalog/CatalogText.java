package dev.pg2spanner.catalog;

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
    int close = matchingParen(def, open);
    return close < 0 ? def : def.substring(open + 1, close);
  }

  /**
   * The index of the parenthesis closing the one at {@code open}, skipping quoted strings ('...') and quoted
   * identifiers ("..."), or -1 when unbalanced.
   */
  static int matchingParen(String text, int open) {
    int depth = 0;
    for (int i = open; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '\'' || ch == '"') {
        int end = endOfQuoted(text, i);
        if (end < 0) {
          return -1;
        }
        i = end;
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    return -1;
  }

  /** The index of the quote closing the quoted text starting at {@code start} (doubled quotes escape), or -1. */
  private static int endOfQuoted(String text, int start) {
    char quote = text.charAt(start);
    for (int i = start + 1; i < text.length(); i++) {
      if (text.charAt(i) == quote) {
        if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
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
    String text = defaultExpression;
    for (int at = 0; at < text.length(); at++) {
      char ch = text.charAt(at);
      if (ch == '\'' || ch == '"') {
        // skip literals and quoted identifiers: 'nextval(...)' inside a string is not a call
        int end = endOfQuoted(text, at);
        if (end < 0) {
          return Optional.empty();
        }
        at = end;
        continue;
      }
      boolean wordStart = at == 0 || !isIdentifierChar(text.charAt(at - 1)) || text.charAt(at - 1) == '.';
      if (!wordStart || !text.regionMatches(true, at, "nextval", 0, 7)) {
        continue;
      }
      int i = skipSpaces(text, at + 7);
      if (i >= text.length() || text.charAt(i) != '(') {
        continue;
      }
      // skip the call's parenthesis and any extra ones of the old (('x'::text)::regclass) form
      while (i < text.length() && (text.charAt(i) == '(' || Character.isWhitespace(text.charAt(i)))) {
        i++;
      }
      if (i >= text.length() || text.charAt(i) != '\'') {
        continue; // not a literal (a column, an E'' string pg_get_expr never prints for a name, ...)
      }
      int end = endOfQuoted(text, i);
      if (end < 0) {
        return Optional.empty();
      }
      return Optional.of(text.substring(i + 1, end).replace("''", "'"));
    }
    return Optional.empty();
  }

  private static boolean isIdentifierChar(char ch) {
    return Character.isLetterOrDigit(ch) || ch == '_' || ch == '$' || ch == '.';
  }

  private static int skipSpaces(String text, int i) {
    while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
      i++;
    }
    return i;
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
