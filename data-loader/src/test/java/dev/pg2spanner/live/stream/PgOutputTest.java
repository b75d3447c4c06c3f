package dev.pg2spanner.live.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** pgoutput protocol 1, byte by byte as PostgreSQL 15 sends it (layouts confirmed on a real stream). */
class PgOutputTest {

  /** Builds a message the way the server writes it: big-endian, NUL-terminated strings. */
  private static final class Msg {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final DataOutputStream out = new DataOutputStream(bytes);

    Msg b(int v) throws IOException {
      out.writeByte(v);
      return this;
    }

    Msg s(int v) throws IOException {
      out.writeShort(v);
      return this;
    }

    Msg i(int v) throws IOException {
      out.writeInt(v);
      return this;
    }

    Msg l(long v) throws IOException {
      out.writeLong(v);
      return this;
    }

    Msg str(String v) throws IOException {
      out.write(v.getBytes(StandardCharsets.UTF_8));
      out.writeByte(0);
      return this;
    }

    Msg raw(String v) throws IOException {
      out.write(v.getBytes(StandardCharsets.UTF_8));
      return this;
    }

    Msg text(String v) throws IOException {
      byte[] b = v.getBytes(StandardCharsets.UTF_8);
      out.writeByte('t');
      out.writeInt(b.length);
      out.write(b);
      return this;
    }

    ByteBuffer buffer() {
      // Offset inside a larger array, as pgjdbc hands out a slice of its receive buffer.
      byte[] b = bytes.toByteArray();
      byte[] padded = new byte[b.length + 10];
      System.arraycopy(b, 0, padded, 5, b.length);
      return ByteBuffer.wrap(padded, 5, b.length).slice();
    }
  }

  @Test
  void beginAndCommitCarryTheCommitPositionsAndTime() throws Exception {
    // 2000-01-01 + 1 s, in microseconds
    PgOutput.Begin begin = (PgOutput.Begin) PgOutput.decode(new Msg().b('B').l(0x19AA028L).l(1_000_000L).i(750)
        .buffer());
    assertThat(begin.finalLsn()).isEqualTo(0x19AA028L);
    assertThat(begin.commitTime()).isEqualTo(Instant.parse("2000-01-01T00:00:01Z"));
    assertThat(begin.xid()).isEqualTo(750);
    PgOutput.Commit commit = (PgOutput.Commit) PgOutput.decode(new Msg().b('C').b(0).l(0x19AA028L).l(0x19AA058L)
        .l(-1L).buffer());
    assertThat(commit.commitLsn()).isEqualTo(0x19AA028L);
    assertThat(commit.endLsn()).isEqualTo(0x19AA058L);
    assertThat(commit.commitTime()).isEqualTo(Instant.parse("1999-12-31T23:59:59.999999Z"));
  }

  @Test
  void aRelationListsItsColumnsAndWhichAreTheKey() throws Exception {
    PgOutput.Relation r = (PgOutput.Relation) PgOutput.decode(new Msg().b('R').i(16405).str("public").str("t_main")
        .b('d').s(3).b(1).str("id").i(23).i(-1).b(0).str("name").i(25).i(-1).b(0).str("päck").i(1043).i(24)
        .buffer());
    assertThat(r.relationId()).isEqualTo(16405);
    assertThat(r.qualifiedName()).isEqualTo("public.t_main");
    assertThat(r.replicaIdentity()).isEqualTo('d');
    assertThat(r.columns()).containsExactly(new PgOutput.Column(true, "id", 23, -1),
        new PgOutput.Column(false, "name", 25, -1), new PgOutput.Column(false, "päck", 1043, 24));
  }

  @Test
  void anUpdateThatMovesTheKeyCarriesTheOldKeyAndMarksUnchangedToastedValues() throws Exception {
    PgOutput.Update u = (PgOutput.Update) PgOutput.decode(new Msg().b('U').i(16405)
        .b('K').s(3).text("1").b('n').b('n')
        .b('N').s(3).text("10").text("one-b").b('u').buffer());
    assertThat(u.oldKind()).isEqualTo('K');
    assertThat(u.old().text(0)).isEqualTo("1");
    assertThat(u.old().kind(1)).isEqualTo(PgOutput.Tuple.NULL);
    assertThat(u.row().text(1)).isEqualTo("one-b");
    assertThat(u.row().kind(2)).isEqualTo(PgOutput.Tuple.UNCHANGED);
    assertThat(u.row().text(2)).isNull();

    PgOutput.Update plain = (PgOutput.Update) PgOutput.decode(new Msg().b('U').i(7).b('N').s(1).text("€ and 😀")
        .buffer());
    assertThat(plain.oldKind()).isEqualTo((char) 0);
    assertThat(plain.old()).isNull();
    assertThat(plain.row().text(0)).isEqualTo("€ and 😀");
  }

  @Test
  void insertsDeletesTruncatesAndMessages() throws Exception {
    PgOutput.Insert i = (PgOutput.Insert) PgOutput.decode(new Msg().b('I').i(9).b('N').s(2).text("").b('n')
        .buffer());
    assertThat(i.row().text(0)).isEmpty();
    assertThat(i.row().kind(1)).isEqualTo(PgOutput.Tuple.NULL);
    PgOutput.Delete d = (PgOutput.Delete) PgOutput.decode(new Msg().b('D').i(9).b('O').s(1).text("x").buffer());
    assertThat(d.oldKind()).isEqualTo('O');
    PgOutput.Truncate t = (PgOutput.Truncate) PgOutput.decode(new Msg().b('T').i(2).b(3).i(16413).i(16405).buffer());
    assertThat(t.relationIds()).containsExactly(16413, 16405);
    assertThat(t.cascade()).isTrue();
    assertThat(t.restartIdentity()).isTrue();
    PgOutput.LogicalMessage m = (PgOutput.LogicalMessage) PgOutput.decode(new Msg().b('M').b(0).l(0x19B3DD0L)
        .str("pg2spanner").i(5).raw("hello").buffer());
    assertThat(m.transactional()).isFalse();
    assertThat(m.prefix()).isEqualTo("pg2spanner");
    assertThat(m.contentText()).isEqualTo("hello");
    assertThat(PgOutput.decode(new Msg().b('Y').i(16400).str("public").str("mood").buffer()))
        .isEqualTo(new PgOutput.TypeInfo(16400, "public", "mood"));
  }

  @Test
  void malformedMessagesAreNamedNotMisread() throws Exception {
    assertThatThrownBy(() -> PgOutput.decode(new Msg().b('B').l(1).buffer()))
        .hasMessage("pgoutput message 'B' is cut short");
    assertThatThrownBy(() -> PgOutput.decode(new Msg().b('I').i(9).b('N').s(1).text("x").b(0).buffer()))
        .hasMessage("pgoutput message 'I' has 1 bytes after its end");
    assertThatThrownBy(() -> PgOutput.decode(new Msg().b('S').buffer()))
        .hasMessageContaining("unknown pgoutput message type 'S'");
    assertThatThrownBy(() -> PgOutput.decode(new Msg().b('I').i(9).b('N').s(1).b('b').buffer()))
        .hasMessage("binary tuple values were not requested");
  }
}
