package dev.pg2spanner.plan;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns Jackson's and SnakeYAML's exceptions into one-line problems in the plan's own terms:
 * {@code tables[3].keyStrategy.kind: unknown key strategy 'shard'; use one of ... (line 42)}. It reads what the
 * exceptions carry as data (their type, path, target type and location) and the YAML itself, never Jackson's
 * message text, which changes between Jackson versions.
 */
final class PlanReadErrors {

  /** A field name in a record's NullPointerException (the records' own {@code requireNonNull(x, "name")}). */
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final ObjectMapper ENUM_FORMS = new ObjectMapper();

  private PlanReadErrors() {}

  /** A YAML syntax error, with line and column. */
  static String syntax(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
      Mark mark = yaml.getProblemMark();
      return "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ": YAML syntax error: "
          + yaml.getProblem() + (yaml.getContext() == null ? "" : " (" + yaml.getContext() + ")")
          + "; check the indentation and quoting there (values containing ': ' or starting with a special "
          + "character need quotes)";
    }
    JsonLocation at = e.getLocation();
    String where = at == null || at.getLineNr() < 1 ? "" : "line " + at.getLineNr() + ", column "
        + at.getColumnNr() + ": ";
    return where + "YAML syntax error: " + e.getOriginalMessage() + "; check the indentation and quoting there";
  }

  /** A problem found while binding the YAML to the plan records. */
  static String binding(JsonProcessingException e, JsonNode tree) {
    if (!(e instanceof JsonMappingException m)) {
      return syntax(e);
    }
    String path = path(m.getPath());
    String line = line(m.getLocation());
    JsonNode node = nodeAt(tree, m.getPath());
    if (m instanceof UnrecognizedPropertyException u) {
      // Normally found by scan before binding; kept as a backstop.
      return unknownField(path, u.getPropertyName(), u.getReferringClass(), u.getKnownPropertyIds()) + line;
    }
    if (m instanceof InvalidFormatException f) {
      Class<?> type = f.getTargetType();
      String value = String.valueOf(f.getValue());
      if (type != null && type.isEnum()) {
        return at(path) + "unknown value '" + value + "'; use one of " + enumForms(type) + line;
      }
      return at(path) + "'" + value + "' is not " + expected(type) + "; correct the value" + line;
    }
    if (m instanceof ValueInstantiationException v) {
      Throwable cause = v.getCause();
      String why = cause == null || cause.getMessage() == null ? String.valueOf(cause) : cause.getMessage();
      // A record's constructor runs at the end of its mapping, so the location would point past the problem.
      boolean record = v.getType() != null && v.getType().getRawClass().isRecord();
      if (cause instanceof NullPointerException && IDENTIFIER.matcher(why).matches()) {
        return join(path, why) + (node.path(why).isNull() ? ": must not be null; give it a value"
            : ": is required; add it");
      }
      return at(path) + why + (record ? "" : line);
    }
    if (m instanceof MismatchedInputException mi) {
      // What the YAML holds at the path says what went wrong: nothing (a required field, e.g. a boolean or a
      // number, left out), null (where a value is required), or a value of another shape.
      Class<?> type = mi.getTargetType();
      if (node.isMissingNode()) {
        return at(path) + "is required; add it (" + expected(type) + ")";
      }
      if (node.isNull()) {
        return at(path) + "must not be null; write " + expected(type) + line;
      }
      return at(path) + "expected " + expected(type) + found(node) + line;
    }
    return at(path) + m.getOriginalMessage() + line;
  }

  /** The node at a reference chain, or a missing node. */
  private static JsonNode nodeAt(JsonNode tree, List<JsonMappingException.Reference> refs) {
    JsonNode node = tree;
    for (JsonMappingException.Reference ref : refs) {
      node = ref.getFieldName() != null ? node.path(ref.getFieldName()) : node.path(ref.getIndex());
    }
    return node;
  }

  /** {@code tables[3].keyStrategy.kind} from Jackson's reference chain. */
  static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder out = new StringBuilder();
    for (JsonMappingException.Reference ref : refs) {
      if (ref.getFieldName() != null) {
        if (out.length() > 0) {
          out.append('.');
        }
        out.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        out.append('[').append(ref.getIndex()).append(']');
      }
    }
    return out.toString();
  }

  /** The path of the value the parser is in, from its context chain. */
  static String contextPath(JsonStreamContext context) {
    Deque<String> parts = new ArrayDeque<>();
    for (JsonStreamContext c = context; c != null && c.getParent() != null; c = c.getParent()) {
      JsonStreamContext parent = c.getParent();
      if (parent.inArray()) {
        parts.push("[" + parent.getCurrentIndex() + "]");
      } else if (parent.inObject() && parent.getCurrentName() != null) {
        parts.push("." + parent.getCurrentName());
      }
    }
    String joined = String.join("", parts);
    // The innermost object's own current field comes last.
    if (context != null && context.inObject() && context.getCurrentName() != null) {
      joined = joined + "." + context.getCurrentName();
    }
    return joined.startsWith(".") ? joined.substring(1) : joined;
  }

  private static String unknownField(String path, String name, Class<?> type, Collection<Object> known) {
    List<String> fields = fieldsOf(type, known);
    String suggestion = closest(name, fields);
    return (path.isEmpty() ? name : path) + ": unknown field '" + name + "'; "
        + (suggestion == null ? "" : "did you mean '" + suggestion + "'? ")
        + "valid fields here are " + String.join(", ", fields);
  }

  private static List<String> fieldsOf(Class<?> type, Collection<Object> known) {
    if (type != null && type.isRecord()) {
      List<String> names = new ArrayList<>();
      for (var component : type.getRecordComponents()) {
        names.add(component.getName());
      }
      return names;
    }
    return known == null ? List.of() : known.stream().map(String::valueOf).sorted().toList();
  }

  /** A field that differs only in case or by at most two edits, when there is exactly one such. */
  private static String closest(String name, List<String> fields) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String f : fields) {
      int d = f.equalsIgnoreCase(name) ? 0 : distance(f.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = f;
        bestDistance = d;
      }
    }
    return bestDistance <= 2 ? best : null;
  }

  /** Levenshtein distance, for "did you mean" hints. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  static String expected(Class<?> type) {
    if (type == null) {
      return "a value of another type";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "a whole number";
    }
    if (type == double.class || type == Double.class) {
      return "a number";
    }
    if (type == String.class) {
      return "text";
    }
    if (type == Instant.class) {
      return "a UTC timestamp such as 2024-05-01T10:15:30Z";
    }
    if (type.isEnum()) {
      return "one of " + enumForms(type);
    }
    if (Collection.class.isAssignableFrom(type)) {
      return "a list (one '- ' item per line, or [] for none)";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a mapping (key: value lines, or {} for none)";
    }
    if (type.isRecord()) {
      return "a mapping with the fields " + String.join(", ", fieldsOf(type, null));
    }
    return "a " + type.getSimpleName();
  }

  /** ", found text", ", found a list", ...: what the YAML holds where something else was expected. */
  private static String found(JsonNode node) {
    if (node.isTextual()) {
      return ", found text";
    }
    if (node.isArray()) {
      return ", found a list";
    }
    if (node.isObject()) {
      return ", found a mapping";
    }
    if (node.isNumber()) {
      return ", found a number";
    }
    if (node.isBoolean()) {
      return ", found true/false";
    }
    return "";
  }

  /** The constants as the plan spells them (their @JsonValue form). */
  static String enumForms(Class<?> type) {
    return java.util.Arrays.stream(type.getEnumConstants())
        .map(c -> ENUM_FORMS.convertValue(c, String.class))
        .collect(Collectors.joining(", "));
  }

  private static String at(String path) {
    return path.isEmpty() ? "" : path + ": ";
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  private static String line(JsonLocation location) {
    return location == null || location.getLineNr() < 1 ? "" : " (line " + location.getLineNr() + ")";
  }

  /**
   * What one pass over the YAML finds before anything is bound.
   *
   * @param duplicate the first field written twice in one mapping, as a problem with its path and line; null when
   *     there is none (then the pass stopped there, and unknownFields is empty)
   * @param unknownFields every field the plan records do not know, each as a problem with its path and line
   */
  record Scan(String duplicate, List<String> unknownFields) {}

  /**
   * Walks the YAML alongside the record types, once, before it is read into a tree or bound. It finds every field
   * the plan records do not know, with its path and line (binding would stop at the first, and a record is built
   * from a buffered copy of its fields, which loses their place in the file), and the first field written twice in
   * one mapping (a tree keeps only the last of them, and Jackson's own duplicate detection says so only in its
   * message text).
   *
   * @throws JsonProcessingException on a YAML syntax error met first (report it with {@link #syntax})
   */
  static Scan scan(JsonParser p, Class<?> root) throws IOException {
    List<String> unknown = new ArrayList<>();
    try {
      if (p.nextToken() != null) {
        walk(p, root, "", unknown);
      }
    } catch (DuplicateField e) {
      return new Scan(e.problem, List.of());
    }
    return new Scan(null, unknown);
  }

  private static void walk(JsonParser p, Type type, String path, List<String> problems) throws IOException {
    JsonToken token = p.currentToken();
    Class<?> raw = raw(type);
    if (token == JsonToken.START_OBJECT && raw != null && raw.isRecord()) {
      Map<String, Type> components = new LinkedHashMap<>();
      for (RecordComponent c : raw.getRecordComponents()) {
        components.put(c.getName(), c.getGenericType());
      }
      Set<String> seen = new HashSet<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = once(p, seen);
        JsonLocation at = p.currentTokenLocation();
        p.nextToken();
        Type componentType = components.get(name);
        if (componentType == null) {
          problems.add(unknownField(join(path, name), name, raw, null) + line(at));
          skip(p);
        } else {
          walk(p, componentType, join(path, name), problems);
        }
      }
    } else if (token == JsonToken.START_ARRAY && raw != null && List.class.isAssignableFrom(raw)
        && type instanceof ParameterizedType list) {
      int index = 0;
      while (p.nextToken() != JsonToken.END_ARRAY && p.currentToken() != null) {
        walk(p, list.getActualTypeArguments()[0], path + "[" + index++ + "]", problems);
      }
    } else {
      // Scalars, maps (evidence) and type mismatches: binding reports those.
      skip(p);
    }
  }

  /** Skips the value the parser is at, still looking for duplicate fields in the mappings inside it. */
  private static void skip(JsonParser p) throws IOException {
    if (p.currentToken() == JsonToken.START_OBJECT) {
      Set<String> seen = new HashSet<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        once(p, seen);
        p.nextToken();
        skip(p);
      }
    } else if (p.currentToken() == JsonToken.START_ARRAY) {
      while (p.nextToken() != JsonToken.END_ARRAY && p.currentToken() != null) {
        skip(p);
      }
    }
  }

  /** The field name the parser is at, after checking that its mapping has not had it before. */
  private static String once(JsonParser p, Set<String> seen) throws IOException {
    String name = p.currentName();
    if (!seen.add(name)) {
      throw new DuplicateField(at(contextPath(p.getParsingContext()))
          + "this field appears twice in the same mapping; keep one" + line(p.currentLocation()));
    }
    return name;
  }

  /** Ends the scan at the first duplicate field (found deep in the walk). */
  private static final class DuplicateField extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String problem;

    DuplicateField(String problem) {
      super(problem, null, false, false);
      this.problem = problem;
    }
  }

  private static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    return type instanceof ParameterizedType pt && pt.getRawType() instanceof Class<?> c ? c : null;
  }
}
