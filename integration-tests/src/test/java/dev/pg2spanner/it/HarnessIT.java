package dev.pg2spanner.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Struct;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Proves the harness hands out a real, private PostgreSQL database and a real emulator database. */
@WithPostgres
@WithSpannerEmulator
class HarnessIT {

  @Test
  void postgresDatabaseIsFreshAndWritable(PgTestDatabase pg) throws Exception {
    assertThat(pg.name()).startsWith("p2s_harnessit_");
    pg.execute("CREATE TABLE greeting (id bigint PRIMARY KEY, text text NOT NULL)",
        "INSERT INTO greeting VALUES (1, 'hello from PostgreSQL')");
    try (Connection c = pg.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_database() AS db, text FROM greeting WHERE id = 1")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("db")).isEqualTo(pg.name());
      assertThat(rs.getString("text")).isEqualTo("hello from PostgreSQL");
    }
  }

  @Test
  void emulatorDatabaseTakesDdlAndMutations(SpannerTestDatabase spanner) throws Exception {
    spanner.updateDdl(List.of("CREATE TABLE greeting (id INT64 NOT NULL, text STRING(MAX)) PRIMARY KEY (id)"));
    spanner.client().writeAtLeastOnce(List.of(
        Mutation.newInsertOrUpdateBuilder("greeting").set("id").to(1L).set("text").to("hello from Spanner").build()));
    Struct row = spanner.client().singleUse().readRow("greeting", Key.of(1L), List.of("id", "text"));
    assertThat(row).isNotNull();
    assertThat(row.getString("text")).isEqualTo("hello from Spanner");
  }
}
