package dev.pg2spanner.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The PostgreSQL dialect's spelling of types and names, and the dialect names users may type. */
class PostgresDialectSpellingTest {

  private static final SpannerDialect PG = SpannerDialect.POSTGRESQL;

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"INT64,bigint", "BOOL,boolean", "FLOAT32,real", "FLOAT64,double precision", "NUMERIC,numeric",
      "STRING(MAX),varchar", "STRING(36),varchar(36)", "BYTES(MAX),bytea", "BYTES(16),bytea", "DATE,date",
      "TIMESTAMP,timestamptz", "JSON,jsonb", "ARRAY<STRING(MAX)>,varchar[]", "ARRAY<NUMERIC>,numeric[]"})
  void everyTypeHasAPostgresSpellingThatReadsBack(String google, String postgres) {
    SpannerType type = SpannerType.parse(google);
    assertThat(type.ddl(PG)).isEqualTo(postgres);
    SpannerType back = SpannerType.parse(PG, postgres);
    assertThat(back.base()).isEqualTo(type.base());
    if (type.base() != SpannerType.Base.BYTES) {
      assertThat(back).isEqualTo(type); // bytea has no length: BYTES(16) reads back as BYTES(MAX)
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"int8,INT64", "text,STRING(MAX)", "character varying(5),STRING(5)", "timestamp with time zone,TIMESTAMP",
      "float8,FLOAT64", "DECIMAL,NUMERIC", "bool,BOOL"})
  void postgresAliasesAreAccepted(String alias, String google) {
    assertThat(SpannerType.parse(PG, alias)).isEqualTo(SpannerType.parse(google));
  }

  @Test
  void typesThePostgresDialectLacksAreRefusedByName() {
    assertThatThrownBy(() -> SpannerType.parse(PG, "timestamp")).hasMessageContaining("'timestamp' is not a Spanner "
        + "PostgreSQL-dialect column type");
    assertThatThrownBy(() -> SpannerType.parse(PG, "char(3)")).hasMessageContaining("char(3)");
    assertThatThrownBy(() -> SpannerType.parse(PG, "bigint[][]")).hasMessageContaining("one dimension");
    assertThatThrownBy(() -> SpannerType.parse(PG, "STRING(10)")).hasMessageContaining("PostgreSQL-dialect");
  }

  @Test
  void namesKeepPostgresCaseRules() {
    assertThat(SpannerNames.quote(PG, "orders")).isEqualTo("orders");
    assertThat(SpannerNames.quote(PG, "order")).isEqualTo("\"order\"");
    assertThat(SpannerNames.quote(PG, "Order")).isEqualTo("\"Order\"");
    assertThat(SpannerNames.quote(PG, "user")).isEqualTo("\"user\"");
    assertThat(SpannerNames.quote(PG, "a\"b")).isEqualTo("\"a\"\"b\"");
    assertThat(SpannerNames.dotted(PG, "Billing.invoices")).isEqualTo("\"Billing\".invoices");
    // GoogleSQL keeps its own rules.
    assertThat(SpannerNames.quote(SpannerDialect.GOOGLE_STANDARD_SQL, "Order")).isEqualTo("`Order`");
    assertThat(SpannerNames.quote(SpannerDialect.GOOGLE_STANDARD_SQL, "Orders")).isEqualTo("Orders");
  }

  @Test
  void keysFollowEachDialectsRules() {
    assertThat(SpannerDialect.GOOGLE_STANDARD_SQL.canBeKey(SpannerType.NUMERIC)).isTrue();
    assertThat(PG.canBeKey(SpannerType.NUMERIC)).isFalse();
    assertThat(PG.canBeKey(SpannerType.FLOAT32)).isFalse();
    assertThat(PG.canBeKey(SpannerType.FLOAT64)).isTrue();
    assertThat(PG.canBeKey(SpannerType.JSON)).isFalse();
    assertThat(SpannerDialect.GOOGLE_STANDARD_SQL.canBeKey(SpannerType.JSON)).isFalse();
  }

  @Test
  void dialectNamesAsUsersTypeThem() {
    assertThat(SpannerDialect.named("postgresql")).isEqualTo(PG);
    assertThat(SpannerDialect.named("PG")).isEqualTo(PG);
    assertThat(SpannerDialect.named("googlesql")).isEqualTo(SpannerDialect.GOOGLE_STANDARD_SQL);
    assertThat(SpannerDialect.named("GOOGLE_STANDARD_SQL")).isEqualTo(SpannerDialect.GOOGLE_STANDARD_SQL);
    assertThatThrownBy(() -> SpannerDialect.named("mysql")).hasMessage("'mysql' is not a Spanner dialect; use "
        + "googlesql or postgresql");
  }
}
