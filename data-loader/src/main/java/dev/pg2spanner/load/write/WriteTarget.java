package dev.pg2spanner.load.write;

import com.google.cloud.spanner.Mutation;
import java.util.List;

/**
 * One blind commit of mutations; in production {@code DatabaseClient::writeAtLeastOnce}. Failures are thrown as
 * {@link com.google.cloud.spanner.SpannerException}. A seam so batching and bisecting can be tested without a
 * Spanner.
 */
@FunctionalInterface
public interface WriteTarget {
  void write(List<Mutation> mutations);
}
