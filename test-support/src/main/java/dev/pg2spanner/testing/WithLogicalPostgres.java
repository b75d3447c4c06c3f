package dev.pg2spanner.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the test class its own PostgreSQL database on a server with {@code wal_level = logical} (dropped
 * afterwards, with its replication slots); inject it as a {@link PgTestDatabase} parameter. See
 * {@link LogicalPostgresExtension} for where the server comes from.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(LogicalPostgresExtension.class)
public @interface WithLogicalPostgres {}
