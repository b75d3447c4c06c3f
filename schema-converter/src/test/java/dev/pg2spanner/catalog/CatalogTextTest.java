package dev.pg2spanner.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CatalogTextTest {

  @Test
  void checkExpressionIsTheTextInsideCheck() {
    assertThat(CatalogText.checkExpression("CHECK ((price > (0)::numeric))")).isEqualTo("(price > (0)::numeric)");
    assertThat(CatalogText.checkExpression("CHECK ((length(label) < 20)) NOT VALID")).isEqualTo("(length(label) < 20)");
    assertThat(CatalogText.checkExpression("CHECK ((a > 0)) NO INHERIT")).isEqualTo("(a > 0)");
    assertThat(CatalogText.checkExpression("CHECK (((VALUE >= 1901) AND (VALUE <= 2155)))"))
        .isEqualTo("((VALUE >= 1901) AND (VALUE <= 2155))");
  }

  @Test
  void checkExpressionIgnoresParenthesesInsideQuotes() {
    assertThat(CatalogText.checkExpression("CHECK ((note <> ')'::text)) NOT VALID")).isEqualTo("(note <> ')'::text)");
    assertThat(CatalogText.checkExpression("CHECK ((\"we)ird\" <> 'it''s ('::text))"))
        .isEqualTo("(\"we)ird\" <> 'it''s ('::text)");
  }

  @Test
  void checkExpressionLeavesOtherTextAlone() {
    assertThat(CatalogText.checkExpression("  UNIQUE (a) ")).isEqualTo("UNIQUE (a)");
    assertThat(CatalogText.checkExpression("CHECK ((a > 0)")).isEqualTo("CHECK ((a > 0)");
  }

  @Test
  void nextvalArgumentInEverySpelling() {
    assertThat(CatalogText.nextvalArgument("nextval('orders_id_seq'::regclass)")).hasValue("orders_id_seq");
    assertThat(CatalogText.nextvalArgument("nextval('public.x'::regclass)")).hasValue("public.x");
    assertThat(CatalogText.nextvalArgument("nextval('\"Order_Seq\"'::regclass)")).hasValue("\"Order_Seq\"");
    assertThat(CatalogText.nextvalArgument("nextval('\"My Schema\".\"Order_Seq\"'::regclass)"))
        .hasValue("\"My Schema\".\"Order_Seq\"");
    assertThat(CatalogText.nextvalArgument("nextval(('public.shared_ticket_seq'::text)::regclass)"))
        .hasValue("public.shared_ticket_seq");
    assertThat(CatalogText.nextvalArgument("pg_catalog.nextval('s'::regclass)")).hasValue("s");
    assertThat(CatalogText.nextvalArgument("NEXTVAL ( 'S' )")).hasValue("S");
    assertThat(CatalogText.nextvalArgument("nextval('it''s'::regclass)")).hasValue("it's");
    assertThat(CatalogText.nextvalArgument("(nextval('a'::regclass) * 10)")).hasValue("a");
  }

  @Test
  void nextvalArgumentIsEmptyWithoutACallOnALiteral() {
    assertThat(CatalogText.nextvalArgument(null)).isEmpty();
    assertThat(CatalogText.nextvalArgument("now()")).isEmpty();
    assertThat(CatalogText.nextvalArgument("'nextval(''x'')'::text")).isEmpty();
    assertThat(CatalogText.nextvalArgument("my_nextval('x'::regclass)")).isEmpty();
    assertThat(CatalogText.nextvalArgument("nextval(seq_name_column)")).isEmpty();
  }

  @Test
  void triggerDetailSpellsTimingEventsAndLevel() {
    // BEFORE (2) | ROW (1) | UPDATE (16)
    assertThat(CatalogText.triggerDetail(19, "public.film", null))
        .isEqualTo("BEFORE UPDATE ON public.film FOR EACH ROW");
    // BEFORE | ROW | INSERT (4) | UPDATE
    assertThat(CatalogText.triggerDetail(23, "public.film", "public.last_updated()"))
        .isEqualTo("BEFORE INSERT OR UPDATE ON public.film FOR EACH ROW EXECUTE FUNCTION public.last_updated()");
    // AFTER, statement level, DELETE (8) | TRUNCATE (32)
    assertThat(CatalogText.triggerDetail(40, "s.t", null))
        .isEqualTo("AFTER DELETE OR TRUNCATE ON s.t FOR EACH STATEMENT");
    // INSTEAD OF (64) | ROW | INSERT
    assertThat(CatalogText.triggerDetail(69, "s.v", null)).isEqualTo("INSTEAD OF INSERT ON s.v FOR EACH ROW");
  }

  @Test
  void triggerCallIsTheTextAfterExecute() {
    assertThat(CatalogText.triggerCall("CREATE TRIGGER t BEFORE UPDATE ON public.a FOR EACH ROW EXECUTE FUNCTION "
        + "tsvector_update_trigger('fulltext', 'pg_catalog.english', 'title')"))
        .isEqualTo("tsvector_update_trigger('fulltext', 'pg_catalog.english', 'title')");
    assertThat(CatalogText.triggerCall("CREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE PROCEDURE f()"))
        .isEqualTo("f()");
    assertThat(CatalogText.triggerCall(null)).isNull();
  }
}
