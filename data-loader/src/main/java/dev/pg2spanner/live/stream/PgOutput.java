package dev.pg2spanner.live.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decodes the messages of PostgreSQL's {@code pgoutput} plugin, protocol version 1 (PostgreSQL 10 and later):
 * "Logical Replication Message Formats" in the PostgreSQL documentation. Integers are big-endian, strings
 * NUL-terminated UTF-8; a tuple's text values are each column's output-function text. Pure: no I/O, no state.
 *
 * <p>Version 1 sends a transaction only when it has committed, whole: Begin, its changes in the order they were
 * made, Commit. Relation messages describe a table before its first change in a session and again after its shape
 * may have changed (they carry no change themselves).
 */
public final class PgOutput {

  /** PostgreSQL timestamps count microseconds from 2000-01-01 00:00:00 UTC. */
  private static final long PG_EPOCH_SECONDS = 946_684_800L;

  private PgOutput() {}

  /** One decoded message. */
  public sealed interface Message permits Begin, Commit, Relation, TypeInfo, Origin, Insert, Update, Delete, Truncate,
      LogicalMessage {}

  /**
   * @param finalLsn the LSN of the transaction's commit record
   * @param commitTime when it committed on the source
   * @param xid its transaction id
   */
  public record Begin(long finalLsn, Instant commitTime, int xid) implements Message {}

  /**
   * @param commitLsn the LSN of the commit record
   * @param endLsn the end of the commit record: the position to acknowledge once the transaction is applied
   * @param commitTime when it committed on the source
   */
  public record Commit(long commitLsn, long endLsn, Instant commitTime) implements Message {}

  /**
   * A table's shape as the stream will send its rows.
   *
   * @param relationId the table's OID
   * @param schema its schema ("" for pg_catalog)
   * @param name its name
   * @param replicaIdentity {@code d} default (primary key), {@code n} nothing, {@code f} full, {@code i} index
   * @param columns in the order of every tuple of this relation
   */
  public record Relation(int relationId, String schema, String name, char replicaIdentity, List<Column> columns)
      implements Message {
    public Relation {
      columns = List.copyOf(columns);
    }

    /** "schema.name". */
    public String qualifiedName() {
      return schema + "." + name;
    }
  }

  /**
   * @param key part of the replica identity (the key sent for updates and deletes)
   * @param name the column name
   * @param typeOid the column's type
   * @param typeModifier the type modifier ({@code atttypmod}), -1 when none
   */
  public record Column(boolean key, String name, int typeOid, int typeModifier) {}

  /** A non-built-in type used by a following Relation (enums, domains); only its name is useful. */
  public record TypeInfo(int typeOid, String schema, String name) implements Message {}

  /** The transaction was replayed from another origin (PostgreSQL replication chains). */
  public record Origin(long originLsn, String name) implements Message {}

  /** A row inserted; {@code row} holds every column. */
  public record Insert(int relationId, Tuple row) implements Message {}

  /**
   * A row updated.
   *
   * @param oldKind {@code K} when {@code old} holds the replica identity's columns (sent when they changed), {@code O}
   *     when it holds the whole old row (REPLICA IDENTITY FULL), or 0 when no old tuple was sent (key unchanged)
   * @param old the old key or row, or null
   * @param row the new row; unchanged TOASTed values are not sent ({@link Tuple#UNCHANGED})
   */
  public record Update(int relationId, char oldKind, Tuple old, Tuple row) implements Message {}

  /**
   * A row deleted.
   *
   * @param oldKind {@code K} (the replica identity's columns; the others are NULL) or {@code O} (the whole row)
   */
  public record Delete(int relationId, char oldKind, Tuple old) implements Message {}

  /**
   * Tables truncated together.
   *
   * @param cascade TRUNCATE ... CASCADE
   * @param restartIdentity TRUNCATE ... RESTART IDENTITY
   */
  public record Truncate(List<Integer> relationIds, boolean cascade, boolean restartIdentity) implements Message {
    public Truncate {
      relationIds = List.copyOf(relationIds);
    }
  }

  /** A message written by {@code pg_logical_emit_message} (sent with the slot option {@code messages}). */
  public record LogicalMessage(boolean transactional, long lsn, String prefix, byte[] content) implements Message {
    public String contentText() {
      return new String(content, StandardCharsets.UTF_8);
    }
  }

  /**
   * The columns of one row, in the relation's column order: each NULL, unchanged (an unchanged TOASTed value the
   * stream did not send) or a text value.
   */
  public static final class Tuple {
    public static final byte NULL = 'n';
    public static final byte UNCHANGED = 'u';
    public static final byte TEXT = 't';

    private final byte[] kinds;
    private final String[] texts;

    public Tuple(byte[] kinds, String[] texts) {
      this.kinds = kinds;
      this.texts = texts;
    }

    public int size() {
      return kinds.length;
    }

    /** {@link #NULL}, {@link #UNCHANGED} or {@link #TEXT}. */
    public byte kind(int column) {
      return kinds[column];
    }

    /** The text of a {@link #TEXT} value; null otherwise. */
    public String text(int column) {
      return texts[column];
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("[");
      for (int i = 0; i < kinds.length; i++) {
        b.append(i == 0 ? "" : ", ").append(kinds[i] == TEXT ? "'" + texts[i] + "'" : kinds[i] == NULL ? "NULL"
            : "unchanged");
      }
      return b.append(']').toString();
    }
  }

  /**
   * Decodes one message.
   *
   * @param buffer the message's bytes from its type byte on (what pgjdbc's replication stream returns); read to its
   *     end
   * @throws IllegalArgumentException for a message this decoder does not know or that is cut short, naming it
   */
  public static Message decode(ByteBuffer buffer) {
    Objects.requireNonNull(buffer, "buffer");
    if (!buffer.hasRemaining()) {
      throw new IllegalArgumentException("empty pgoutput message");
    }
    char type = (char) buffer.get();
    try {
      Message message = switch (type) {
        case 'B' -> new Begin(buffer.getLong(), time(buffer.getLong()), buffer.getInt());
        case 'C' -> {
          buffer.get(); // flags, unused
          yield new Commit(buffer.getLong(), buffer.getLong(), time(buffer.getLong()));
        }
        case 'R' -> relation(buffer);
        case 'Y' -> new TypeInfo(buffer.getInt(), string(buffer), string(buffer));
        case 'O' -> new Origin(buffer.getLong(), string(buffer));
        case 'I' -> {
          int relation = buffer.getInt();
          expect(buffer, 'N', "Insert");
          yield new Insert(relation, tuple(buffer));
        }
        case 'U' -> {
          int relation = buffer.getInt();
          char marker = (char) buffer.get();
          char oldKind = 0;
          Tuple old = null;
          if (marker == 'K' || marker == 'O') {
            oldKind = marker;
            old = tuple(buffer);
            marker = (char) buffer.get();
          }
          if (marker != 'N') {
            throw new IllegalArgumentException("Update: expected 'N', found '" + marker + "'");
          }
          yield new Update(relation, oldKind, old, tuple(buffer));
        }
        case 'D' -> {
          int relation = buffer.getInt();
          char oldKind = (char) buffer.get();
          if (oldKind != 'K' && oldKind != 'O') {
            throw new IllegalArgumentException("Delete: expected 'K' or 'O', found '" + oldKind + "'");
          }
          yield new Delete(relation, oldKind, tuple(buffer));
        }
        case 'T' -> {
          int n = buffer.getInt();
          int options = buffer.get();
          List<Integer> ids = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            ids.add(buffer.getInt());
          }
          yield new Truncate(ids, (options & 1) != 0, (options & 2) != 0);
        }
        case 'M' -> {
          boolean transactional = (buffer.get() & 1) != 0;
          long lsn = buffer.getLong();
          String prefix = string(buffer);
          byte[] content = new byte[buffer.getInt()];
          buffer.get(content);
          yield new LogicalMessage(transactional, lsn, prefix, content);
        }
        default -> throw new IllegalArgumentException("unknown pgoutput message type '" + type + "' (protocol "
            + "version 1 was requested)");
      };
      if (buffer.hasRemaining()) {
        throw new IllegalArgumentException("pgoutput message '" + type + "' has " + buffer.remaining()
            + " bytes after its end");
      }
      return message;
    } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("pgoutput message '" + type + "' is cut short", e);
    }
  }

  private static Relation relation(ByteBuffer buffer) {
    int id = buffer.getInt();
    String schema = string(buffer);
    String name = string(buffer);
    char identity = (char) buffer.get();
    int n = buffer.getShort();
    List<Column> columns = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      boolean key = (buffer.get() & 1) != 0;
      columns.add(new Column(key, string(buffer), buffer.getInt(), buffer.getInt()));
    }
    return new Relation(id, schema, name, identity, columns);
  }

  private static Tuple tuple(ByteBuffer buffer) {
    int n = buffer.getShort();
    byte[] kinds = new byte[n];
    String[] texts = new String[n];
    for (int i = 0; i < n; i++) {
      byte kind = buffer.get();
      kinds[i] = kind;
      switch (kind) {
        case Tuple.NULL, Tuple.UNCHANGED -> { }
        case Tuple.TEXT -> {
          int length = buffer.getInt();
          texts[i] = new String(buffer.array(), buffer.arrayOffset() + buffer.position(), length,
              StandardCharsets.UTF_8);
          buffer.position(buffer.position() + length);
        }
        case 'b' -> throw new IllegalArgumentException("binary tuple values were not requested");
        default -> throw new IllegalArgumentException("unknown tuple value kind '" + (char) kind + "'");
      }
    }
    return new Tuple(kinds, texts);
  }

  private static void expect(ByteBuffer buffer, char expected, String message) {
    char found = (char) buffer.get();
    if (found != expected) {
      throw new IllegalArgumentException(message + ": expected '" + expected + "', found '" + found + "'");
    }
  }

  private static String string(ByteBuffer buffer) {
    int start = buffer.position();
    int end = start;
    while (buffer.get(end) != 0) {
      end++;
    }
    String s = new String(buffer.array(), buffer.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
    buffer.position(end + 1);
    return s;
  }

  private static Instant time(long pgMicros) {
    long seconds = Math.floorDiv(pgMicros, 1_000_000L);
    long micros = Math.floorMod(pgMicros, 1_000_000L);
    return Instant.ofEpochSecond(PG_EPOCH_SECONDS + seconds, micros * 1000);
  }
}
