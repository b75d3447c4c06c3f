package dev.pg2spanner.hotspot;

import static dev.pg2spanner.fixtures.PgFixtures.BIGINT;
import static dev.pg2spanner.fixtures.PgFixtures.TEXT;
import static dev.pg2spanner.fixtures.PgFixtures.TIMESTAMPTZ;
import static dev.pg2spanner.fixtures.PgFixtures.UUID;
import static dev.pg2spanner.fixtures.PgFixtures.catalog;
import static dev.pg2spanner.fixtures.PgFixtures.column;
import static dev.pg2spanner.fixtures.PgFixtures.sequence;
import static dev.pg2spanner.fixtures.PgFixtures.serial;
import static dev.pg2spanner.fixtures.PgFixtures.table;
import static dev.pg2spanner.fixtures.PgFixtures.withCorrelation;
import static dev.pg2spanner.fixtures.PgFixtures.withDefault;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pg2spanner.catalog.PgCatalog;
import dev.pg2spanner.catalog.PgColumn;
import dev.pg2spanner.catalog.PgTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MonotonicRulesTest {

  private static Optional<Monotonicity> detect(PgColumn c, List<Object> sampled, PgCatalog catalog) {
    PgTable t = table("t", 1, List.of(c), List.of(), List.of());
    List<List<Object>> rows = sampled.stream().map(v -> List.of(v)).toList();
    return MonotonicityDetector.detect(catalog, t, t.columns().get(0), new KeySample("public.t", List.of(c.name()),
        rows, true));
  }

  private static Optional<Monotonicity> detect(PgColumn c, List<Object> sampled) {
    return detect(c, sampled, catalog(List.of(), List.of()));
  }

  private static List<Object> rising(int n) {
    List<Object> v = new ArrayList<>();
    for (long i = 1; i <= n; i++) {
      v.add(i * 3);
    }
    return v;
  }

  private static List<Object> shuffled(int n) {
    List<Object> v = rising(n);
    java.util.Collections.shuffle(v, new Random(3));
    return v;
  }

  @Test
  void sharedSequenceNotOwnedByAnyoneIsEvidence() {
    PgCatalog catalog = catalog(List.of(), List.of(sequence("public", "doc_seq", 1, 42L, "public.invoices.id",
        "public.credit_notes.id")));
    Monotonicity m = detect(serial("id", "public", "doc_seq"), List.of(), catalog).orElseThrow();
    assertThat(m.cause()).isEqualTo(Monotonicity.Cause.SEQUENCE);
    assertThat(m.descending()).isFalse();
    assertThat(m.evidence()).containsEntry("sequence", "public.doc_seq").containsEntry("ownedBy", "nobody")
        .containsKey("sharedWith");
    assertThat(m.explanation()).contains("shared by 2 columns");
  }

  @Test
  void descendingSequenceIsFlaggedAsDescending() {
    PgCatalog catalog = catalog(List.of(), List.of(sequence("public", "down", -1, -5L, "public.t.id")));
    assertThat(detect(serial("id", "public", "down"), List.of(), catalog).orElseThrow().descending()).isTrue();
  }

  @Test
  void identityColumnsAreSequenceFed() {
    PgColumn identity = new PgColumn("id", 1, BIGINT, true, null, PgColumn.Identity.BY_DEFAULT, null, null, null, null,
        null);
    assertThat(detect(identity, List.of()).orElseThrow().cause()).isEqualTo(Monotonicity.Cause.SEQUENCE);
  }

  @Test
  void timestampsAndNowDefaultsAreTemporal() {
    assertThat(detect(column("at", TIMESTAMPTZ), List.of()).orElseThrow().cause())
        .isEqualTo(Monotonicity.Cause.TEMPORAL);
    assertThat(detect(withDefault(column("stamp", TEXT), "(clock_timestamp())::text"), List.of()).orElseThrow()
        .evidence()).containsKey("default");
  }

  @Test
  void aDefaultReadsTheClockOnlyThroughAClockFunctionNotThroughText() {
    for (String clock : List.of("now()", "pg_catalog.now()", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP(3)",
        "(CURRENT_DATE + 1)", "(statement_timestamp() + '1 day'::interval)", "LOCALTIMESTAMP")) {
      assertThat(detect(withDefault(column("stamp", TEXT), clock), List.of())).as(clock).isPresent();
    }
    // Fixed: the text matcher also found now() inside a string literal and a quoted name.
    for (String notClock : List.of("'now()'::text", "'current_date'::text", "\"now\"()", "my_now()")) {
      assertThat(detect(withDefault(column("stamp", TEXT), notClock), List.of())).as(notClock).isEmpty();
    }
  }

  @Test
  void timeOrderedUuidsAreFlaggedAndRandomOnesAreNot() {
    List<Object> v7 = new ArrayList<>();
    List<Object> v4 = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      v7.add(String.format("%08x-%04x-7abc-8def-0123456789ab", 0x01900000 + i, i));
      v4.add(java.util.UUID.randomUUID().toString());
    }
    Monotonicity m = detect(column("id", UUID), v7).orElseThrow();
    assertThat(m.cause()).isEqualTo(Monotonicity.Cause.TIME_ORDERED_UUID);
    assertThat(m.evidence().get("sampledVersions").toString()).contains("v7=50");
    assertThat(detect(column("id", UUID), v4)).isEmpty();
  }

  @Test
  void applicationIdsThatKeepRisingAreFlaggedOnlyWhenBothSignalsAgree() {
    PgColumn correlated = withCorrelation(column("id", BIGINT), 0.998);
    assertThat(detect(correlated, rising(200)).orElseThrow().cause())
        .isEqualTo(Monotonicity.Cause.CORRELATED_VALUES);
    // High correlation but the sample does not rise: not enough.
    assertThat(detect(correlated, shuffled(200))).isEmpty();
    // Rising sample but low correlation: not enough either.
    assertThat(detect(withCorrelation(column("id", BIGINT), 0.2), rising(200))).isEmpty();
    // No statistics at all: an externally assigned key with no default is not flagged.
    assertThat(detect(column("id", BIGINT), rising(200))).isEmpty();
  }

  @Test
  void timePrefixedTextKeysAreRecognised() {
    List<Object> ulids = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ulids.add(String.format("01J%07dXYZ", i));
    }
    Monotonicity m = detect(withCorrelation(column("id", TEXT), 1.0), ulids).orElseThrow();
    assertThat(m.cause()).isEqualTo(Monotonicity.Cause.TIME_PREFIXED_TEXT);
  }

  @Test
  void naturalTextKeysAreNotFlagged() {
    List<Object> codes = List.of("SE", "DE", "FR", "US", "BR", "JP", "CN", "IN", "ZA", "NG", "AR", "CL", "PE", "MX",
        "CA", "GB", "IE", "NL", "BE", "LU", "PL", "CZ", "SK");
    assertThat(detect(withCorrelation(column("code", TEXT), 0.1), List.copyOf(codes))).isEmpty();
  }

  @Test
  void shortCodesInsertedInSortedOrderAreNaturalKeysNotRisingIds() {
    List<Object> codes = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      codes.add(String.format("t%03d", i));
    }
    assertThat(detect(withCorrelation(column("tenant_code", TEXT), 1.0), codes)).isEmpty();
  }

  @Test
  void aFewDozenRisingRowsProveNothing() {
    assertThat(detect(withCorrelation(column("id", BIGINT), 1.0), rising(60))).isEmpty();
  }
}
