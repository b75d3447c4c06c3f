package dev.pg2spanner.it;

import static dev.pg2spanner.it.MigrateSupport.migrateArgs;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.testing.PgTestDatabase;
import dev.pg2spanner.testing.SpannerTestDatabase;
import dev.pg2spanner.testing.WithPostgres;
import dev.pg2spanner.testing.WithSpannerEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a foreign key the plan marks {@code enforced: false} is written NOT ENFORCED (informational) in V3; CASCADE
 * cannot go with it; and the emulator, which cannot create such keys, is refused before anything changes.
 */
@WithPostgres
@WithSpannerEmulator
class InformationalForeignKeyIT {

  @Test
  void anInformationalForeignKeyIsWrittenNotEnforcedAndTheEmulatorRefusesItUpFront(PgTestDatabase pg, SpannerTestDatabase spanner,
      @TempDir Path dir) throws Exception {
    // Not interleavable (the child's key does not start with the parent's), so the relationship stays a foreign key.
    pg.execute("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL)",
        "CREATE TABLE invoices (no int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id))",
        "INSERT INTO customers SELECT g, 'c' || g FROM generate_series(1, 20) g",
        "INSERT INTO invoices SELECT g, 1 + g % 20 FROM generate_series(1, 100) g", "ANALYZE");
    Path planFile = MigrateSupport.plan(pg, dir.resolve("plan"));
    String yaml = Files.readString(planFile);
    int fks = yaml.indexOf("foreignKeys:\n", yaml.indexOf("source: public.invoices"));
    int onDelete = yaml.indexOf("onDelete: NO_ACTION", fks);
    assertThat(fks).isPositive();
    assertThat(onDelete).isGreaterThan(fks);
    String indent = yaml.substring(yaml.lastIndexOf('\n', onDelete) + 1, onDelete);

    // CASCADE with enforced: false is refused, naming the field.
    Files.writeString(planFile, yaml.substring(0, onDelete) + "onDelete: CASCADE\n" + indent + "enforced: false"
        + yaml.substring(onDelete + "onDelete: NO_ACTION".length()));
    CliRunner.Result refused = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")));
    assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(refused.err()).contains("onDelete").contains("informational (NOT ENFORCED)");

    Files.writeString(planFile, yaml.substring(0, onDelete) + "onDelete: NO_ACTION\n" + indent + "enforced: false"
        + yaml.substring(onDelete + "onDelete: NO_ACTION".length()));
    // The emulator cannot create informational keys ("Foreign key enforcement is not supported"): refused before
    // anything changes, not after the load. The DDL real Spanner gets is the migration file.
    CliRunner.Result r = MigrateSupport.cli(migrateArgs(planFile, pg, spanner.path(), spanner.emulatorHost(),
        dir.resolve("run")));
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCode.PLAN_INVALID.exitCode());
    assertThat(r.err()).contains("emulator cannot create informational (NOT ENFORCED) foreign keys")
        .contains("invoices_customer_id_fkey").contains("Nothing was changed");
    try (ResultSet rs = spanner.client().singleUse().executeQuery(Statement.of("SELECT COUNT(*) FROM "
        + "information_schema.tables WHERE table_schema = ''"))) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLong(0)).as("tables on the target").isZero();
    }
    assertThat(dev.pg2spanner.ddl.DdlPrinter.foreignKeys(dev.pg2spanner.plan.PlanFiles.read(planFile)))
        .singleElement().asString().endsWith("REFERENCES customers (id) NOT ENFORCED");
  }
}
