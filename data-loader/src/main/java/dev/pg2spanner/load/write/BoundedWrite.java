package dev.pg2spanner.load.write;

import com.google.api.gax.rpc.ApiCallContext;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.SpannerOptions;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One {@code writeAtLeastOnce} attempt that ends: the Spanner client's own retries are switched off and the attempt
 * has a deadline, so {@link RetryPolicy} alone decides how long a lost target is retried. Without this the client
 * retries an unreachable target (a stopped emulator) with its default commit timeout of an hour, inside a single
 * attempt, and migrate appears to hang.
 */
public final class BoundedWrite implements WriteTarget {

  /** Far above any healthy commit (a batch is at most 80,000 mutations), far below the client's hour. */
  static final long ATTEMPT_SECONDS = 60;

  private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "pg2spanner-commit-deadline");
    t.setDaemon(true);
    return t;
  });

  private static final SpannerOptions.CallContextConfigurator NO_CLIENT_RETRY =
      new SpannerOptions.CallContextConfigurator() {
        @Override
        public <ReqT, RespT> ApiCallContext configure(ApiCallContext context, ReqT request,
            MethodDescriptor<ReqT, RespT> method) {
          return context.withRetryableCodes(Set.of());
        }
      };

  private final DatabaseClient client;

  /** @param client the target database, not null */
  public BoundedWrite(DatabaseClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  public void write(List<Mutation> mutations) {
    Context.CancellableContext bounded = Context.current()
        .withValue(SpannerOptions.CALL_CONTEXT_CONFIGURATOR_KEY, NO_CLIENT_RETRY)
        .withDeadlineAfter(ATTEMPT_SECONDS, TimeUnit.SECONDS, DEADLINES);
    try {
      bounded.run(() -> client.writeAtLeastOnce(mutations));
    } finally {
      bounded.cancel(null);
    }
  }
}
