package dev.pg2spanner.rundir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class RunDirectoryLockTest {

  @Test
  void aSecondCommandInTheSameJvmIsRefusedNamingTheHolder(@TempDir Path dir) {
    Path run = dir.resolve("run");
    try (RunDirectoryLock first = RunDirectoryLock.acquire(run, "migrate")) {
      assertThat(first.createdDirectory()).isTrue();
      assertThatThrownBy(() -> RunDirectoryLock.acquire(run, "migrate --resume"))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.RUN_STATE);
            assertThat(e.getMessage()).contains("is in use by migrate (pid " + ProcessHandle.current().pid())
                .contains("on host " + RunDirectoryLock.host()).contains("since " + first.holder().since())
                .contains("nothing was changed on the source or the target").contains("its own --run-dir");
          });
      // Another spelling of the same directory is the same lock.
      assertThat(RunDirectoryLock.tryAcquire(dir.resolve("x/../run"), "cutover")).isEmpty();
      assertThat(RunDirectoryLock.holder(run)).contains(first.holder());
    }
    assertThat(RunDirectoryLock.holder(run)).isEmpty();
    try (RunDirectoryLock again = RunDirectoryLock.acquire(run, "migrate")) {
      assertThat(again.createdDirectory()).as("the directory exists now").isFalse();
    }
  }

  @Test
  void aRunRefusedBeforeItBeganRemovesOnlyADirectoryItCreated(@TempDir Path dir) throws Exception {
    Path made = dir.resolve("made");
    try (RunDirectoryLock lock = RunDirectoryLock.acquire(made, "migrate")) {
      Files.writeString(made.resolve(RunFiles.PROGRESS), "{}\n");
      lock.removeDirectoryOnClose();
    }
    assertThat(made).doesNotExist();

    Path existing = Files.createDirectories(dir.resolve("existing"));
    Files.writeString(existing.resolve("notes.txt"), "mine");
    try (RunDirectoryLock lock = RunDirectoryLock.acquire(existing, "migrate")) {
      lock.removeDirectoryOnClose();
    }
    assertThat(existing.resolve("notes.txt")).hasContent("mine");
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void anotherProcessIsNamedAndALockLeftByAKilledProcessBlocksNothing(@TempDir Path dir) throws Exception {
    Path run = dir.resolve("run");
    Process other = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), run.toString()))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
      assertThat(lines.readLine()).isEqualTo("locked");

      assertThat(RunDirectoryLock.holder(run)).hasValueSatisfying(h -> {
        assertThat(h.pid()).isEqualTo(other.pid());
        assertThat(h.command()).isEqualTo("migrate --live");
        assertThat(h.isThisProcess()).isFalse();
      });
      assertThat(RunDirectoryLock.holder(run)).as("looking does not take the lock away").isPresent();
      long started = System.nanoTime();
      assertThatThrownBy(() -> RunDirectoryLock.acquire(run, "migrate"))
          .isInstanceOfSatisfying(Pg2SpannerException.class, e -> {
            assertThat(e.code()).isEqualTo(ExitCode.RUN_STATE);
            assertThat(e.getMessage()).contains("migrate --live (pid " + other.pid()).contains("kill " + other.pid());
          });
      assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).as("refused at once").isLessThan(30);

      other.destroyForcibly(); // kill -9: no hook runs, the operating system drops the lock
      assertThat(other.waitFor(1, TimeUnit.MINUTES)).isTrue();
      try (RunDirectoryLock mine = RunDirectoryLock.acquire(run, "migrate --resume")) {
        assertThat(mine.holder().isThisProcess()).isTrue();
      }
    } finally {
      other.destroyForcibly();
    }
  }

  /** Holds a run directory's lock until killed: another process, for the test above. */
  public static final class LockHolder {
    public static void main(String[] args) throws Exception {
      RunDirectoryLock lock = RunDirectoryLock.acquire(Path.of(args[0]), "migrate --live");
      System.out.println("locked");
      System.out.flush();
      Thread.sleep(TimeUnit.MINUTES.toMillis(5));
      lock.close();
    }
  }
}
