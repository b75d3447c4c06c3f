package dev.pg2spanner.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.preflight.RowVisibility.Policy;
import dev.pg2spanner.preflight.RowVisibility.Problem;
import dev.pg2spanner.preflight.RowVisibility.Relation;
import dev.pg2spanner.preflight.RowVisibility.Report;
import dev.pg2spanner.preflight.RowVisibility.Restriction;
import dev.pg2spanner.preflight.RowVisibility.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision of {@link RowVisibility}: who row-level security applies to, and which relations are read. */
class RowVisibilityTest {

  private static final Role READER = new Role("reader", false, false);
  private static final Policy THIRD = new Policy("third", true, "SELECT", List.of("PUBLIC"), "(grp = 0)", true);

  /** A plain table: not a partition, readable. */
  private static Relation table(String name, boolean rls, boolean forced, boolean owner, Policy... policies) {
    return new Relation(name, name, false, false, rls, forced, owner, true, true, List.of(policies));
  }

  private static List<Problem> problems(Report report) {
    return report.restrictions().stream().map(Restriction::problem).toList();
  }

  @Test
  void rowSecurityAppliesToARoleThatIsNotTheOwner() {
    Report report = RowVisibility.evaluate(READER, List.of(table("public.t", true, false, false, THIRD)));

    assertThat(problems(report)).containsExactly(Problem.ROW_SECURITY);
    assertThat(report.filteredTables()).containsExactly("public.t");
    assertThat(report.unreadable()).isEmpty();
    assertThat(report.filtered().get(0).describe())
        .isEqualTo("public.t: row-level security, policy third (FOR SELECT TO PUBLIC USING (grp = 0))");
    assertThat(report.advice()).contains("BYPASSRLS").contains("ALTER ROLE \"reader\" BYPASSRLS;")
        .contains("owner");
  }

  @Test
  void theOwnerReadsEverythingUnlessRowSecurityIsForced() {
    assertThat(RowVisibility.evaluate(READER, List.of(table("public.t", true, false, true, THIRD))).restrictions())
        .isEmpty();

    Report forced = RowVisibility.evaluate(READER, List.of(table("public.t", true, true, true, THIRD)));
    assertThat(problems(forced)).containsExactly(Problem.FORCED_ROW_SECURITY);
    assertThat(forced.filtered().get(0).describe()).contains("forced (it applies to the owner too)");
    // The owner is no way out of forced policies.
    assertThat(forced.advice()).contains("BYPASSRLS").doesNotContain("owner");
  }

  @Test
  void superusersAndBypassRlsRolesAreNeverFiltered() {
    List<Relation> relations = List.of(table("public.t", true, true, false, THIRD));
    assertThat(RowVisibility.evaluate(new Role("admin", true, false), relations).restrictions()).isEmpty();
    assertThat(RowVisibility.evaluate(new Role("loader", false, true), relations).restrictions()).isEmpty();
  }

  @Test
  void withoutAPolicyForTheRoleItSeesNoRows() {
    Policy otherRole = new Policy("managers", true, "ALL", List.of("manager"), "true", false);
    Restriction none = RowVisibility.evaluate(READER, List.of(table("public.t", true, false, false))).filtered()
        .get(0);
    Restriction notForMe = RowVisibility.evaluate(READER, List.of(table("public.t", true, false, false, otherRole)))
        .filtered().get(0);
    Restriction restrictiveOnly = RowVisibility.evaluate(READER, List.of(table("public.t", true, false, false,
        new Policy("eu", false, "SELECT", List.of("PUBLIC"), "(region = 'eu')", true)))).filtered().get(0);

    assertThat(none.seesNoRows()).isTrue();
    assertThat(none.describe()).contains("no SELECT policy").contains("no policy lets this role read any row");
    assertThat(notForMe.seesNoRows()).isTrue();
    assertThat(notForMe.describe()).contains("managers (FOR ALL TO manager USING true; not for this role)");
    assertThat(restrictiveOnly.seesNoRows()).isTrue();
    assertThat(restrictiveOnly.describe()).contains("eu (RESTRICTIVE FOR SELECT");
    assertThat(RowVisibility.evaluate(READER, List.of(table("public.t", true, false, false, THIRD))).filtered()
        .get(0).seesNoRows()).isFalse();
  }

  @Test
  void partitionsAreReadDirectlySoTheirOwnGrantsAndPoliciesCount() {
    Relation parent = new Relation("public.p", "public.p", false, true, false, false, false, true, true, List.of());
    Relation middle = new Relation("public.p", "public.p_eu", true, true, false, false, false, true, false, List.of());
    Relation unreadable = new Relation("public.p", "public.p_eu_1", true, false, false, false, false, true, false,
        List.of());
    Relation policed = new Relation("public.p", "public.p_us", true, false, true, false, false, true, true,
        List.of(THIRD));
    Relation hiddenSchema = new Relation("public.p", "archive.p_old", true, false, false, false, false, false, true,
        List.of());

    Report report = RowVisibility.evaluate(READER, List.of(parent, middle, unreadable, policed, hiddenSchema));

    // The intermediate partitioned table holds no rows and is never read: no SELECT needed there.
    assertThat(report.unreadable()).extracting(Restriction::relation, Restriction::problem).containsExactly(
        org.assertj.core.groups.Tuple.tuple("public.p_eu_1", Problem.NO_SELECT),
        org.assertj.core.groups.Tuple.tuple("archive.p_old", Problem.NO_SCHEMA_USAGE));
    assertThat(report.filtered()).extracting(Restriction::where)
        .containsExactly("public.p_us (a partition of public.p)");
    assertThat(report.filteredTables()).containsExactly("public.p");
    assertThat(report.of("public.p")).hasSize(3);
  }

  @Test
  void aTopLevelTableWithoutSelectIsUnreadable() {
    Relation t = new Relation("billing.Invoice", "billing.\"Invoice\"", false, false, false, false, false, true,
        false, List.of());
    Report report = RowVisibility.evaluate(READER, List.of(t));
    assertThat(report.unreadable()).extracting(Restriction::describe)
        .containsExactly("billing.\"Invoice\": no SELECT privilege");
    assertThat(report.filtered()).isEmpty();
  }
}
