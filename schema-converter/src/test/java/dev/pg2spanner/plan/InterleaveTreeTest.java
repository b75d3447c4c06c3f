package dev.pg2spanner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InterleaveTreeTest {

  /** Tables in this order; parents by name (absent: top-level). */
  private static InterleaveTree tree(List<String> tables, Map<String, String> parents) {
    return InterleaveTree.of(tables, parents::get);
  }

  /** customers ← orders ← items, customers ← addresses; products alone; the grandchild listed first. */
  private static final InterleaveTree SHOP = tree(List.of("items", "products", "customers", "orders", "addresses"),
      Map.of("items", "orders", "orders", "customers", "addresses", "customers"));

  @Test
  void parentsComeFirstAndOtherwiseTheGivenOrderIsKept() {
    assertThat(SHOP.parentsFirst()).containsExactly("customers", "orders", "items", "products", "addresses");
    List<String> alreadyOrdered = List.of("customers", "orders", "items", "products", "addresses");
    assertThat(tree(alreadyOrdered, Map.of("items", "orders", "orders", "customers", "addresses", "customers"))
        .parentsFirst()).isEqualTo(alreadyOrdered);
  }

  @Test
  void levelsGroupTablesByDepth() {
    assertThat(SHOP.levels()).containsExactly(List.of("products", "customers"), List.of("orders", "addresses"),
        List.of("items"));
    assertThat(SHOP.depth("customers")).isEqualTo(1);
    assertThat(SHOP.depth("addresses")).isEqualTo(2);
    assertThat(SHOP.depth("items")).isEqualTo(3);
  }

  @Test
  void descendantsAndAncestors() {
    assertThat(SHOP.descendants("customers")).containsExactly("orders", "items", "addresses");
    assertThat(SHOP.descendants("orders")).containsExactly("items");
    assertThat(SHOP.descendants("items")).isEmpty();
    assertThat(SHOP.ancestors("items")).containsExactly("orders", "customers");
    assertThat(SHOP.ancestors("products")).isEmpty();
    assertThatThrownBy(() -> SHOP.depth("nope")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPlansTablesAreNamedByTarget() {
    Plan shop = PlanFixtures.shop();
    InterleaveTree tree = InterleaveTree.of(shop);
    assertThat(tree.parentsFirst()).isEqualTo(shop.tables().stream().map(TablePlan::target).toList());
    assertThat(tree.descendants("orders")).containsExactly("order_items");
    assertThat(tree.depth("order_items")).isEqualTo(2);
  }

  @Test
  void aMissingParentIsAPlanErrorForTheWalksOnly() {
    InterleaveTree tree = tree(List.of("a", "orders"), Map.of("orders", "customers"));
    for (Runnable walk : List.<Runnable>of(tree::parentsFirst, tree::levels, () -> tree.descendants("a"))) {
      assertThatThrownBy(walk::run).isInstanceOf(Pg2SpannerException.class)
          .hasMessage("table orders interleaves in customers, which is not a table of the plan; fix "
              + "interleave.parent or remove the interleave in the plan.")
          .extracting(e -> ((Pg2SpannerException) e).code()).isEqualTo(ExitCode.PLAN_INVALID);
    }
    // One table's questions follow only its own chain, which ends at the missing parent.
    assertThat(tree.depth("orders")).isEqualTo(1);
    assertThat(tree.ancestors("orders")).isEmpty();
    assertThat(tree.inCycle("orders")).isFalse();
  }

  @Test
  void aCycleIsAPlanErrorNamingEveryTableInOrBelowIt() {
    InterleaveTree tree = tree(List.of("top", "c", "a", "b"), Map.of("a", "b", "b", "a", "c", "a"));
    assertThatThrownBy(tree::parentsFirst).isInstanceOf(Pg2SpannerException.class)
        .hasMessage("the interleave parents of c, a, b form a cycle; fix interleave.parent in the plan.");
    assertThat(tree.inCycle("a")).isTrue();
    assertThat(tree.inCycle("c")).isTrue();
    assertThat(tree.inCycle("top")).isFalse();
    assertThat(tree.depth("top")).isEqualTo(1);
    assertThatThrownBy(() -> tree.depth("c")).isInstanceOf(Pg2SpannerException.class)
        .hasMessageContaining("form a cycle");
    // On the cycle the ancestors come back to the table; below it they do not.
    assertThat(tree.ancestors("a")).containsExactly("b", "a");
    assertThat(tree.ancestors("c")).containsExactly("a", "b");
    InterleaveTree self = tree(List.of("t"), Map.of("t", "t"));
    assertThat(self.inCycle("t")).isTrue();
    assertThat(self.ancestors("t")).containsExactly("t");
  }
}
