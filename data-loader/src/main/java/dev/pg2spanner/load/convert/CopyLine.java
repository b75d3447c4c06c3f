package dev.pg2spanner.load.convert;

import dev.pg2spanner.load.source.Piece;
import java.nio.charset.StandardCharsets;

/**
 * One line of {@code COPY ... TO STDOUT}'s text format, split into fields without decoding them: tab-separated,
 * {@code \N} for NULL, backslash escapes for backslash, tab, newline, carriage return, backspace, form feed and
 * vertical tab (COPY TO emits no octal or hex escapes), UTF-8 (the driver's client encoding), ending with a newline.
 *
 * <p>A field that holds neither an escape nor a byte beyond ASCII is <em>plain</em>: its bytes are its characters,
 * so a reader may parse numbers and times straight from them ({@link ColumnReader#parseAscii}) and no field becomes a
 * {@code String} unless asked ({@link #text}). One instance per reader, reused line after line; not thread-safe.
 */
public final class CopyLine {

  private final int[] from;
  private final int[] to;
  private final boolean[] plain;
  private byte[] line;

  public CopyLine(int fields) {
    this.from = new int[fields];
    this.to = new int[fields];
    this.plain = new boolean[fields];
  }

  /**
   * Takes the next line and finds its fields.
   *
   * @throws IllegalStateException when the line does not have the expected number of fields
   */
  public void split(byte[] next, Piece piece) {
    this.line = next;
    int end = next.length;
    if (end > 0 && next[end - 1] == '\n') {
      end--;
    }
    int field = 0;
    int start = 0;
    boolean isPlain = true;
    for (int i = 0; i <= end; i++) {
      byte b = i == end ? (byte) '\t' : next[i];
      if (b == '\t') {
        if (field >= from.length) {
          throw new IllegalStateException("COPY row of piece " + piece.id() + " has more than " + from.length
              + " fields");
        }
        from[field] = start;
        to[field] = i;
        plain[field] = isPlain;
        field++;
        start = i + 1;
        isPlain = true;
      } else if (b == '\\' || b < 0) {
        isPlain = false;
      }
    }
    if (field != from.length) {
      throw new IllegalStateException("COPY row of piece " + piece.id() + " has " + field + " fields, expected "
          + from.length);
    }
  }

  int fields() {
    return from.length;
  }

  boolean isNull(int field) {
    int f = from[field];
    return to[field] - f == 2 && line[f] == '\\' && line[f + 1] == 'N';
  }

  /** True when the field's bytes are its characters (ASCII, no escape). */
  boolean isPlain(int field) {
    return plain[field];
  }

  byte[] bytes() {
    return line;
  }

  int from(int field) {
    return from[field];
  }

  int to(int field) {
    return to[field];
  }

  /** The field's text, or null for SQL NULL. */
  String text(int field) {
    if (isNull(field)) {
      return null;
    }
    int f = from[field];
    int t = to[field];
    if (plain[field]) {
      // ASCII: each byte is its character, and Latin-1 decoding is a plain copy.
      return new String(line, f, t - f, StandardCharsets.ISO_8859_1);
    }
    byte[] out = new byte[t - f];
    int n = 0;
    for (int i = f; i < t; i++) {
      byte b = line[i];
      if (b == '\\' && i + 1 < t) {
        byte e = line[++i];
        out[n++] = switch (e) {
          case 't' -> '\t';
          case 'n' -> '\n';
          case 'r' -> '\r';
          case 'b' -> '\b';
          case 'f' -> '\f';
          case 'v' -> 0x0b;
          default -> e; // "\\" and any other escaped character stand for themselves
        };
      } else {
        out[n++] = b;
      }
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }
}
