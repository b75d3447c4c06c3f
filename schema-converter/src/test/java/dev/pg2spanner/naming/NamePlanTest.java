package dev.pg2spanner.naming;

import static dev.pg2spanner.naming.CatalogBuilder.catalog;
import static dev.pg2spanner.naming.CatalogBuilder.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.finding.Finding;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.spanner.SpannerNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NamePlanTest {

  @Test
  void legalNamesStayAsTheyAreWithTheirCase() {
    PgTable t = table("public", "OrderLine").columns("id", "UnitPrice", "qty_2").index("OrderLine_qty").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.table(t)).isEqualTo("OrderLine");
    assertThat(names.column(t, "UnitPrice")).isEqualTo("UnitPrice");
    assertThat(names.column(t, "qty_2")).isEqualTo("qty_2");
    assertThat(names.index(t, "OrderLine_qty")).isEqualTo("OrderLine_qty");
    assertThat(names.renames()).isEmpty();
    assertThat(names.namedSchemas()).isEmpty();
  }

  @Test
  void tablesDifferingOnlyInCaseCollideAndTheQuotedOneIsNumbered() {
    PgTable upper = table("public", "Orders").columns("id").build();
    PgTable lower = table("public", "orders").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(lower).add(upper).build(), true);

    // The one an unquoted identifier reaches in PostgreSQL keeps the name: `FROM orders` reads the same table.
    assertThat(names.table(lower)).isEqualTo("orders");
    assertThat(names.table(upper)).isEqualTo("Orders_2");
    assertThat(names.renames()).singleElement().satisfies(f -> {
      assertThat(f.code()).isEqualTo(FindingCode.NAME_CHANGED);
      assertThat(f.severity()).isEqualTo(Severity.INFO);
      assertThat(f.table()).isEqualTo("public.Orders");
      assertThat(f.message()).contains("Orders_2").contains("case-insensitively").contains("table public.orders")
          .contains("queries that quote it (\"Orders\") must use Orders_2");
      assertThat(f.evidence()).containsEntry("target", "Orders_2");
    });
  }

  @Test
  void ordersOrdersAndORDERSLeaveThePlainNameToTheTableAnUnquotedNameReaches() {
    PgTable plain = table("public", "orders").columns("id").build();
    PgTable capital = table("public", "Orders").columns("id").build();
    PgTable upper = table("public", "ORDERS").columns("id").build();
    for (boolean namedSchemas : new boolean[] {true, false}) {
      NamePlan names = NamePlan.of(catalog().add(upper).add(capital).add(plain).build(), namedSchemas);
      assertThat(names.table(plain)).isEqualTo("orders");
      assertThat(names.table(upper)).isEqualTo("ORDERS_2");
      assertThat(names.table(capital)).isEqualTo("Orders_3");
      assertThat(names.renames()).hasSize(2).allSatisfy(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
    }
  }

  @Test
  void columnsAndReservedWordsFollowTheSameRule() {
    // The quoted columns are older, yet the one `SELECT order FROM t` reaches keeps its name.
    PgTable t = table("public", "t").columns("ID", "ORDER", "Order", "id", "order").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);
    assertThat(names.column(t, "id")).isEqualTo("id");
    assertThat(names.column(t, "ID")).isEqualTo("ID_2");
    assertThat(names.column(t, "order")).isEqualTo("order");
    assertThat(names.column(t, "ORDER")).isEqualTo("ORDER_2");
    assertThat(names.column(t, "Order")).isEqualTo("Order_3");
    assertThat(names.renames()).filteredOn(f -> f.evidence().get("reasons") != null)
        .allSatisfy(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
  }

  @Test
  void aRenameThatChangesWhatAnUnquotedNameReachesIsAWarning() {
    // A sequence and a quoted table may share a name in PostgreSQL; in Spanner the table keeps it, so an unchanged
    // nextval('events') / GET_NEXT_SEQUENCE_VALUE(SEQUENCE events) would reach the table.
    PgCatalog c = catalog().add(table("public", "Events").columns("id").build()).sequence("public", "events").build();
    NamePlan names = NamePlan.of(c, true);
    assertThat(names.sequence(c.sequence("public", "events").orElseThrow())).isEqualTo("events_2");
    assertThat(names.renames()).singleElement().satisfies(f -> {
      assertThat(f.severity()).isEqualTo(Severity.WARNING);
      assertThat(f.message()).contains("an unchanged query that names it events reaches table public.Events in "
          + "Spanner instead: change those queries to events_2");
    });
  }

  @Test
  void columnsDifferingOnlyInCaseKeepTheOlderColumnsName() {
    PgTable t = table("public", "t").columns("id", "total", "Total").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.column(t, "total")).isEqualTo("total");
    assertThat(names.column(t, "Total")).isEqualTo("Total_2");
    assertThat(names.renames()).singleElement().satisfies(f -> {
      assertThat(f.column()).isEqualTo("Total");
      assertThat(f.table()).isEqualTo("public.t");
    });
  }

  @Test
  void aRenameNeverDisplacesALegalName() {
    // "orders_2" is legal and must keep its name; the loser of the orders/Orders collision skips past it.
    PgTable a = table("public", "Orders").columns("id").build();
    PgTable b = table("public", "orders").columns("id").build();
    PgTable c = table("public", "orders_2").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(a).add(b).add(c).build(), true);

    assertThat(names.table(b)).isEqualTo("orders");
    assertThat(names.table(c)).isEqualTo("orders_2");
    assertThat(names.table(a)).isEqualTo("Orders_3");
  }

  @Test
  void sameTableInTwoSchemasWithNamedSchemas() {
    PgTable pub = table("public", "invoices").columns("id").build();
    PgTable billing = table("billing", "invoices").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(pub).add(billing).build(), true);

    assertThat(names.table(pub)).isEqualTo("invoices");
    assertThat(names.table(billing)).isEqualTo("billing.invoices");
    assertThat(names.namedSchemas()).containsExactly("billing");
    assertThat(names.renames()).isEmpty();
  }

  @Test
  void sameTableInTwoSchemasWithoutNamedSchemasGetsASchemaPrefix() {
    PgTable pub = table("public", "invoices").columns("id").build();
    PgTable billing = table("billing", "invoices").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(pub).add(billing).build(), false);

    assertThat(names.table(pub)).isEqualTo("invoices");
    assertThat(names.table(billing)).isEqualTo("billing_invoices");
    assertThat(names.namedSchemas()).isEmpty();
    assertThat(names.renames()).singleElement().satisfies(f -> {
      assertThat(f.table()).isEqualTo("billing.invoices");
      assertThat(f.message()).contains("prefixed with its schema billing");
    });
  }

  @Test
  void aSchemaPrefixThatCollidesWithARealTableIsNumbered() {
    PgTable real = table("public", "billing_invoices").columns("id").build();
    PgTable prefixed = table("billing", "invoices").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(prefixed).add(real).build(), false);

    assertThat(names.table(real)).isEqualTo("billing_invoices");
    assertThat(names.table(prefixed)).isEqualTo("billing_invoices_2");
  }

  @Test
  void indexesWithTheSameNameInTwoSchemasCollideWithoutNamedSchemasOnly() {
    PgTable pub = table("public", "invoices").columns("id").index("by_date").build();
    PgTable billing = table("billing", "invoices").columns("id").index("by_date").build();

    NamePlan named = NamePlan.of(catalog().add(pub).add(billing).build(), true);
    assertThat(named.index(pub, "by_date")).isEqualTo("by_date");
    assertThat(named.index(billing, "by_date")).isEqualTo("billing.by_date");

    NamePlan flat = NamePlan.of(catalog().add(pub).add(billing).build(), false);
    assertThat(flat.index(pub, "by_date")).isEqualTo("by_date");
    assertThat(flat.index(billing, "by_date")).isEqualTo("billing_by_date");
  }

  @Test
  void indexNamedLikeATableIsRenamedAndTheTableKeepsItsName() {
    // PostgreSQL allows this: indexes and tables are both relations, but this index lives in another schema.
    PgTable orders = table("public", "orders").columns("id").build();
    PgTable archive = table("public", "archive").columns("id").index("Orders").build();
    NamePlan names = NamePlan.of(catalog().add(archive).add(orders).build(), true);

    assertThat(names.table(orders)).isEqualTo("orders");
    assertThat(names.index(archive, "Orders")).isEqualTo("Orders_2");
    assertThat(names.renames()).singleElement().satisfies(f -> {
      assertThat(f.table()).isEqualTo("public.archive");
      assertThat(f.index()).isEqualTo("Orders");
      assertThat(f.message()).contains("table public.orders");
    });
  }

  @Test
  void constraintsShareTheNamespaceWithTablesAndEachOther() {
    // PostgreSQL constraint names are unique per table only.
    PgTable a = table("public", "a").columns("qty").check("positive").build();
    PgTable b = table("public", "b").columns("qty").check("positive").foreignKey("a", "public", "a").build();
    NamePlan names = NamePlan.of(catalog().add(b).add(a).build(), true);

    assertThat(names.constraint(a, "positive")).isEqualTo("positive");
    assertThat(names.constraint(b, "positive")).isEqualTo("positive_2");
    assertThat(names.constraint(b, "a")).isEqualTo("a_2");
    assertThat(names.table(a)).isEqualTo("a");
  }

  @Test
  void uniqueConstraintsAreNamedAsIndexes() {
    PgTable t = table("public", "users").columns("email").unique("users_email_key").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);
    assertThat(names.index(t, "users_email_key")).isEqualTo("users_email_key");
  }

  @Test
  void reservedWordsAreKeptWithAnInfoFinding() {
    PgTable t = table("public", "order").columns("id", "select").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.table(t)).isEqualTo("order");
    assertThat(names.column(t, "select")).isEqualTo("select");
    assertThat(SpannerNames.quote(names.table(t))).isEqualTo("`order`");
    assertThat(names.renames()).hasSize(2).allSatisfy(f -> {
      assertThat(f.severity()).isEqualTo(Severity.INFO);
      assertThat(f.message()).contains("reserved word").contains("back-quotes");
      assertThat(f.evidence()).containsEntry("reserved", true);
    });
    assertThat(names.renames()).extracting(Finding::column).containsExactly(null, "select");
  }

  @Test
  void unicodeSpacesAndPunctuationAreSanitised() {
    PgTable t = table("public", "Commandes clients").columns("id", "prénom", "Prix (€)", "order total", "naïve-café",
        "Straße", "日本語", "中文").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.table(t)).isEqualTo("Commandes_clients");
    assertThat(names.column(t, "prénom")).isEqualTo("prenom");
    assertThat(names.column(t, "Prix (€)")).isEqualTo("Prix");
    assertThat(names.column(t, "order total")).isEqualTo("order_total");
    assertThat(names.column(t, "naïve-café")).isEqualTo("naive_cafe");
    assertThat(names.column(t, "Straße")).isEqualTo("Strasse");
    // Nothing Latin survives: a stable hash keeps the two apart.
    String japanese = names.column(t, "日本語");
    String chinese = names.column(t, "中文");
    assertThat(japanese).matches("c_[0-9a-f]{8}");
    assertThat(chinese).matches("c_[0-9a-f]{8}").isNotEqualTo(japanese);
    assertThat(names.renames()).filteredOn(f -> "prénom".equals(f.column())).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("characters Spanner identifiers do not allow"));
  }

  @Test
  void leadingNonLettersGetAPrefix() {
    PgTable t = table("public", "2020_sales").columns("_id", "1st", "$amount").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.table(t)).isEqualTo("t_2020_sales");
    assertThat(names.column(t, "_id")).isEqualTo("c_id");
    assertThat(names.column(t, "1st")).isEqualTo("c_1st");
    assertThat(names.column(t, "$amount")).isEqualTo("c_amount");
    assertThat(names.renames()).filteredOn(f -> "_id".equals(f.column())).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("does not start with a letter"));
  }

  @Test
  void sixtyThreeCharacterNamesFitAndLongerOnesAreCutWithAStableHash() {
    String pg63 = "a".repeat(63);
    PgTable t = table("public", pg63).columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);
    assertThat(names.table(t)).isEqualTo(pg63);

    // Without named schemas, a 63-character schema + "_" + 63-character name + a prefix stays within 128...
    PgTable deep = table("s".repeat(63), "t".repeat(63)).columns("id").build();
    NamePlan flat = NamePlan.of(catalog().add(deep).build(), false);
    assertThat(flat.table(deep)).isEqualTo("s".repeat(63) + "_" + "t".repeat(63)).hasSize(127);

    // ... but multi-byte names sanitised and prefixed can exceed it: then the name is cut and hashed.
    PgTable wide = table("é".repeat(31), "Ωmega ".repeat(10) + "x".repeat(70)).columns("id").build();
    String once = NamePlan.of(catalog().add(wide).build(), false).table(wide);
    String twice = NamePlan.of(catalog().add(wide).build(), false).table(wide);
    assertThat(once).hasSizeLessThanOrEqualTo(128).matches("[A-Za-z][A-Za-z0-9_]*_[0-9a-f]{8}").isEqualTo(twice);
  }

  @Test
  void collisionSuffixesKeepLongNamesWithinTheLimit() {
    String name = "x".repeat(128);
    PgTable a = table("public", name).columns("id").build();
    PgTable b = table("public", name.toUpperCase(Locale.ROOT)).columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(a).add(b).build(), true);
    assertThat(names.table(a)).isEqualTo(name);
    assertThat(names.table(b)).hasSize(128).endsWith("_2");
  }

  @Test
  void namedSchemaNamesAreSanitisedAndAvoidSpannersOwn() {
    PgTable a = table("Billing Dept", "invoices").columns("id").build();
    PgTable b = table("spanner_sys", "stats").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(a).add(b).build(), true);

    assertThat(names.table(a)).isEqualTo("Billing_Dept.invoices");
    assertThat(names.table(b)).isEqualTo("spanner_sys_2.stats");
    assertThat(names.namedSchemas()).containsExactly("Billing_Dept", "spanner_sys_2");
  }

  @Test
  void sequencesAreNamedInTheirSchema() {
    PgCatalog c = catalog().add(table("public", "orders_id_seq").columns("id").build())
        .sequence("public", "orders_id_seq").sequence("billing", "inv_seq").build();
    NamePlan names = NamePlan.of(c, true);
    PgSequence clash = c.sequence("public", "orders_id_seq").orElseThrow();
    PgSequence billing = c.sequence("billing", "inv_seq").orElseThrow();
    assertThat(names.sequence(clash)).isEqualTo("orders_id_seq_2");
    assertThat(names.sequence(billing)).isEqualTo("billing.inv_seq");
    assertThat(NamePlan.of(c, false).sequence(billing)).isEqualTo("billing_inv_seq");
  }

  @Test
  void newColumnAvoidsExistingColumnsCaseInsensitivelyAndIsPure() {
    PgTable t = table("public", "orders").columns("id", "Shard_Id").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);

    assertThat(names.newColumn(t, "shard_id")).isEqualTo("shard_id_2");
    assertThat(names.newColumn(t, "shard_id")).isEqualTo("shard_id_2");
    assertThat(names.newColumn(t, "row_id")).isEqualTo("row_id");
  }

  @Test
  void newColumnAvoidsRenamedColumns() {
    // "shard id" becomes shard_id, so a new shard_id must not take that name.
    PgTable t = table("public", "orders").columns("id", "shard id").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);
    assertThat(names.column(t, "shard id")).isEqualTo("shard_id");
    assertThat(names.newColumn(t, "shard_id")).isEqualTo("shard_id_2");
  }

  @Test
  void newObjectAvoidsEveryObjectInTheSchemaNamespace() {
    PgTable t = table("public", "orders").columns("status").index("orders_status_check_idx")
        .check("orders_status_check").build();
    PgTable other = table("public", "orders_status_enum").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(t).add(other).build(), true);

    assertThat(names.newObject(t, "orders_status_check")).isEqualTo("orders_status_check_2");
    assertThat(names.newObject(t, "ORDERS_STATUS_ENUM")).isEqualTo("ORDERS_STATUS_ENUM_2");
    assertThat(names.newObject(t, "orders_status_enum_check")).isEqualTo("orders_status_enum_check");
    assertThat(names.newObject(t, "orders_status_check")).isEqualTo("orders_status_check_2");
  }

  @Test
  void unknownObjectsAreAProgrammingError() {
    PgTable t = table("public", "orders").columns("id").build();
    PgTable stranger = table("public", "other").columns("id").build();
    NamePlan names = NamePlan.of(catalog().add(t).build(), true);
    assertThatThrownBy(() -> names.table(stranger)).hasMessageContaining("public.other");
    assertThatThrownBy(() -> names.column(t, "nope")).hasMessageContaining("public.orders.nope");
    assertThatThrownBy(() -> names.constraint(t, "orders_pkey")).hasMessageContaining("orders_pkey");
  }

  @Test
  void sameCatalogInAnyOrderGivesTheSameNamesAndFindings() {
    List<PgTable> tables = new ArrayList<>();
    tables.add(table("public", "Orders").columns("id", "Total", "total", "select").index("orders").build());
    tables.add(table("public", "orders").columns("id", "x y").check("c1").build());
    tables.add(table("public", "ORDERS").columns("id").check("C1").build());
    tables.add(table("billing", "orders").columns("id").index("Orders_idx").build());
    tables.add(table("Billing", "orders").columns("id").build());
    tables.add(table("public", "billing_orders").columns("id").foreignKey("c1", "public", "orders").build());

    for (boolean named : new boolean[] {true, false}) {
      NamePlan reference = NamePlan.of(catalogOf(tables), named);
      Random random = new Random(42);
      for (int round = 0; round < 20; round++) {
        List<PgTable> shuffled = new ArrayList<>(tables);
        Collections.shuffle(shuffled, random);
        NamePlan again = NamePlan.of(catalogOf(shuffled), named);
        for (PgTable t : tables) {
          assertThat(again.table(t)).isEqualTo(reference.table(t));
          t.columns().forEach(c -> assertThat(again.column(t, c.name())).isEqualTo(reference.column(t, c.name())));
          t.indexes().forEach(i -> assertThat(again.index(t, i.name())).isEqualTo(reference.index(t, i.name())));
          t.checks().forEach(c -> assertThat(again.constraint(t, c.name()))
              .isEqualTo(reference.constraint(t, c.name())));
        }
        assertThat(again.renames()).isEqualTo(reference.renames());
        assertThat(again.namedSchemas()).isEqualTo(reference.namedSchemas());
      }
      assertAllDistinct(reference, tables);
    }
  }

  private static void assertAllDistinct(NamePlan names, List<PgTable> tables) {
    Set<String> schemaObjects = new HashSet<>();
    for (PgTable t : tables) {
      assertThat(schemaObjects.add(names.table(t).toLowerCase(Locale.ROOT))).isTrue();
      t.indexes().forEach(i -> assertThat(schemaObjects.add(names.index(t, i.name()).toLowerCase(Locale.ROOT)))
          .isTrue());
      t.checks().forEach(c -> assertThat(schemaObjects.add(names.constraint(t, c.name()).toLowerCase(Locale.ROOT)))
          .isTrue());
      Set<String> cols = new HashSet<>();
      t.columns().forEach(c -> assertThat(cols.add(names.column(t, c.name()).toLowerCase(Locale.ROOT))).isTrue());
    }
  }

  private static PgCatalog catalogOf(List<PgTable> tables) {
    CatalogBuilder b = catalog();
    tables.forEach(b::add);
    return b.build();
  }
}
