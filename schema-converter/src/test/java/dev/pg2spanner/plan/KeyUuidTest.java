package dev.pg2spanner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class KeyUuidTest {

  @Test
  void matchesTheRfcVersion5ReferenceValues() {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org'); RFC 9562 appendix A.4: 'www.example.com'.
    UUID dns = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    assertThat(KeyUuid.v5(dns, "python.org")).hasToString("886313e1-3b8a-5372-9b90-0c9aee199e5d");
    assertThat(KeyUuid.v5(dns, "www.example.com")).hasToString("2ed6657d-e927-568b-95e1-2665a8aea6a2");
    assertThat(KeyUuid.v5(dns, "python.org").version()).isEqualTo(5);
    assertThat(KeyUuid.v5(dns, "python.org").variant()).isEqualTo(2);
  }

  @Test
  void eachTableHasItsOwnNamespaceAndEachIdItsOwnUuid() {
    UUID orders = KeyUuid.namespaceFor("public.orders");
    assertThat(orders).isEqualTo(KeyUuid.namespaceFor("public.orders"))
        .isNotEqualTo(KeyUuid.namespaceFor("public.customers"));
    Set<UUID> seen = new HashSet<>();
    for (long id = -1000; id <= 100_000; id++) {
      assertThat(seen.add(KeyUuid.of(orders, id))).isTrue();
    }
    assertThat(KeyUuid.of(orders, 42)).isEqualTo(KeyUuid.v5(orders, "42"));
  }
}
