package dev.pg2spanner.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy between pg2spanner and a database, owned by the test suite: it forwards bytes both ways and can cut
 * every open connection at once (as a network failure or a restarted pooler does) or stall them for a while. No
 * library or container needed; one thread per direction per connection.
 */
public final class TcpFaultProxy implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress upstream;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final AtomicLong cuts = new AtomicLong();
  private volatile long stallUntil;
  /** A slow link: each chunk waits this long, and the link carries at most {@link #bytesPerSecond} each way. */
  private volatile long chunkDelayMillis;
  private volatile long bytesPerSecond;
  private final AtomicLong slowedChunks = new AtomicLong();
  private volatile boolean closed;
  private volatile boolean down;

  private TcpFaultProxy(ServerSocket server, InetSocketAddress upstream) {
    this.server = server;
    this.upstream = upstream;
  }

  /** A proxy on a free loopback port forwarding to {@code host:port}. */
  public static TcpFaultProxy start(String host, int port) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    TcpFaultProxy proxy = new TcpFaultProxy(server, new InetSocketAddress(host, port));
    Thread acceptor = new Thread(proxy::accept, "tcp-fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    return proxy;
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Connections cut so far (each client connection counts once). */
  public long cuts() {
    return cuts.get();
  }

  /** Connections open now. */
  public int openConnections() {
    return open.size() / 2;
  }

  /** Cuts every open connection (both sides see a reset); new connections are accepted as before. */
  public void cutAll() {
    // Taken before closing: each pump removes its sockets as it ends, which would change what is counted.
    List<Socket> now = List.copyOf(open);
    open.removeAll(now);
    cuts.addAndGet(now.size() / 2);
    for (Socket s : now) {
      try {
        s.setSoLinger(true, 0); // a reset, not an orderly close
        s.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  /**
   * The database disappears: every open connection is cut and new ones are reset as soon as they are accepted, as
   * when its host dies or a network partition starts, until {@link #up()}. The database behind stays as it was.
   */
  public void down() {
    down = true;
    cutAll();
  }

  /** The database is reachable again after {@link #down()}. */
  public void up() {
    down = false;
  }

  /**
   * Makes the link slow (not stalled) until called again with zeros: every chunk read from either side waits
   * {@code delayMillis} before it is passed on (latency), and each direction of each connection carries at most
   * {@code bytesPerSecond} (0: no limit).
   */
  public void slow(long delayMillis, long bytesPerSecond) {
    this.chunkDelayMillis = delayMillis;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Chunks that were passed on late because the link was slow. */
  public long slowedChunks() {
    return slowedChunks.get();
  }

  /** Holds every byte in both directions for {@code millis} (a network stall), then lets them through. */
  public void stall(long millis) {
    stallUntil = System.currentTimeMillis() + millis;
  }

  /**
   * Holds every byte in both directions until {@link #release}, on open connections and new ones alike, without
   * closing any: a black-holed network as a client sees it, or a proxy that hangs (TCP itself stays healthy, so the
   * operating system never gives up on the connection).
   */
  public void hold() {
    stallUntil = Long.MAX_VALUE;
  }

  /** Lets the held bytes through, and everything after them. */
  public void release() {
    stallUntil = 0;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        if (down) {
          client.setSoLinger(true, 0);
          client.close();
          cuts.incrementAndGet();
          continue;
        }
        Socket backend = new Socket();
        backend.connect(upstream, 10_000);
        client.setTcpNoDelay(true);
        backend.setTcpNoDelay(true);
        open.add(client);
        open.add(backend);
        pump(client, backend);
        pump(backend, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          // In short steps, so a release is seen at once.
          while (stallUntil > System.currentTimeMillis() && !closed) {
            Thread.sleep(Math.min(20, Math.max(1, stallUntil - System.currentTimeMillis())));
          }
          long delay = chunkDelayMillis;
          long rate = bytesPerSecond;
          if (delay > 0 || rate > 0) {
            slowedChunks.incrementAndGet();
            Thread.sleep(delay + (rate > 0 ? n * 1000L / rate : 0));
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // cut or closed: close the other side too
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "tcp-fault-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(java.io.Closeable s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    cutAll();
  }
}
