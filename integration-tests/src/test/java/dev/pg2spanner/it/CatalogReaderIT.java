package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.pg2spanner.catalog.CatalogFilter;
import dev.pg2spanner.catalog.CatalogReader;
import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgForeignKey;
import dev.pg2spanner.catalog.PgForeignKey.Action;
import dev.pg2spanner.catalog.PgIndex;
import dev.pg2spanner.catalog.PgObject;
import dev.pg2spanner.catalog.PgObject.Kind;
import dev.pg2spanner.catalog.PgSequence;
import dev.pg2spanner.catalog.PgTable;
import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Reads real schemas from a real PostgreSQL and checks every fact the catalog model promises. */
class CatalogReaderIT {

  static PgCatalog read(PgTestDatabase pg, CatalogFilter filter) throws Exception {
    try (Connection c = pg.connect()) {
      return new CatalogReader(filter).read(c);
    }
  }

  static PgTable table(PgCatalog catalog, String schema, String name) {
    return catalog.table(schema, name).orElseThrow(() -> new AssertionError("no table " + schema + "." + name
        + " in " + catalog.tables().stream().map(PgTable::qualifiedName).toList()));
  }

  static PgColumn column(PgTable table, String name) {
    return table.column(name).orElseThrow(() -> new AssertionError("no column " + name + " in "
        + table.qualifiedName()));
  }

  static PgIndex index(PgTable table, String name) {
    return table.indexes().stream().filter(i -> i.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no index " + name + " on " + table.qualifiedName()));
  }

  static PgForeignKey foreignKey(PgTable table, String name) {
    return table.foreignKeys().stream().filter(f -> f.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no foreign key " + name + " on " + table.qualifiedName()));
  }

  static List<PgObject> objects(PgCatalog catalog, Kind kind) {
    return catalog.otherObjects().stream().filter(o -> o.kind() == kind).toList();
  }

  /** Pagila: a real-world schema dumped by pg_dump. */
  @Nested
  @WithPostgres
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class Pagila {

    PgCatalog catalog;
    String database;

    @BeforeAll
    void load(PgTestDatabase pg) throws Exception {
      String script = Files.readString(Fixtures.pagilaSchema(), StandardCharsets.UTF_8);
      // JDBC sends the script as-is, so it must be plain SQL: a psql meta-command (a line starting with a
      // backslash, e.g. \connect or \.) would be a syntax error. The README promises none; keep it so.
      assertThat(script.lines().filter(l -> l.stripLeading().startsWith("\\")).toList())
          .as("psql meta-commands in pagila-schema.sql").isEmpty();
      pg.runScript(Fixtures.pagilaSchema());
      database = pg.name();
      catalog = read(pg, CatalogFilter.all());
    }

    @Test
    void serverAndDatabase() {
      assertThat(catalog.database()).isEqualTo(database);
      assertThat(catalog.serverVersionNum()).isGreaterThanOrEqualTo(110000);
      assertThat(catalog.serverVersion()).isNotBlank();
    }

    @Test
    void tablesAreTheFifteenPagilaTablesWithoutPartitions() {
      assertThat(catalog.tables()).extracting(PgTable::qualifiedName).containsExactly(
          "public.actor", "public.address", "public.category", "public.city", "public.country", "public.customer",
          "public.film", "public.film_actor", "public.film_category", "public.inventory", "public.language",
          "public.payment", "public.rental", "public.staff", "public.store");
    }

    @Test
    void paymentIsPartitionedByMonth() {
      PgTable payment = table(catalog, "public", "payment");
      assertThat(payment.kind()).isEqualTo(PgTable.Kind.PARTITIONED);
      assertThat(payment.partitioning().strategy()).isEqualTo("RANGE");
      assertThat(payment.partitioning().key()).isEqualTo("RANGE (payment_date)");
      // 2022-01 .. 2026-07: 55 monthly partitions
      assertThat(payment.partitioning().partitions()).hasSize(55)
          .startsWith("public.payment_p2022_01", "public.payment_p2022_02").endsWith("public.payment_p2026_07");
      assertThat(payment.primaryKey().name()).isEqualTo("payment_pkey");
      assertThat(payment.primaryKey().columns()).containsExactly("payment_date", "payment_id");
      assertThat(column(payment, "payment_id").sequence()).isEqualTo("public.payment_payment_id_seq");
      assertThat(column(payment, "amount").type().display()).isEqualTo("numeric(5,2)");
      assertThat(catalog.sequence("public", "payment_payment_id_seq").orElseThrow().usedBy())
          .containsExactly("public.payment.payment_id");
    }

    @Test
    void neverAnalyzedTablesHaveNoRowEstimate() {
      if (catalog.serverVersionNum() >= 140000) { // before 14, reltuples is 0 rather than -1 when unknown
        assertThat(table(catalog, "public", "film").stats().rowEstimate()).isNull();
        assertThat(table(catalog, "public", "payment").stats().rowEstimate()).isNull();
      }
      assertThat(table(catalog, "public", "film").stats().totalBytes()).isPositive();
    }

    @Test
    void filmActorKeyAndForeignKeys() {
      PgTable filmActor = table(catalog, "public", "film_actor");
      assertThat(filmActor.primaryKey().name()).isEqualTo("film_actor_pkey");
      assertThat(filmActor.primaryKey().columns()).containsExactly("actor_id", "film_id");
      assertThat(filmActor.foreignKeys())
          .extracting(PgForeignKey::name, PgForeignKey::columns, PgForeignKey::referencedQualifiedName,
              PgForeignKey::referencedColumns, PgForeignKey::onDelete, PgForeignKey::onUpdate)
          .containsExactly(
              tuple("film_actor_actor_id_fkey", List.of("actor_id"), "public.actor", List.of("actor_id"),
                  Action.RESTRICT, Action.CASCADE),
              tuple("film_actor_film_id_fkey", List.of("film_id"), "public.film", List.of("film_id"),
                  Action.RESTRICT, Action.CASCADE));
      // staff_store_id_fkey declares no actions
      PgForeignKey staffStore = foreignKey(table(catalog, "public", "staff"), "staff_store_id_fkey");
      assertThat(staffStore.onDelete()).isEqualTo(Action.NO_ACTION);
      assertThat(staffStore.onUpdate()).isEqualTo(Action.NO_ACTION);
    }

    @Test
    void filmColumnTypes() {
      PgTable film = table(catalog, "public", "film");
      PgType rating = column(film, "rating").type();
      assertThat(rating.kind()).isEqualTo(PgType.Kind.ENUM);
      assertThat(rating.schema()).isEqualTo("public");
      assertThat(rating.name()).isEqualTo("mpaa_rating");
      assertThat(rating.enumLabels()).containsExactly("G", "PG", "PG-13", "R", "NC-17");

      PgType year = column(film, "release_year").type();
      assertThat(year.kind()).isEqualTo(PgType.Kind.DOMAIN);
      assertThat(year.name()).isEqualTo("year");
      assertThat(year.domainBase().name()).isEqualTo("int4");
      assertThat(year.domainBase().display()).isEqualTo("integer");
      assertThat(year.domainChecks()).containsExactly("((VALUE >= 1901) AND (VALUE <= 2155))");

      PgType features = column(film, "special_features").type();
      assertThat(features.array()).isTrue();
      assertThat(features.name()).isEqualTo("text");
      assertThat(features.display()).isEqualTo("text[]");

      PgColumn fulltext = column(film, "fulltext");
      assertThat(fulltext.type().name()).isEqualTo("tsvector");
      assertThat(fulltext.notNull()).isTrue();

      assertThat(column(film, "rental_rate").type()).extracting(PgType::precision, PgType::scale)
          .containsExactly(4, 2);
      assertThat(column(film, "last_update").defaultExpression()).isEqualTo("now()");
      assertThat(film.columns()).extracting(PgColumn::position)
          .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
    }

    @Test
    void customerIdIsFedByItsSequenceThatNothingOwns() {
      PgColumn id = column(table(catalog, "public", "customer"), "customer_id");
      assertThat(id.sequence()).isEqualTo("public.customer_customer_id_seq");
      assertThat(id.defaultExpression()).isEqualTo("nextval('public.customer_customer_id_seq'::regclass)");
      PgSequence seq = catalog.sequence("public", "customer_customer_id_seq").orElseThrow();
      assertThat(seq.ownedBy()).isNull(); // the dump has no OWNED BY
      assertThat(seq.usedBy()).containsExactly("public.customer.customer_id");
      assertThat(seq.lastValue()).isNull(); // never used
      assertThat(seq.dataType()).isEqualTo("bigint");
      assertThat(catalog.sequences()).hasSize(13);
    }

    @Test
    void enumsAndDomains() {
      assertThat(catalog.enums()).singleElement().satisfies(e -> {
        assertThat(e.name()).isEqualTo("mpaa_rating");
        assertThat(e.labels()).containsExactly("G", "PG", "PG-13", "R", "NC-17");
      });
      // "bıgınt" (dotless i) is defined in public though no column uses it
      assertThat(catalog.domains()).extracting(d -> d.schema() + "." + d.name())
          .containsExactly("public.bıgınt", "public.year");
    }

    @Test
    void indexes() {
      PgTable film = table(catalog, "public", "film");
      assertThat(film.indexes()).extracting(PgIndex::name)
          .containsExactly("film_fulltext_idx", "idx_fk_language_id", "idx_fk_original_language_id", "idx_title");
      assertThat(index(film, "film_fulltext_idx").method()).isEqualTo("gist");
      PgIndex rentalUnique = index(table(catalog, "public", "rental"),
          "idx_unq_rental_rental_date_inventory_id_customer_id");
      assertThat(rentalUnique.unique()).isTrue();
      assertThat(rentalUnique.constraint()).isNull();
      assertThat(rentalUnique.elements()).extracting(PgIndex.Element::column)
          .containsExactly("rental_date", "inventory_id", "customer_id");
      // the primary key's index is not a secondary index; the per-partition indexes of payment are not its own
      assertThat(table(catalog, "public", "film_actor").indexes()).extracting(PgIndex::name)
          .containsExactly("idx_fk_film_id");
      assertThat(table(catalog, "public", "payment").indexes()).isEmpty();
      // the last_update indexes the README mentions are not in this revision of the dump: no table has one
      assertThat(catalog.tables()).flatExtracting(PgTable::indexes).flatExtracting(PgIndex::elements)
          .extracting(PgIndex.Element::column).doesNotContain("last_update");
    }

    @Test
    void viewsTriggersAndFunctionsAreListed() {
      assertThat(objects(catalog, Kind.VIEW)).extracting(PgObject::name).containsExactly("actor_info",
          "customer_list", "film_list", "nicer_but_slower_film_list", "sales_by_film_category", "sales_by_store",
          "staff_list");
      assertThat(objects(catalog, Kind.MATERIALIZED_VIEW)).extracting(PgObject::name)
          .containsExactly("rental_by_category");
      List<PgObject> triggers = objects(catalog, Kind.TRIGGER);
      assertThat(triggers).hasSize(15);
      assertThat(triggers).filteredOn(t -> t.on().equals("public.film")).extracting(PgObject::name, PgObject::detail)
          .containsExactly(
              tuple("film_fulltext_trigger", "BEFORE INSERT OR UPDATE ON public.film FOR EACH ROW EXECUTE FUNCTION "
                  + "tsvector_update_trigger('fulltext', 'pg_catalog.english', 'title', 'description')"),
              tuple("last_updated", "BEFORE UPDATE ON public.film FOR EACH ROW EXECUTE FUNCTION "
                  + "public.last_updated()"));
      assertThat(objects(catalog, Kind.FUNCTION)).extracting(PgObject::name).contains("last_updated",
          "film_in_stock", "get_customer_balance", "rewards_report", "_group_concat");
      assertThat(objects(catalog, Kind.AGGREGATE)).extracting(PgObject::name).containsExactly("group_concat");
    }
  }

  /** The zoo: every catalog corner pg2spanner cares about, built for these assertions. */
  @Nested
  @WithPostgres
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class Zoo {

    PgTestDatabase pg;
    PgCatalog catalog;

    @BeforeAll
    void load(PgTestDatabase pg) throws Exception {
      this.pg = pg;
      pg.execute(Fixtures.resource("fixtures/catalog-zoo.sql"));
      catalog = read(pg, CatalogFilter.all());
    }

    @Test
    void everyBuiltInTypeFamily() {
      PgTable t = table(catalog, "public", "all_types");
      record Expected(String column, String name, String display, Integer length, Integer precision, Integer scale,
          boolean array, PgType.Kind kind) {}
      List<Expected> expected = List.of(
          new Expected("c_smallint", "int2", "smallint", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_integer", "int4", "integer", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_bigint", "int8", "bigint", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_numeric", "numeric", "numeric", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_numeric_38_9", "numeric", "numeric(38,9)", null, 38, 9, false, PgType.Kind.BASE),
          new Expected("c_numeric_50_20", "numeric", "numeric(50,20)", null, 50, 20, false, PgType.Kind.BASE),
          new Expected("c_real", "float4", "real", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_double", "float8", "double precision", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_money", "money", "money", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_text", "text", "text", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_varchar", "varchar", "character varying(40)", 40, null, null, false, PgType.Kind.BASE),
          new Expected("c_varchar_nolen", "varchar", "character varying", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_char", "bpchar", "character(5)", 5, null, null, false, PgType.Kind.BASE),
          new Expected("c_char1", "char", "\"char\"", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_name", "name", "name", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_bytea", "bytea", "bytea", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_bool", "bool", "boolean", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_date", "date", "date", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_time", "time", "time without time zone", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_timetz", "timetz", "time with time zone", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_timestamp", "timestamp", "timestamp without time zone", null, null, null, false,
              PgType.Kind.BASE),
          new Expected("c_timestamptz", "timestamptz", "timestamp with time zone", null, null, null, false,
              PgType.Kind.BASE),
          new Expected("c_timestamp3", "timestamp", "timestamp(3) without time zone", null, 3, null, false,
              PgType.Kind.BASE),
          new Expected("c_time0", "time", "time(0) without time zone", null, 0, null, false, PgType.Kind.BASE),
          new Expected("c_interval", "interval", "interval", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_interval_ds", "interval", "interval day to second(2)", null, 2, null, false,
              PgType.Kind.BASE),
          new Expected("c_uuid", "uuid", "uuid", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_json", "json", "json", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_jsonb", "jsonb", "jsonb", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_xml", "xml", "xml", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_inet", "inet", "inet", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_cidr", "cidr", "cidr", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_macaddr", "macaddr", "macaddr", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_macaddr8", "macaddr8", "macaddr8", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_bit", "bit", "bit(8)", 8, null, null, false, PgType.Kind.BASE),
          new Expected("c_varbit", "varbit", "bit varying(16)", 16, null, null, false, PgType.Kind.BASE),
          new Expected("c_tsvector", "tsvector", "tsvector", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_tsquery", "tsquery", "tsquery", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_point", "point", "point", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_line", "line", "line", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_lseg", "lseg", "lseg", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_box", "box", "box", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_path", "path", "path", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_polygon", "polygon", "polygon", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_circle", "circle", "circle", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_int4range", "int4range", "int4range", null, null, null, false, PgType.Kind.RANGE),
          new Expected("c_tstzrange", "tstzrange", "tstzrange", null, null, null, false, PgType.Kind.RANGE),
          new Expected("c_int4multirange", "int4multirange", "int4multirange", null, null, null, false,
              PgType.Kind.MULTIRANGE),
          new Expected("c_oid", "oid", "oid", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_pg_lsn", "pg_lsn", "pg_lsn", null, null, null, false, PgType.Kind.BASE),
          new Expected("c_int_array", "int4", "integer[]", null, null, null, true, PgType.Kind.BASE),
          new Expected("c_int_matrix", "int4", "integer[]", null, null, null, true, PgType.Kind.BASE),
          new Expected("c_text_array", "text", "text[]", null, null, null, true, PgType.Kind.BASE),
          new Expected("c_varchar_array", "varchar", "character varying(20)[]", 20, null, null, true,
              PgType.Kind.BASE),
          new Expected("c_numeric_array", "numeric", "numeric(10,2)[]", null, 10, 2, true, PgType.Kind.BASE),
          new Expected("c_mood", "mood", "public.mood", null, null, null, false, PgType.Kind.ENUM),
          new Expected("c_mood_array", "mood", "public.mood[]", null, null, null, true, PgType.Kind.ENUM),
          new Expected("c_domain", "positive_int", "public.positive_int", null, null, null, false,
              PgType.Kind.DOMAIN),
          new Expected("c_domain2", "small_positive", "public.small_positive", null, null, null, false,
              PgType.Kind.DOMAIN),
          new Expected("c_address", "address", "public.address", null, null, null, false, PgType.Kind.COMPOSITE),
          new Expected("c_floatrange", "floatrange", "public.floatrange", null, null, null, false,
              PgType.Kind.RANGE));
      for (Expected e : expected) {
        PgType type = column(t, e.column()).type();
        assertThat(new Expected(e.column(), type.name(), type.display(), type.length(), type.precision(),
            type.scale(), type.array(), type.kind())).as(e.column()).isEqualTo(e);
      }
      // every column is listed, in attnum order
      assertThat(t.columns()).extracting(PgColumn::name).startsWith("id")
          .containsSubsequence(expected.stream().map(Expected::column).toList());
      assertThat(column(t, "c_int_matrix").type().declaredDimensions()).isEqualTo(2);
      assertThat(column(t, "c_int_array").type().declaredDimensions()).isEqualTo(1);
      assertThat(column(t, "c_text").type().declaredDimensions()).isZero();
      assertThat(column(t, "c_mood_array").type().enumLabels()).containsExactly("sad", "ok", "happy");
      assertThat(column(t, "c_int_array").type().isBuiltin()).isTrue();
      assertThat(column(t, "c_floatrange").type().isBuiltin()).isFalse();

      PgType domain2 = column(t, "c_domain2").type();
      assertThat(domain2.domainChecks()).containsExactly("((VALUE)::integer < 1000)");
      assertThat(domain2.domainNotNull()).isFalse();
      assertThat(domain2.domainBase().kind()).isEqualTo(PgType.Kind.DOMAIN);
      assertThat(domain2.domainBase().name()).isEqualTo("positive_int");
      assertThat(domain2.domainBase().domainNotNull()).isTrue();
      assertThat(domain2.domainBase().domainBase().name()).isEqualTo("int4");
    }

    @Test
    void oddNamesAreKeptExactly() {
      assertThat(table(catalog, "public", "select").columns()).extracting(PgColumn::name)
          .containsExactly("from", "order", "select");
      assertThat(table(catalog, "public", "select").primaryKey().columns()).containsExactly("from");
      assertThat(table(catalog, "public", "my table").columns()).extracting(PgColumn::name).containsExactly(
          "my id", "café", "a23456789_123456789_123456789_123456789_123456789_123456789_123");
      PgTable orderLine = table(catalog, "public", "OrderLine");
      assertThat(orderLine.primaryKey().name()).isEqualTo("OrderLine_pkey");
      assertThat(orderLine.primaryKey().columns()).containsExactly("OrderId", "LineNo");
      assertThat(table(catalog, "public", "Item").columns()).extracting(PgColumn::name).containsExactly("id", "Label");
      assertThat(table(catalog, "public", "item").columns()).extracting(PgColumn::name).containsExactly("id", "label");
      // same name in two schemas
      assertThat(column(table(catalog, "public", "customer"), "id").type().name()).isEqualTo("int4");
      PgTable salesCustomer = table(catalog, "sales", "customer");
      assertThat(column(salesCustomer, "id").type().name()).isEqualTo("int8");
      assertThat(salesCustomer.foreignKeys()).singleElement().satisfies(fk -> {
        assertThat(fk.referencedQualifiedName()).isEqualTo("public.customer");
        assertThat(fk.name()).isEqualTo("customer_public_id_fkey");
      });
    }

    @Test
    void tablesAreSortedBySchemaThenName() {
      List<String> names = catalog.tables().stream().map(t -> t.schema() + "\u0000" + t.name()).toList();
      assertThat(names).isSorted();
      assertThat(catalog.tables().get(catalog.tables().size() - 1).qualifiedName()).isEqualTo("sales.customer");
    }

    @Test
    void partitionedTableWithSubPartitions() {
      PgTable events = table(catalog, "public", "events");
      assertThat(events.kind()).isEqualTo(PgTable.Kind.PARTITIONED);
      assertThat(events.partitioning().strategy()).isEqualTo("RANGE");
      assertThat(events.partitioning().key()).isEqualTo("RANGE (at)");
      assertThat(events.partitioning().partitions()).containsExactly("public.events_2023", "public.events_2024",
          "public.events_2024_click", "public.events_2024_other");
      assertThat(catalog.tables()).extracting(PgTable::name).noneMatch(n -> n.startsWith("events_"));
      assertThat(events.primaryKey().columns()).containsExactly("id", "at", "kind");
      // 4 rows in three leaf partitions, summed; the partitioned parent has no storage of its own
      assertThat(events.stats().rowEstimate()).isEqualTo(4.0);
      assertThat(events.stats().tableBytes()).isPositive();
      // pg_stats of a partitioned parent are its inherited rows: 3 of 4 payloads are NULL
      assertThat(column(events, "payload").stats().nullFraction()).isEqualTo(0.75);
      assertThat(column(events, "id").stats().correlation()).isNotNull();
      // a partitioned index has no storage: its size is its partitions' indexes
      PgIndex kindIdx = index(events, "events_kind_idx");
      assertThat(kindIdx.stats().bytes()).isPositive();
      assertThat(kindIdx.stats().scans()).isNotNull();
    }

    @Test
    void inheritance() {
      assertThat(table(catalog, "public", "animal").hasInheritanceChildren()).isTrue();
      assertThat(table(catalog, "public", "animal").inheritanceParents()).isEmpty();
      PgTable dog = table(catalog, "public", "dog");
      assertThat(dog.inheritanceParents()).containsExactly("public.animal");
      assertThat(dog.hasInheritanceChildren()).isFalse();
      assertThat(dog.columns()).extracting(PgColumn::name).containsExactly("id", "name", "breed");
    }

    @Test
    void sharedSequenceNotOwnedByAnything() {
      PgSequence shared = catalog.sequence("public", "shared_ticket_seq").orElseThrow();
      assertThat(shared.ownedBy()).isNull();
      assertThat(shared.usedBy()).containsExactly("public.invoice.id", "public.ticket.id");
      assertThat(shared.isShared()).isTrue();
      assertThat(shared.start()).isEqualTo(1000);
      assertThat(column(table(catalog, "public", "ticket"), "id").sequence()).isEqualTo("public.shared_ticket_seq");
      // nextval('...'::text) records no dependency: found by parsing the default and resolving the name
      PgColumn invoiceId = column(table(catalog, "public", "invoice"), "id");
      assertThat(invoiceId.defaultExpression()).contains("::text");
      assertThat(invoiceId.sequence()).isEqualTo("public.shared_ticket_seq");
    }

    @Test
    void descendingSequenceWithAMixedCaseName() {
      PgSequence countdown = catalog.sequence("public", "Countdown_Seq").orElseThrow();
      assertThat(countdown.increment()).isEqualTo(-1);
      assertThat(countdown.start()).isEqualTo(-1);
      assertThat(countdown.min()).isEqualTo(-1_000_000);
      assertThat(countdown.max()).isEqualTo(-1);
      assertThat(countdown.dataType()).isEqualTo("integer");
      assertThat(countdown.lastValue()).isNull(); // never used
      assertThat(countdown.usedBy()).containsExactly("public.countdown.id");
      assertThat(column(table(catalog, "public", "countdown"), "id").sequence()).isEqualTo("public.Countdown_Seq");
    }

    @Test
    void serialAndIdentityColumns() {
      PgSequence serial = catalog.sequence("public", "serial_owner_id_seq").orElseThrow();
      assertThat(serial.ownedBy()).isEqualTo("public.serial_owner.id");
      assertThat(serial.lastValue()).isEqualTo(2L); // the fixture calls nextval twice

      PgColumn always = column(table(catalog, "public", "ident_always"), "id");
      assertThat(always.identity()).isEqualTo(PgColumn.Identity.ALWAYS);
      assertThat(always.defaultExpression()).isNull();
      assertThat(always.sequence()).isEqualTo("public.ident_always_id_seq");
      assertThat(catalog.sequence("public", "ident_always_id_seq").orElseThrow().ownedBy())
          .isEqualTo("public.ident_always.id");

      PgColumn byDefault = column(table(catalog, "public", "ident_default"), "id");
      assertThat(byDefault.identity()).isEqualTo(PgColumn.Identity.BY_DEFAULT);
      assertThat(byDefault.sequence()).isEqualTo("public.ident_default_id_seq");
      PgSequence identitySeq = catalog.sequence("public", "ident_default_id_seq").orElseThrow();
      assertThat(identitySeq.start()).isEqualTo(10);
      assertThat(identitySeq.increment()).isEqualTo(5);
      assertThat(identitySeq.usedBy()).containsExactly("public.ident_default.id");
    }

    @Test
    void generatedEnumDomainChecksAndCollation() {
      PgTable m = table(catalog, "public", "measurement");
      PgColumn fahrenheit = column(m, "fahrenheit");
      assertThat(fahrenheit.isGenerated()).isTrue();
      assertThat(fahrenheit.generatedExpression()).contains("celsius");
      assertThat(fahrenheit.defaultExpression()).isNull();
      assertThat(column(m, "celsius").isGenerated()).isFalse();
      PgColumn feeling = column(m, "feeling");
      assertThat(feeling.type().kind()).isEqualTo(PgType.Kind.ENUM);
      assertThat(feeling.defaultExpression()).isEqualTo("'ok'::public.mood");
      PgType quantity = column(m, "quantity").type();
      assertThat(quantity.kind()).isEqualTo(PgType.Kind.DOMAIN);
      assertThat(quantity.domainNotNull()).isTrue();
      assertThat(quantity.domainChecks()).containsExactly("(VALUE > 0)");
      assertThat(column(m, "quantity").notNull()).isFalse(); // NOT NULL is the domain's, not the column's
      assertThat(column(m, "label").collation()).isEqualTo("C");
      assertThat(column(m, "taken_at").collation()).isNull();
      assertThat(column(m, "taken_at").defaultExpression()).isEqualTo("now()");
      assertThat(m.checks()).extracting(c -> c.name(), c -> c.expression(), c -> c.validated()).containsExactly(
          tuple("celsius_range", "(celsius > '-273.15'::numeric)", true),
          tuple("label_short", "(length(label) < 20)", false));
      assertThat(catalog.enums()).extracting(e -> e.schema() + "." + e.name()).containsExactly("public.mood");
      assertThat(catalog.domains()).extracting(d -> d.name()).containsExactly("positive_int", "small_positive");
      assertThat(catalog.domains().get(0).notNull()).isTrue();
      assertThat(catalog.domains().get(0).checks()).containsExactly("(VALUE > 0)");
    }

    @Test
    void indexesOfEveryShape() {
      PgTable t = table(catalog, "public", "indexed");
      assertThat(t.indexes()).extracting(PgIndex::name).containsExactly("indexed_area_gist", "indexed_code_hash",
          "indexed_code_key", "indexed_created_brin", "indexed_created_desc_idx", "indexed_email_partial_idx",
          "indexed_email_phone_idx", "indexed_lower_email_idx", "indexed_score_incl_idx",
          "indexed_score_partial_idx", "indexed_tags_gin");
      assertThat(t.indexes()).extracting(PgIndex::name, PgIndex::method).contains(tuple("indexed_area_gist", "gist"),
          tuple("indexed_code_hash", "hash"), tuple("indexed_created_brin", "brin"), tuple("indexed_tags_gin", "gin"),
          tuple("indexed_code_key", "btree"));
      // a UNIQUE constraint vs a unique index
      assertThat(t.uniqueConstraints()).singleElement().satisfies(u -> {
        assertThat(u.name()).isEqualTo("indexed_code_key");
        assertThat(u.columns()).containsExactly("code");
      });
      assertThat(index(t, "indexed_code_key").constraint()).isEqualTo("indexed_code_key");
      PgIndex emailPhone = index(t, "indexed_email_phone_idx");
      assertThat(emailPhone.unique()).isTrue();
      assertThat(emailPhone.constraint()).isNull();
      assertThat(emailPhone.elements()).extracting(PgIndex.Element::column).containsExactly("email", "phone");
      assertThat(column(t, "email").notNull()).isFalse();
      // partial predicates
      assertThat(index(t, "indexed_email_partial_idx").predicate()).isEqualTo("email IS NOT NULL");
      assertThat(index(t, "indexed_score_partial_idx").predicate()).isEqualTo("score > 10");
      assertThat(emailPhone.predicate()).isNull();
      // expression
      assertThat(index(t, "indexed_lower_email_idx").elements()).singleElement().satisfies(e -> {
        assertThat(e.isExpression()).isTrue();
        assertThat(e.expression()).isEqualTo("lower(email)");
      });
      // INCLUDE
      PgIndex incl = index(t, "indexed_score_incl_idx");
      assertThat(incl.elements()).extracting(PgIndex.Element::column).containsExactly("score");
      assertThat(incl.include()).containsExactly("email", "phone");
      // DESC NULLS LAST, then ASC NULLS FIRST
      assertThat(index(t, "indexed_created_desc_idx").elements())
          .extracting(PgIndex.Element::column, PgIndex.Element::descending, PgIndex.Element::nullsFirst)
          .containsExactly(tuple("created_at", true, false), tuple("id", false, true));
      assertThat(index(t, "indexed_tags_gin").definition())
          .isEqualTo("CREATE INDEX indexed_tags_gin ON public.indexed USING gin (tags)");
      assertThat(t.indexes()).allSatisfy(i -> {
        assertThat(i.valid()).isTrue();
        assertThat(i.stats().scans()).isNotNull();
        assertThat(i.stats().bytes()).isPositive();
      });
      assertThat(t.indexes()).extracting(PgIndex::name).doesNotContain("indexed_pkey");
    }

    @Test
    void foreignKeysInConstraintOrderWithEveryAction() {
      PgTable child = table(catalog, "public", "fk_child");
      assertThat(child.foreignKeys()).extracting(PgForeignKey::name).containsExactly("fk_child_composite",
          "fk_child_full", "fk_child_set_default", "fk_child_set_null");
      PgForeignKey composite = foreignKey(child, "fk_child_composite");
      assertThat(composite.columns()).containsExactly("y", "x");
      assertThat(composite.referencedColumns()).containsExactly("b", "a");
      assertThat(composite.onDelete()).isEqualTo(Action.CASCADE);
      assertThat(composite.onUpdate()).isEqualTo(Action.RESTRICT);
      assertThat(composite.matchFull()).isFalse();
      assertThat(composite.deferrable()).isFalse();
      assertThat(composite.validated()).isTrue();
      PgForeignKey full = foreignKey(child, "fk_child_full");
      assertThat(full.columns()).containsExactly("w", "z");
      assertThat(full.referencedColumns()).containsExactly("a", "b");
      assertThat(full.matchFull()).isTrue();
      assertThat(full.deferrable()).isTrue();
      assertThat(full.onDelete()).isEqualTo(Action.NO_ACTION);
      assertThat(foreignKey(child, "fk_child_set_null").onDelete()).isEqualTo(Action.SET_NULL);
      assertThat(foreignKey(child, "fk_child_set_null").referencedQualifiedName()).isEqualTo("public.customer");
      assertThat(foreignKey(child, "fk_child_set_default").onDelete()).isEqualTo(Action.SET_DEFAULT);
      assertThat(foreignKey(child, "fk_child_set_default").onUpdate()).isEqualTo(Action.CASCADE);
      PgTable parent = table(catalog, "public", "fk_parent");
      assertThat(parent.primaryKey().columns()).containsExactly("a", "b");
      assertThat(parent.uniqueConstraints()).singleElement()
          .satisfies(u -> assertThat(u.columns()).containsExactly("b", "a"));
    }

    @Test
    void noPrimaryKeyAndComments() {
      assertThat(table(catalog, "public", "no_pk_log").primaryKey()).isNull();
      assertThat(column(table(catalog, "public", "no_pk_log"), "at").defaultExpression())
          .isEqualTo("clock_timestamp()");
      PgTable documented = table(catalog, "public", "documented");
      assertThat(documented.comment()).isEqualTo("A table with a comment");
      assertThat(column(documented, "body").comment()).isEqualTo("The body, in Markdown");
      assertThat(column(documented, "id").comment()).isNull();
      assertThat(table(catalog, "public", "item").comment()).isNull();
    }

    @Test
    void otherObjectsAreListedByName() {
      assertThat(catalog.otherObjects()).extracting(PgObject::kind, PgObject::schema, PgObject::name, PgObject::on)
          .containsExactly(
              tuple(Kind.VIEW, "public", "customer_names", null),
              tuple(Kind.MATERIALIZED_VIEW, "public", "event_counts", null),
              tuple(Kind.TRIGGER, "public", "documented_touch", "public.documented"),
              tuple(Kind.FUNCTION, "public", "touch_documented", null),
              tuple(Kind.PROCEDURE, "public", "noop", null),
              tuple(Kind.RULE, "public", "no_log_delete", "public.no_pk_log"),
              tuple(Kind.POLICY, "public", "item_visible", "public.item"),
              tuple(Kind.COMPOSITE_TYPE, "public", "address", null),
              tuple(Kind.RANGE_TYPE, "public", "floatrange", null),
              tuple(Kind.STATISTICS_OBJECT, "public", "indexed_stats", "public.indexed"));
      assertThat(objects(catalog, Kind.TRIGGER).get(0).detail()).isEqualTo(
          "BEFORE INSERT OR UPDATE ON public.documented FOR EACH ROW EXECUTE FUNCTION public.touch_documented()");
      assertThat(objects(catalog, Kind.VIEW).get(0).detail()).isEqualTo("reads public.customer");
      assertThat(objects(catalog, Kind.RULE).get(0).detail()).isEqualTo("ON DELETE TO public.no_pk_log DO INSTEAD");
      assertThat(objects(catalog, Kind.RANGE_TYPE).get(0).detail()).isEqualTo("range of double precision");
    }

    @Test
    void schemasFilterLimitsEverything() throws Exception {
      PgCatalog sales = read(pg, new CatalogFilter(List.of("sales"), null));
      assertThat(sales.tables()).extracting(PgTable::qualifiedName).containsExactly("sales.customer");
      assertThat(sales.sequences()).isEmpty();
      assertThat(sales.enums()).isEmpty();
      assertThat(sales.otherObjects()).isEmpty();
      PgCatalog both = read(pg, new CatalogFilter(List.of("sales", "public"), null));
      assertThat(both.tables()).hasSameSizeAs(catalog.tables());
    }

    @Test
    void excludeDropsMatchingObjects() throws Exception {
      PgCatalog filtered = read(pg, new CatalogFilter(List.of(), Pattern.compile("^public\\.(events|documented)$")));
      assertThat(filtered.tables()).extracting(PgTable::qualifiedName)
          .doesNotContain("public.events", "public.documented").contains("public.indexed", "sales.customer");
      assertThat(filtered.tables()).hasSize(catalog.tables().size() - 2);
      // the trigger on the excluded table goes with it
      assertThat(objects(filtered, Kind.TRIGGER)).isEmpty();
      PgCatalog noSequences =
          read(pg, new CatalogFilter(List.of(), Pattern.compile("_seq$", Pattern.CASE_INSENSITIVE)));
      assertThat(noSequences.sequences()).isEmpty();
    }

    @Test
    void missingSchemaIsAClearError() {
      assertThatThrownBy(() -> read(pg, new CatalogFilter(List.of("public", "nope"), null)))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.PLAN_INVALID);
            assertThat(e.getMessage()).isEqualTo("schema 'nope' given in --schemas does not exist in database "
                + pg.name() + "; the schemas are: public, sales");
          });
    }

    @Test
    void connectionStateIsRestored() throws Exception {
      try (Connection c = pg.connect(); Statement s = c.createStatement()) {
        s.execute("SET search_path = sales, public");
        new CatalogReader(CatalogFilter.all()).read(c);
        assertThat(c.getAutoCommit()).isTrue();
        try (ResultSet rs = s.executeQuery("SELECT current_setting('search_path') AS p, "
            + "current_setting('transaction_isolation') AS iso, current_setting('transaction_read_only') AS ro")) {
          rs.next();
          assertThat(rs.getString("p")).isEqualTo("sales, public");
          assertThat(rs.getString("iso")).isEqualTo("read committed");
          assertThat(rs.getString("ro")).isEqualTo("off");
        }
        c.setAutoCommit(false);
        PgCatalog again = new CatalogReader(CatalogFilter.all()).read(c);
        assertThat(c.getAutoCommit()).isFalse();
        assertThat(again).isEqualTo(new CatalogReader(CatalogFilter.all()).read(c));
        // an open transaction of the caller is never rolled back behind its back
        s.execute("CREATE TEMP TABLE pending (x int)");
        assertThatThrownBy(() -> new CatalogReader(CatalogFilter.all()).read(c))
            .isInstanceOf(IllegalStateException.class);
        s.execute("INSERT INTO pending VALUES (1)");
        c.rollback();
      }
    }

    @Test
    void aRoleWithoutSequencePrivilegeReadsWithoutLastValue() throws Exception {
      String role = "p2s_catreader_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
      pg.execute("CREATE ROLE " + role + " NOLOGIN");
      try (Connection c = pg.connect(); Statement s = c.createStatement()) {
        s.execute("SET ROLE " + role);
        PgCatalog asRole = new CatalogReader(CatalogFilter.all()).read(c);
        s.execute("RESET ROLE");
        assertThat(asRole.sequence("public", "serial_owner_id_seq").orElseThrow().lastValue()).isNull();
        assertThat(asRole.sequence("public", "serial_owner_id_seq").orElseThrow().usedBy())
            .containsExactly("public.serial_owner.id");
        assertThat(asRole.tables()).hasSameSizeAs(catalog.tables());
      } finally {
        pg.execute("DROP ROLE " + role);
      }
      // the superuser sees it
      assertThat(catalog.sequence("public", "serial_owner_id_seq").orElseThrow().lastValue()).isEqualTo(2L);
    }
  }
}
