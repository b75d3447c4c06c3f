package dev.pg2spanner.load.convert;

import dev.pg2spanner.load.source.Piece;

/**
 * One row of {@code COPY ... TO STDOUT (FORMAT binary)}, split into its fields without decoding them: a 16-bit field
 * count, then per field a 32-bit length (-1 for NULL) and that many bytes of the type's binary form. The stream starts
 * with an 11-byte signature, a flags word and a header extension, which PostgreSQL sends in the same CopyData message
 * as the first row (or as the end marker, a field count of -1, when there is no row); each later message holds one
 * row. One instance per reader, reused message after message; not thread-safe.
 */
public final class CopyTuple {

  private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0};
  /** Bit 16 of the flags: OIDs included (never asked for; a format pg2spanner does not read). */
  private static final int FLAG_OIDS = 1 << 16;

  private final int[] from;
  private final int[] length;
  private byte[] message;
  private boolean headerRead;
  private boolean ended;

  public CopyTuple(int fields) {
    this.from = new int[fields];
    this.length = new int[fields];
  }

  /**
   * Takes the next CopyData message and finds the fields of the row it holds.
   *
   * @return true when the message held a row; false when it held only the header or the end marker
   * @throws IllegalStateException when the message is not a row of the expected shape
   */
  public boolean take(byte[] next, Piece piece) {
    this.message = next;
    int at = 0;
    if (!headerRead) {
      at = header(next, piece);
      headerRead = true;
      if (at == next.length) {
        return false;
      }
    }
    if (ended) {
      throw malformed(piece, "data after the end marker");
    }
    if (next.length - at < 2) {
      throw malformed(piece, "a row shorter than its field count");
    }
    short count = (short) (((next[at] & 0xff) << 8) | (next[at + 1] & 0xff));
    at += 2;
    if (count == -1) {
      ended = true;
      if (at != next.length) {
        throw malformed(piece, (next.length - at) + " bytes after the end marker");
      }
      return false;
    }
    if (count != from.length) {
      throw new IllegalStateException("COPY row of piece " + piece.id() + " has " + count + " fields, expected "
          + from.length);
    }
    for (int field = 0; field < count; field++) {
      if (next.length - at < 4) {
        throw malformed(piece, "a field length cut short");
      }
      int len = BinaryValues.int32(next, at);
      at += 4;
      if (len < -1 || (len > 0 && next.length - at < len)) {
        throw malformed(piece, "field " + (field + 1) + " of " + len + " bytes in " + (next.length - at) + " left");
      }
      from[field] = at;
      length[field] = len;
      if (len > 0) {
        at += len;
      }
    }
    if (at != next.length) {
      throw malformed(piece, (next.length - at) + " bytes after the last field");
    }
    return true;
  }

  private int header(byte[] next, Piece piece) {
    if (next.length < SIGNATURE.length + 8) {
      throw malformed(piece, "no binary COPY header");
    }
    for (int i = 0; i < SIGNATURE.length; i++) {
      if (next[i] != SIGNATURE[i]) {
        throw malformed(piece, "no binary COPY signature");
      }
    }
    int flags = BinaryValues.int32(next, SIGNATURE.length);
    if ((flags & FLAG_OIDS) != 0) {
      throw malformed(piece, "row OIDs, which were not asked for");
    }
    int extension = BinaryValues.int32(next, SIGNATURE.length + 4);
    int at = SIGNATURE.length + 8 + extension;
    if (extension < 0 || at > next.length) {
      throw malformed(piece, "a header extension of " + extension + " bytes");
    }
    return at;
  }

  private static IllegalStateException malformed(Piece piece, String what) {
    return new IllegalStateException("binary COPY of piece " + piece.id() + " holds " + what + "; this is a "
        + "pg2spanner bug, please report it (the row was not written)");
  }

  /** True once the end marker was read: every row of the COPY arrived. */
  public boolean ended() {
    return ended;
  }

  int fields() {
    return from.length;
  }

  boolean isNull(int field) {
    return length[field] < 0;
  }

  byte[] bytes() {
    return message;
  }

  int from(int field) {
    return from[field];
  }

  int length(int field) {
    return length[field];
  }
}
