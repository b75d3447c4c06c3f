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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns Jackson's and SnakeYAML's exceptions into one-line problems in the plan's own terms:
 * {@code tables[3].keyStrategy.kind: unknown key strategy 'shard'; use one of ... (line 42)}.
 */
final class PlanReadErrors {

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern MISSING_REQUIRED = Pattern.compile("Missing required creator property '([^']+)'");
  private static final Pattern FOUND = Pattern.compile("from ([A-Za-z-]+) value");
  private static final ObjectMapper ENUM_FORMS = new ObjectMapper();

  private PlanReadErrors() {}

  /** A YAML syntax error (or a duplicate key), with line and column. */
  static String syntax(JsonProcessingException e) {
    if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")) {
      String path = e.getProcessor() instanceof JsonParser p ? contextPath(p.getParsingContext()) : "";
      return (path.isEmpty() ? "" : path + ": ") + "this field appears twice in the same mapping; keep one"
          + line(e.getLocation());
    }
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
      // Normally found by unknownFields before binding; kept as a backstop.
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
      Matcher missing = MISSING_REQUIRED.matcher(m.getOriginalMessage());
      if (missing.find()) {
        return join(path, missing.group(1)) + ": is required; add it";
      }
      Class<?> type = mi.getTargetType();
      if (m.getOriginalMessage().startsWith("Cannot map `null`")) {
        // Missing primitives (booleans, numbers) arrive here too: every one is required.
        return node.isMissingNode() ? at(path) + "is required; add it (" + expected(type) + ")"
            : at(path) + "must not be null; write " + expected(type) + line;
      }
      Matcher found = FOUND.matcher(m.getOriginalMessage());
      String got = found.find() ? ", found " + found(found.group(1)) : "";
      return at(path) + "expected " + expected(type) + got + line;
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

  private static String found(String jacksonKind) {
    return switch (jacksonKind.toLowerCase(Locale.ROOT)) {
      case "string" -> "text";
      case "array" -> "a list";
      case "object" -> "a mapping";
      case "integer", "floating-point" -> "a number";
      case "boolean" -> "true/false";
      default -> jacksonKind;
    };
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
   * Every field the plan records do not know, with its path and line, found by walking the YAML alongside the
   * record types. Done before binding because Jackson stops at the first unknown field, and because a record is
   * built from a buffered copy of its fields, which loses their place in the file.
   */
  static List<String> unknownFields(JsonParser p, Class<?> root) throws IOException {
    List<String> problems = new ArrayList<>();
    if (p.nextToken() != null) {
      walk(p, root, "", problems);
    }
    return problems;
  }

  private static void walk(JsonParser p, Type type, String path, List<String> problems) throws IOException {
    JsonToken token = p.currentToken();
    Class<?> raw = raw(type);
    if (token == JsonToken.START_OBJECT && raw != null && raw.isRecord()) {
      Map<String, Type> components = new LinkedHashMap<>();
      for (RecordComponent c : raw.getRecordComponents()) {
        components.put(c.getName(), c.getGenericType());
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonLocation at = p.currentTokenLocation();
        p.nextToken();
        Type componentType = components.get(name);
        if (componentType == null) {
          problems.add(unknownField(join(path, name), name, raw, null) + line(at));
          p.skipChildren();
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
      p.skipChildren();
    }
  }

  private static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    return type instanceof ParameterizedType pt && pt.getRawType() instanceof Class<?> c ? c : null;
  }
}
