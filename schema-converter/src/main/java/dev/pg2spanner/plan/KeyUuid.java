package dev.pg2spanner.plan;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The {@code uuid} key strategy for an integer key: each old key value becomes a name-based, version-5 UUID (RFC 9562
 * §5.5: SHA-1 of a namespace UUID and a name), with the value's decimal text as the name and one namespace per
 * remapped key. The mapping is a pure function, so the key column, every column that references it, and the
 * application can all compute the same UUID from the same old id — in PostgreSQL with the uuid-ossp extension,
 * {@code uuid_generate_v5('<namespace>'::uuid, id::text)}; in Python {@code uuid.uuid5(ns, str(id))}. SHA-1 output is
 * uniformly distributed, so the new keys spread over the whole key space whatever order the old ids had.
 *
 * <p>Thread-safe.
 */
public final class KeyUuid {

  /** The root of every namespace this tool derives: a fixed random UUID, part of the plan format's contract. */
  public static final UUID ROOT = UUID.fromString("5c4e9b1a-7f3d-4c2e-9a61-2b8d0f6e4a17");

  private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java runtime", e);
    }
  });

  private KeyUuid() {}

  /** The namespace of one source table's key: {@code uuid5(ROOT, "schema.table")}. */
  public static UUID namespaceFor(String sourceTable) {
    return v5(ROOT, sourceTable);
  }

  /** The UUID that replaces one old key value. */
  public static UUID of(UUID namespace, long value) {
    return v5(namespace, Long.toString(value));
  }

  /** A version-5 UUID, byte for byte as RFC 9562 and PostgreSQL's {@code uuid_generate_v5} compute it. */
  public static UUID v5(UUID namespace, String name) {
    MessageDigest sha = SHA1.get();
    sha.reset();
    ByteBuffer ns = ByteBuffer.allocate(16);
    ns.putLong(namespace.getMostSignificantBits()).putLong(namespace.getLeastSignificantBits());
    sha.update(ns.array());
    byte[] hash = sha.digest(name.getBytes(StandardCharsets.UTF_8));
    hash[6] = (byte) ((hash[6] & 0x0f) | 0x50);
    hash[8] = (byte) ((hash[8] & 0x3f) | 0x80);
    ByteBuffer b = ByteBuffer.wrap(hash, 0, 16);
    return new UUID(b.getLong(), b.getLong());
  }
}
