package dev.pg2spanner.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The typmod values below are what PostgreSQL 15 stores in atttypmod for each declaration (read with psql). */
class TypeModifiersTest {

  @Test
  void noModifierMeansNothingDeclared() {
    assertThat(TypeModifiers.decode("varchar", -1)).isEqualTo(TypeModifiers.NONE);
    assertThat(TypeModifiers.decode("numeric", -1)).isEqualTo(TypeModifiers.NONE);
    assertThat(TypeModifiers.decode("timestamptz", -1)).isEqualTo(TypeModifiers.NONE);
  }

  @Test
  void characterLengthsDropTheVarlenaHeader() {
    assertThat(TypeModifiers.decode("varchar", 44)).isEqualTo(new TypeModifiers(40, null, null)); // varchar(40)
    assertThat(TypeModifiers.decode("bpchar", 9)).isEqualTo(new TypeModifiers(5, null, null)); // char(5)
  }

  @Test
  void bitLengthsAreStoredAsIs() {
    assertThat(TypeModifiers.decode("bit", 8)).isEqualTo(new TypeModifiers(8, null, null));
    assertThat(TypeModifiers.decode("varbit", 16)).isEqualTo(new TypeModifiers(16, null, null));
  }

  @Test
  void numericPrecisionAndScale() {
    assertThat(TypeModifiers.decode("numeric", 3276824)).isEqualTo(new TypeModifiers(null, 50, 20));
    assertThat(TypeModifiers.decode("numeric", (38 << 16 | 9) + 4)).isEqualTo(new TypeModifiers(null, 38, 9));
    assertThat(TypeModifiers.decode("numeric", (12 << 16 | 2) + 4)).isEqualTo(new TypeModifiers(null, 12, 2));
    assertThat(TypeModifiers.decode("numeric", (1000 << 16 | 1000) + 4))
        .isEqualTo(new TypeModifiers(null, 1000, 1000));
  }

  @Test
  void numericNegativeScaleOfPostgres15() {
    // numeric(5,-2): PostgreSQL 15 packs the scale as 11-bit two's complement (-2 & 0x7ff = 2046)
    assertThat(TypeModifiers.decode("numeric", (5 << 16 | 2046) + 4)).isEqualTo(new TypeModifiers(null, 5, -2));
  }

  @Test
  void timePrecision() {
    assertThat(TypeModifiers.decode("timestamp", 3)).isEqualTo(new TypeModifiers(null, 3, null));
    assertThat(TypeModifiers.decode("time", 0)).isEqualTo(new TypeModifiers(null, 0, null));
    assertThat(TypeModifiers.decode("timetz", 6)).isEqualTo(new TypeModifiers(null, 6, null));
    assertThat(TypeModifiers.decode("timestamptz", 1)).isEqualTo(new TypeModifiers(null, 1, null));
  }

  @Test
  void intervalPrecisionSitsBesideItsFieldRange() {
    // interval day to second(2)
    assertThat(TypeModifiers.decode("interval", 470286338)).isEqualTo(new TypeModifiers(null, 2, null));
    // interval year to month: a field range but no precision (low 16 bits all ones)
    assertThat(TypeModifiers.decode("interval", (6 << 16) | 0xFFFF)).isEqualTo(TypeModifiers.NONE);
  }

  @Test
  void otherTypesHaveNoModifiers() {
    assertThat(TypeModifiers.decode("int4", 7)).isEqualTo(TypeModifiers.NONE);
    assertThat(TypeModifiers.decode("text", 44)).isEqualTo(TypeModifiers.NONE);
  }
}
