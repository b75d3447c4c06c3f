package dev.pg2spanner.source;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.InvalidValueException;
import dev.pg2spanner.error.Pg2SpannerException;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * Where the source database is and how to log in, parsed once at the edge.
 *
 * @param jdbcUrl a {@code jdbc:postgresql:} URL; it may carry user and password parameters
 * @param password a password given outside the URL ({@code PGPASSWORD} or a password file), or null
 */
public record SourceConfig(String jdbcUrl, Secret password) {

  private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)([?&]password=)[^&]*");

  public SourceConfig {
    if (jdbcUrl == null || jdbcUrl.isBlank()) {
      throw new InvalidValueException(
          "no source database given: pass --source jdbc:postgresql://HOST:PORT/DATABASE?user=USER");
    }
    Properties p = jdbcUrl.startsWith("jdbc:postgresql:") ? Driver.parseURL(jdbcUrl, new Properties()) : null;
    if (p == null) {
      throw new InvalidValueException("--source " + redact(jdbcUrl)
          + " is not a PostgreSQL JDBC URL: use jdbc:postgresql://HOST:PORT/DATABASE?user=USER");
    }
    // pgjdbc ignores a bound it cannot read (with a warning) and then waits without one: refuse it instead.
    for (String bound : new String[] {"connectTimeout", "loginTimeout", "socketTimeout"}) {
      String value = p.getProperty(bound);
      if (value != null && !value.matches("\\d{1,9}")) {
        throw new InvalidValueException("--source " + redact(jdbcUrl) + ": " + bound + "=" + value + " is not a "
            + "whole number of seconds (0 means no bound); fix it, or leave it out for pg2spanner's default");
      }
    }
    // pgjdbc reads anything but "true" as false, so a misspelt tcpKeepAlive would turn keepalive off unseen.
    String keepAlive = p.getProperty(PGProperty.TCP_KEEP_ALIVE.getName());
    if (keepAlive != null && !keepAlive.equalsIgnoreCase("true") && !keepAlive.equalsIgnoreCase("false")) {
      throw new InvalidValueException("--source " + redact(jdbcUrl) + ": tcpKeepAlive=" + keepAlive + " is not true "
          + "or false; fix it, or leave it out for pg2spanner's default (on, with short timers)");
    }
    // A socket factory that cannot be loaded fails every connection with a message about reaching the host.
    String factory = p.getProperty(PGProperty.SOCKET_FACTORY.getName());
    if (factory != null && !isSocketFactory(factory)) {
      throw new InvalidValueException("--source " + redact(jdbcUrl) + ": socketFactory=" + factory + " is not a "
          + "javax.net.SocketFactory on pg2spanner's classpath; leave it out (pg2spanner's own sockets then carry "
          + "TCP keepalive), or name one that is");
    }
  }

  private static boolean isSocketFactory(String className) {
    try {
      return javax.net.SocketFactory.class.isAssignableFrom(
          Class.forName(className, false, SourceConfig.class.getClassLoader()));
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** True when the URL sets the connection property {@code name} itself (pg2spanner's default then stays out). */
  public boolean urlSets(String name) {
    return parsed().getProperty(name) != null;
  }

  /** The URL with any password parameter masked, safe to print. */
  public String redactedUrl() {
    return redact(jdbcUrl);
  }

  /** The URL without any password parameter: safe to record in a run directory and to print in a command. */
  public String urlWithoutPassword() {
    return jdbcUrl.replaceAll("(?i)([?&])password=[^&]*&?", "$1").replaceAll("[?&]$", "");
  }

  /** {@code host:port/database}, the way messages name the source. */
  public String endpoint() {
    Properties p = parsed();
    return p.getProperty(PGProperty.PG_HOST.getName(), "localhost") + ":"
        + p.getProperty(PGProperty.PG_PORT.getName(), "5432") + "/" + p.getProperty(PGProperty.PG_DBNAME.getName(), "");
  }

  /** The user named in the URL, if any (else the driver uses the OS user name). */
  public Optional<String> user() {
    return Optional.ofNullable(parsed().getProperty(PGProperty.USER.getName()));
  }

  /** True when the URL itself carries a password. */
  public boolean urlHasPassword() {
    return parsed().getProperty(PGProperty.PASSWORD.getName()) != null;
  }

  private Properties parsed() {
    return Driver.parseURL(jdbcUrl, new Properties());
  }

  /** The same server and login, another database. */
  public SourceConfig withDatabase(String database) {
    java.util.regex.Matcher m = Pattern.compile("^(jdbc:postgresql://[^/?]*/)([^?]*)(\\?.*)?$").matcher(jdbcUrl);
    if (!m.matches()) {
      throw new Pg2SpannerException(ExitCode.SOURCE_CONNECTION, "cannot name another database in --source "
          + redactedUrl() + ": use the form jdbc:postgresql://HOST:PORT/DATABASE?user=USER");
    }
    return new SourceConfig(m.group(1) + database + (m.group(3) == null ? "" : m.group(3)), password);
  }

  /** Masks the value of a {@code password=} URL parameter. */
  public static String redact(String url) {
    return url == null ? null : PASSWORD_PARAM.matcher(url).replaceAll("$1****");
  }

  @Override
  public String toString() {
    return "SourceConfig[" + redactedUrl() + (password == null ? "" : ", password=****") + "]";
  }
}
