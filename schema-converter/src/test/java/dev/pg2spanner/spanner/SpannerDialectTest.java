package dev.pg2spanner.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The limits themselves (as Google's quotas page and the emulator state them), and the ones this package enforces,
 * at their boundary. The other checks have their boundary tests beside them (PlanValidatorTest, PlannerLimitsTest,
 * InterleaveDepthTest, TypeMapperTest, NamePlanTest, and the loader's ValueParsersTest, BatchingSinkTest,
 * TableConverterTest).
 */
class SpannerDialectTest {

  private static final SpannerLimits GOOGLE_SQL = SpannerDialect.GOOGLE_STANDARD_SQL.limits();

  @Test
  void googleSqlLimits() {
    assertThat(SpannerDialect.GOOGLE_STANDARD_SQL.dialect()).isEqualTo("GOOGLE_STANDARD_SQL");
    assertThat(GOOGLE_SQL.maxKeyColumns()).isEqualTo(16);
    assertThat(GOOGLE_SQL.maxIndexKeyColumns()).isEqualTo(16);
    assertThat(GOOGLE_SQL.maxKeyBytes()).isEqualTo(8_192);
    assertThat(GOOGLE_SQL.maxCellBytes()).isEqualTo(10_485_760);
    assertThat(GOOGLE_SQL.maxStringLength()).isEqualTo(2_621_440);
    assertThat(GOOGLE_SQL.maxColumnsPerTable()).isEqualTo(1_024);
    assertThat(GOOGLE_SQL.maxIdentifierLength()).isEqualTo(128);
    assertThat(GOOGLE_SQL.maxInterleaveDepth()).isEqualTo(7);
    assertThat(GOOGLE_SQL.maxMutationsPerCommit()).isEqualTo(80_000);
    assertThat(GOOGLE_SQL.maxCommitBytes()).isEqualTo(104_857_600);
    assertThat(GOOGLE_SQL.numericPrecision()).isEqualTo(38);
    assertThat(GOOGLE_SQL.numericScale()).isEqualTo(9);
    assertThat(GOOGLE_SQL.numericIntegerDigits()).isEqualTo(29);
  }

  @Test
  void thePostgreSqlDialectDiffersOnlyInNumeric() {
    SpannerLimits pg = SpannerDialect.POSTGRESQL.limits();
    assertThat(SpannerDialect.POSTGRESQL.dialect()).isEqualTo("POSTGRESQL");
    assertThat(pg.numericPrecision()).isEqualTo(147_455);
    assertThat(pg.numericScale()).isEqualTo(16_383);
    assertThat(pg.numericIntegerDigits()).isEqualTo(131_072);
    assertThat(pg.maxKeyColumns()).isEqualTo(GOOGLE_SQL.maxKeyColumns());
    assertThat(pg.maxIndexKeyColumns()).isEqualTo(GOOGLE_SQL.maxIndexKeyColumns());
    assertThat(pg.maxKeyBytes()).isEqualTo(GOOGLE_SQL.maxKeyBytes());
    assertThat(pg.maxCellBytes()).isEqualTo(GOOGLE_SQL.maxCellBytes());
    assertThat(pg.maxStringLength()).isEqualTo(GOOGLE_SQL.maxStringLength());
    assertThat(pg.maxColumnsPerTable()).isEqualTo(GOOGLE_SQL.maxColumnsPerTable());
    assertThat(pg.maxIdentifierLength()).isEqualTo(GOOGLE_SQL.maxIdentifierLength());
    assertThat(pg.maxInterleaveDepth()).isEqualTo(GOOGLE_SQL.maxInterleaveDepth());
    assertThat(pg.maxMutationsPerCommit()).isEqualTo(GOOGLE_SQL.maxMutationsPerCommit());
    assertThat(pg.maxCommitBytes()).isEqualTo(GOOGLE_SQL.maxCommitBytes());
  }

  @Test
  void aDialectIsNamedByThePlanOrByTheUser() {
    assertThat(SpannerDialect.named("pg")).isEqualTo(SpannerDialect.POSTGRESQL);
    assertThat(SpannerDialect.named(" GoogleSQL ")).isEqualTo(SpannerDialect.GOOGLE_STANDARD_SQL);
    assertThat(SpannerDialect.named("POSTGRESQL").limits()).isSameAs(SpannerLimits.POSTGRESQL);
    assertThatThrownBy(() -> SpannerDialect.named("mysql")).hasMessageContaining("'mysql' is not a Spanner dialect");
  }

  @Test
  void stringAndBytesLengthsStopAtTheLimit() {
    assertThat(SpannerType.parse("STRING(2621440)")).isEqualTo(SpannerType.string(2_621_440));
    assertThatThrownBy(() -> SpannerType.parse("STRING(2621441)")).hasMessageContaining("outside 1..2621440");
    assertThat(SpannerType.parse("BYTES(10485760)").length()).isEqualTo(10_485_760);
    assertThatThrownBy(() -> SpannerType.parse("BYTES(10485761)")).hasMessageContaining("outside 1..10485760");
  }

  @Test
  void identifiersStopAtTheLimit() {
    assertThat(SpannerNames.IDENTIFIER.matcher("a".repeat(128)).matches()).isTrue();
    assertThat(SpannerNames.IDENTIFIER.matcher("a".repeat(129)).matches()).isFalse();
    assertThat(SpannerNames.quote("a".repeat(128))).isEqualTo("a".repeat(128));
  }
}
