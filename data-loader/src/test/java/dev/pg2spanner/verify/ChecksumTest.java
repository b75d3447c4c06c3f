package dev.pg2spanner.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Value;
import dev.pg2spanner.canonical.Canonical;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChecksumTest {

  @Test
  void tableChecksumIsOrderIndependentAndDuplicateSensitive() {
    List<List<Value>> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      rows.add(List.of(Value.int64(i), Value.string("row " + i), Value.float64(i / 3.0)));
    }
    String inOrder = checksum(rows).hex();
    List<List<Value>> shuffled = new ArrayList<>(rows);
    Collections.shuffle(shuffled, new Random(42));
    assertThat(checksum(shuffled).hex()).isEqualTo(inOrder);
    Collections.reverse(shuffled);
    assertThat(checksum(shuffled).hex()).isEqualTo(inOrder);

    List<List<Value>> duplicated = new ArrayList<>(rows);
    duplicated.add(rows.get(7));
    Checksum withDuplicate = checksum(duplicated);
    assertThat(withDuplicate.hex()).isNotEqualTo(inOrder);
    assertThat(withDuplicate.rows()).isEqualTo(501);

    // A row missing and another row doubled: same count, different sum (XOR would hide neither-nor pairs).
    List<List<Value>> swapped = new ArrayList<>(rows);
    swapped.set(3, rows.get(4));
    assertThat(checksum(swapped).hex()).isNotEqualTo(inOrder);
    // Two copies of a row do not cancel out.
    assertThat(checksum(List.of(rows.get(0), rows.get(0))).hex()).isNotEqualTo(checksum(List.of()).hex());
  }

  @Test
  void checksumSumCarriesAcrossTheLowWord() {
    Checksum c = new Checksum();
    byte[] lowAllOnes = new byte[16];
    Arrays.fill(lowAllOnes, 8, 16, (byte) 0xff);
    c.add(lowAllOnes);
    byte[] one = new byte[16];
    one[15] = 1;
    c.add(one);
    assertThat(c.hex()).isEqualTo("00000000000000010000000000000000");
    byte[] allOnes = new byte[16];
    Arrays.fill(allOnes, (byte) 0xff);
    c.add(allOnes); // + (2^128 - 1) mod 2^128 = - 1
    assertThat(c.hex()).isEqualTo("0000000000000000ffffffffffffffff");
    assertThat(c.rows()).isEqualTo(3);
  }

  private static Checksum checksum(List<List<Value>> rows) {
    Checksum c = new Checksum();
    rows.forEach(r -> c.add(Canonical.rowHash(r)));
    return c;
  }
}
