package dev.pg2spanner.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the test class its own freshly created PostgreSQL database (dropped afterwards); inject it as a
 * {@link PgTestDatabase} parameter. See {@link PostgresExtension} for where the server comes from.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PostgresExtension.class)
public @interface WithPostgres {}
