package dev.pg2spanner.source;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketOption;
import javax.net.SocketFactory;
import jdk.net.ExtendedSocketOptions;

/**
 * The sockets pg2spanner's source connections use (pgjdbc's {@code socketFactory}, unless the URL names its own): TCP
 * keepalive with short timers, so a connection whose peer vanished without a word (a black-holed network, a firewall
 * or NAT that forgot the connection, a host that lost power) fails its blocked read within about
 * {@link #IDLE_SECONDS} + {@link #INTERVAL_SECONDS} × {@link #PROBES} seconds (two minutes) instead of never; the OS's
 * own keepalive timers (two hours before the first probe on Linux) would leave a bulk load or verify waiting that
 * long. A live server answers the probes from its kernel however long a query keeps it silent, so a legitimately
 * long read is not cut; neither is one behind a proxy that hangs but still answers them (README says so). Keepalive
 * only probes a connection with nothing in flight: a request sent after the peer vanished (a load worker's next
 * COPY) is given up by TCP's retransmission limit instead (about 15 minutes on Linux), which Java cannot shorten
 * (it has no TCP_USER_TIMEOUT). Where the platform cannot set the timers, the socket keeps the OS's.
 */
public final class KeepaliveSocketFactory extends SocketFactory {

  /** Seconds a connection is quiet before the first probe. */
  static final int IDLE_SECONDS = 60;
  /** Seconds between probes. */
  static final int INTERVAL_SECONDS = 10;
  /** Unanswered probes before the connection is declared dead. */
  static final int PROBES = 6;

  /** pgjdbc instantiates the factory it is named in {@code socketFactory} with no argument. */
  public KeepaliveSocketFactory() {}

  @Override
  public Socket createSocket() throws IOException {
    Socket s = new Socket();
    s.setKeepAlive(true);
    set(s, ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
    set(s, ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
    set(s, ExtendedSocketOptions.TCP_KEEPCOUNT, PROBES);
    return s;
  }

  private static void set(Socket s, SocketOption<Integer> option, int value) throws IOException {
    if (s.supportedOptions().contains(option)) {
      s.setOption(option, value);
    }
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
  }

  /** A socket of this factory connected to {@code remote}, bound first to {@code local} when it is not null. */
  private Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
    Socket s = createSocket();
    if (local != null) {
      s.bind(local);
    }
    s.connect(remote);
    return s;
  }
}
