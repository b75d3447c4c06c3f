package dev.pg2spanner.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the test class its own Spanner emulator instance and database; inject it as a
 * {@link SpannerTestDatabase} parameter. See {@link SpannerEmulatorExtension} for where the emulator comes from.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SpannerEmulatorExtension.class)
public @interface WithSpannerEmulator {}
