package dev.pg2spanner.testing;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The test suite's Spanner fault injector: a gRPC client interceptor that answers chosen calls the way real Spanner
 * fails and the emulator never does. On a seeded schedule (at most one fault per {@code minGapMillis}, each eligible
 * call then hit with probability {@code probability}) it
 * <ul>
 *   <li>answers a {@code Commit} with {@code ABORTED}, {@code UNAVAILABLE} or {@code RESOURCE_EXHAUSTED} without
 *       sending it;</li>
 *   <li>sends a {@code Commit}, lets it apply, and replaces its reply with {@code DEADLINE_EXCEEDED} (the client cannot
 *       tell whether it happened);</li>
 *   <li>cuts a streaming read ({@code ExecuteStreamingSql}, {@code StreamingRead}) with {@code UNAVAILABLE} after its
 *       first message;</li>
 *   <li>when asked ({@link #withSchemaChanges}), refuses a schema change ({@code UpdateDatabaseDdl}) with
 *       {@code UNAVAILABLE}, or lets it apply and replaces its reply with {@code DEADLINE_EXCEEDED}.</li>
 * </ul>
 * The seed is printed with the figures so a failing schedule can be replayed.
 */
public final class FaultInjector implements ClientInterceptor {

  /** What is injected. */
  public enum Kind {
    COMMIT_ABORTED, COMMIT_UNAVAILABLE, COMMIT_RESOURCE_EXHAUSTED, COMMIT_APPLIED_REPLY_LOST, READ_CUT,
    /** A schema change ({@code UpdateDatabaseDdl}) refused with UNAVAILABLE, not sent. */
    DDL_UNAVAILABLE,
    /** A schema change sent and applied (the emulator answers once it is), its reply replaced by DEADLINE_EXCEEDED. */
    DDL_APPLIED_REPLY_LOST
  }

  private static final Set<String> COMMITS = Set.of("google.spanner.v1.Spanner/Commit");
  private static final Set<String> READS = Set.of("google.spanner.v1.Spanner/ExecuteStreamingSql",
      "google.spanner.v1.Spanner/StreamingRead");
  private static final String DDL = "google.spanner.admin.database.v1.DatabaseAdmin/UpdateDatabaseDdl";

  private final long seed;
  private final Random random;
  private final double probability;
  private final long minGapNanos;
  private final Map<Kind, AtomicLong> injected = new EnumMap<>(Kind.class);
  private final AtomicLong calls = new AtomicLong();
  private volatile boolean enabled = true;
  private volatile boolean ddl;
  private volatile boolean ddlOnly;
  private long lastFault = Long.MIN_VALUE / 2;

  public FaultInjector(long seed, double probability, long minGapMillis) {
    this.seed = seed;
    this.random = new Random(seed);
    this.probability = probability;
    this.minGapNanos = minGapMillis * 1_000_000L;
    for (Kind k : Kind.values()) {
      injected.put(k, new AtomicLong());
    }
  }

  public long seed() {
    return seed;
  }

  /** Also hits schema changes (the schema phases' {@code UpdateDatabaseDdl} requests); off unless asked. */
  public FaultInjector withSchemaChanges() {
    this.ddl = true;
    return this;
  }

  /** Hits schema changes only (commits and reads pass), so a schedule of schema faults replays call for call. */
  public FaultInjector onlySchemaChanges() {
    this.ddl = true;
    this.ddlOnly = true;
    return this;
  }

  /** Stops (or restarts) injecting; calls in flight are not affected. */
  public void enabled(boolean on) {
    this.enabled = on;
  }

  public long injected(Kind kind) {
    return injected.get(kind).get();
  }

  public long injectedTotal() {
    return injected.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** Calls seen that could be hit (commits, streaming reads, and schema changes when asked). */
  public long calls() {
    return calls.get();
  }

  /** One line: the seed and the faults injected by kind. */
  public String summary() {
    StringBuilder s = new StringBuilder("seed ").append(seed).append(": ").append(injectedTotal())
        .append(" fault(s) in ").append(calls()).append(" call(s)");
    for (Kind k : Kind.values()) {
      s.append(", ").append(k.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(injected(k));
    }
    return s.toString();
  }

  private synchronized Kind draw(boolean commit, boolean schema) {
    long now = System.nanoTime();
    if (!enabled || now - lastFault < minGapNanos || random.nextDouble() >= probability) {
      return null;
    }
    lastFault = now;
    Kind kind = schema ? (random.nextBoolean() ? Kind.DDL_UNAVAILABLE : Kind.DDL_APPLIED_REPLY_LOST)
        : commit ? Kind.values()[random.nextInt(4)] : Kind.READ_CUT;
    injected.get(kind).incrementAndGet();
    return kind;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    String name = method.getFullMethodName();
    boolean commit = !ddlOnly && COMMITS.contains(name);
    boolean read = !ddlOnly && READS.contains(name);
    boolean schema = ddl && DDL.equals(name);
    if (!commit && !read && !schema) {
      return next.newCall(method, options);
    }
    calls.incrementAndGet();
    Kind kind = draw(commit, schema);
    if (kind == null) {
      return next.newCall(method, options);
    }
    return switch (kind) {
      case COMMIT_ABORTED -> refused(Status.ABORTED.withDescription("Transaction was aborted (injected)"));
      case COMMIT_UNAVAILABLE -> refused(Status.UNAVAILABLE.withDescription("Connection reset (injected)"));
      case COMMIT_RESOURCE_EXHAUSTED -> refused(Status.RESOURCE_EXHAUSTED.withDescription(
          "Too many requests (injected)"));
      case COMMIT_APPLIED_REPLY_LOST, DDL_APPLIED_REPLY_LOST -> replyLost(next.newCall(method, options));
      case DDL_UNAVAILABLE -> refused(Status.UNAVAILABLE.withDescription("Connection reset (injected)"));
      case READ_CUT -> cutAfterFirstMessage(next.newCall(method, options));
    };
  }

  /** A call answered with {@code status} at once; nothing reaches the server. */
  private static <Q, A> ClientCall<Q, A> refused(Status status) {
    return new ClientCall<>() {
      private Listener<A> listener;

      @Override
      public void start(Listener<A> responseListener, Metadata headers) {
        this.listener = responseListener;
      }

      @Override
      public void request(int numMessages) {
      }

      @Override
      public void cancel(String message, Throwable cause) {
      }

      @Override
      public void halfClose() {
        listener.onClose(status, new Metadata());
      }

      @Override
      public void sendMessage(Q message) {
      }
    };
  }

  /** The call goes through and applies; its reply is replaced by DEADLINE_EXCEEDED. */
  private static <Q, A> ClientCall<Q, A> replyLost(ClientCall<Q, A> call) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<A> responseListener, Metadata headers) {
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(responseListener) {
          @Override
          public void onMessage(A message) {
            // dropped: the commit happened, the client never hears of it
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            super.onClose(status.isOk() ? Status.DEADLINE_EXCEEDED.withDescription(
                "Deadline exceeded after the commit was applied (injected)") : status, trailers);
          }
        }, headers);
      }
    };
  }

  /** A streaming read cut with UNAVAILABLE after its first message. */
  private static <Q, A> ClientCall<Q, A> cutAfterFirstMessage(ClientCall<Q, A> call) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<A> responseListener, Metadata headers) {
        ClientCall<Q, A> self = this;
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(responseListener) {
          private boolean cut;

          @Override
          public void onMessage(A message) {
            if (cut) {
              return;
            }
            super.onMessage(message);
            cut = true;
            self.cancel("cut by the fault injector", null);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            super.onClose(cut ? Status.UNAVAILABLE.withDescription("Connection reset mid-stream (injected)")
                : status, trailers);
          }
        }, headers);
      }
    };
  }
}
