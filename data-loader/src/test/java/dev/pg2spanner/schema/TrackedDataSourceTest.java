package dev.pg2spanner.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flyway's connections are opened within a bound: a driver that never answers (the Spanner JDBC driver waiting on an
 * emulator that died while it created its database) no longer holds migrate for good.
 */
class TrackedDataSourceTest {

  private static final String PREFIX = "jdbc:pg2spanner-test:";

  /** A JDBC driver whose connect waits for {@link #answer}, then fails or returns a connection counting its closes. */
  private final class ScriptedDriver implements Driver {
    private final CountDownLatch answer = new CountDownLatch(1);
    private final AtomicInteger closed = new AtomicInteger();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private volatile SQLException failure;

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
      if (!acceptsURL(url)) {
        return null;
      }
      try {
        answer.await();
      } catch (InterruptedException e) {
        // the waiting side gave up: answer anyway, as a driver that ignores interrupts would
      }
      if (failure != null) {
        throw failure;
      }
      return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
          (proxy, method, args) -> {
            if (method.getName().equals("close")) {
              closed.incrementAndGet();
              closedLatch.countDown();
            }
            return null;
          });
    }

    @Override
    public boolean acceptsURL(String url) {
      return url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
      return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
      return 1;
    }

    @Override
    public int getMinorVersion() {
      return 0;
    }

    @Override
    public boolean jdbcCompliant() {
      return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }
  }

  private ScriptedDriver driver;

  @BeforeEach
  void register() throws SQLException {
    driver = new ScriptedDriver();
    DriverManager.registerDriver(driver);
  }

  @AfterEach
  void deregister() throws SQLException {
    driver.answer.countDown();
    DriverManager.deregisterDriver(driver);
  }

  @Test
  @Timeout(30) // without the bound, getConnection waits for good
  void aDriverThatNeverAnswersFailsAtTheBoundAndItsLateConnectionIsClosed() throws Exception {
    TrackedDataSource source = new TrackedDataSource(PREFIX + "hang", Duration.ofSeconds(1));

    assertThatThrownBy(source::getConnection).isInstanceOfSatisfying(SQLException.class,
        e -> assertThat(e.getSQLState()).isEqualTo("08001")).hasMessageContaining("within 1 s");

    driver.answer.countDown(); // the driver answers after the caller gave up
    assertThat(driver.closedLatch.await(10, TimeUnit.SECONDS)).as("the late connection is closed").isTrue();
    assertThat(driver.closed.get()).isEqualTo(1);
  }

  @Test
  void theDriversOwnFailureReachesTheCaller() {
    driver.failure = new SQLException("database not found", "42000");
    driver.answer.countDown();
    TrackedDataSource source = new TrackedDataSource(PREFIX + "fails", Duration.ofSeconds(10));

    assertThatThrownBy(source::getConnection).isSameAs(driver.failure);
  }

  @Test
  void aConnectionInTimeIsReturnedAndClosedWithTheOthers() throws Exception {
    driver.answer.countDown();
    TrackedDataSource source = new TrackedDataSource(PREFIX + "ok", Duration.ofSeconds(10));

    Connection c = source.getConnection();
    assertThat(c).isNotNull();
    assertThat(driver.closed.get()).isZero();
    source.closeAll();
    assertThat(driver.closed.get()).isEqualTo(1);
  }
}
