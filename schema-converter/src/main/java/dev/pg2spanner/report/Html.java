package dev.pg2spanner.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The one HTML escape of {@code report.html}, and the inline assets it embeds. */
final class Html {

  private Html() {}

  /**
   * Text safe in element content and in quoted attribute values: {@code & < > " '} become entities. Every value
   * that comes from the plan goes through here.
   *
   * @param s the text, or null (rendered as the empty string)
   */
  static String esc(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** {@link #esc} of {@code String.valueOf(value)}. */
  static String esc(Object value) {
    return esc(value == null ? null : String.valueOf(value));
  }

  /** A text resource beside this class (the inline stylesheet and script), read once per render. */
  static String asset(String name) {
    try (InputStream in = Html.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource " + name + " is missing from the schema-converter jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("reading resource " + name, e);
    }
  }
}
