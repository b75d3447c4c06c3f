package dev.pg2spanner.live.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.postgresql.replication.LogSequenceNumber;

/** WAL positions as text: exactly pgjdbc's spelling (the server's), and back. */
class LsnTest {

  @Test
  void textIsPgjdbcsSpellingAndParsesBack() {
    long[] edges = {0L, 1L, 0xFFL, 0xFFFFFFFFL, 0x1_0000_0000L, 0x16_B374_D848L, Long.MAX_VALUE, -1L};
    for (long lsn : edges) {
      assertThat(Lsn.text(lsn)).as("%d", lsn).isEqualTo(LogSequenceNumber.valueOf(lsn).asString());
      assertThat(Lsn.parse(Lsn.text(lsn))).isEqualTo(lsn);
    }
    Random random = new Random(30);
    for (int i = 0; i < 10_000; i++) {
      long lsn = random.nextLong() >>> random.nextInt(64);
      assertThat(Lsn.text(lsn)).isEqualTo(LogSequenceNumber.valueOf(lsn).asString());
    }
    assertThat(Lsn.text(0x16_B374_D848L)).isEqualTo("16/B374D848");
  }
}
