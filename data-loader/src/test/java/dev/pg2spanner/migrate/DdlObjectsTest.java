package dev.pg2spanner.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DdlObjectsTest {

  @Test
  void keysNameTheObjectAStatementCreates() {
    assertThat(DdlObjects.key("CREATE TABLE `Order` (\n  id INT64\n) PRIMARY KEY (id)")).isEqualTo("table order");
    assertThat(DdlObjects.key("CREATE UNIQUE NULL_FILTERED INDEX billing.Inv_Idx ON billing.invoices (n)"))
        .isEqualTo("index billing.inv_idx");
    assertThat(DdlObjects.key("ALTER TABLE orders ADD CONSTRAINT fk_c FOREIGN KEY (c) REFERENCES customers (id) "
        + "ON DELETE NO ACTION")).isEqualTo("constraint fk_c");
    assertThat(DdlObjects.key("CREATE SEQUENCE s OPTIONS (sequence_kind = 'bit_reversed_positive')"))
        .isEqualTo("sequence s");
    assertThat(DdlObjects.key("CREATE SCHEMA billing")).isEqualTo("schema billing");
  }

  @Test
  void describeNamesKindObjectAndTable() {
    assertThat(DdlObjects.describe("CREATE INDEX orders_placed_idx ON orders (placed_at)"))
        .isEqualTo("index orders_placed_idx on orders");
    assertThat(DdlObjects.describe("ALTER TABLE orders ADD CONSTRAINT ck CHECK (total >= 0)"))
        .isEqualTo("check ck on orders");
    assertThat(DdlObjects.describe("ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (c) REFERENCES c (id)"))
        .isEqualTo("foreign key fk on orders");
  }

  @Test
  void existingObjectsIncludeConstraintsInsideCreateTable() {
    // As getDatabaseDdl prints them: constraints inside CREATE TABLE, names as the database spells them.
    Set<String> existing = DdlObjects.existing(List.of(
        "CREATE TABLE orders (\n  id INT64 NOT NULL,\n  c INT64,\n  CONSTRAINT CK CHECK(id > 0),\n"
            + "  CONSTRAINT fk_c FOREIGN KEY(c) REFERENCES customers(id),\n) PRIMARY KEY(id)",
        "CREATE INDEX Orders_C_Idx ON orders(c)"));
    assertThat(existing).contains("table orders", "constraint ck", "constraint fk_c", "index orders_c_idx");
    assertThat(DdlObjects.exists("CREATE INDEX orders_c_idx ON orders (c)", existing)).isTrue();
    assertThat(DdlObjects.exists("ALTER TABLE orders ADD CONSTRAINT ck CHECK (id > 0)", existing)).isTrue();
    assertThat(DdlObjects.exists("CREATE INDEX other ON orders (c)", existing)).isFalse();
  }
}
