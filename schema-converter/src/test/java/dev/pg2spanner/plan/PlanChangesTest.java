package dev.pg2spanner.plan;

import static dev.pg2spanner.plan.PlanFixtures.shop;
import static dev.pg2spanner.plan.PlanFixtures.withTable;
import static dev.pg2spanner.plan.PlanValidatorTest.edit;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanChangesTest {

  private static final int ORDERS = 0;

  @Test
  void planningAnUnchangedSourceAgainKeepsTheHash() {
    Plan plan = shop();
    // What a new plan run rewrites without deciding anything else: when, statistics, findings, reasons.
    Plan again = new Plan(plan.formatVersion(), "pg2spanner 9.9", Instant.parse("2030-01-01T00:00:00Z"),
        new Plan.Source(plan.source().endpoint(), "16.1", plan.source().schemas(), "sha256:other"), plan.target(),
        plan.tables().stream().map(t -> edit(t, b -> {
          b.rowsEstimate = 1.0;
          b.bytesEstimate = 1;
          b.findings = List.of();
          b.keyStrategy = b.keyStrategy.withReason("another reason");
        })).toList(), plan.sequences(), List.of());
    assertThat(PlanChanges.contentHash(again)).isEqualTo(PlanChanges.contentHash(plan));
    assertThat(PlanChanges.between(plan, again)).isEmpty();
  }

  @Test
  void swappedColumnTargetsAndARenamedColumnAreNamed() {
    Plan plan = shop();
    Plan swapped = withTable(plan, ORDERS, t -> edit(t, b -> {
      ColumnPlan customer = b.columns.get(1);
      ColumnPlan status = b.columns.get(2);
      b.columns.set(1, new ColumnPlan(customer.source(), customer.sourceType(), "buyer", customer.targetType(),
          customer.notNull(), customer.conversion(), customer.defaultExpression(), customer.generatedExpression()));
      b.columns.set(3, new ColumnPlan("total", "numeric(12,2)", "status", "NUMERIC", true, ValueConversion.NUMERIC,
          null, null));
      b.columns.set(2, new ColumnPlan(status.source(), status.sourceType(), "total", status.targetType(), true,
          status.conversion(), null, null));
    }));
    assertThat(PlanChanges.contentHash(swapped)).isNotEqualTo(PlanChanges.contentHash(plan));
    assertThat(PlanChanges.between(plan, swapped)).containsExactly(
        "table public.orders: column customer_id now targets buyer (was customer_id)",
        "table public.orders: column status now targets total (was status)",
        "table public.orders: column total now targets status (was total)");
  }

  @Test
  void addedAndRemovedTablesAndColumnsAreNamed() {
    Plan plan = shop();
    Plan added = withTable(plan, ORDERS, t -> edit(t, b -> b.columns.add(new ColumnPlan("note", "text", "note",
        "STRING(MAX)", false, ValueConversion.STRING, null, null))));
    assertThat(PlanChanges.between(plan, added)).containsExactly("table public.orders: column note added");
    Plan dropped = PlanFixtures.withTables(plan, plan.tables().subList(0, plan.tables().size() - 1));
    assertThat(PlanChanges.between(plan, dropped)).singleElement().asString()
        .endsWith("is no longer in the plan");
  }
}
