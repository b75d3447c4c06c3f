package dev.pg2spanner.rundir;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pg2spanner.error.ExitCode;
import dev.pg2spanner.error.NextStep;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive lock on a run directory ({@value RunFiles#LOCK}), held by every command that writes the directory
 * ({@code migrate} with any runner, {@code migrate --live}, {@code cutover}) for its whole life, so two of them never
 * write the same checkpoint, progress log or live state. A second command is refused at once, naming the process
 * that holds the lock (pid, host, since when, which command) and what to do.
 *
 * <p>The lock is the operating system's advisory lock on the file ({@code fcntl}), which the system releases when the
 * holding process ends in any way, {@code kill -9} included: a lock left by a process that died never blocks the
 * next run. The file's content only names the holder, for messages; whether the lock is held is always asked of
 * the operating system, never read from the content.
 *
 * <p>Within one JVM (tests run several commands in one), a second holder is refused too: the operating system's
 * locks belong to the process, so this class keeps the JVM's own holders in a table and never opens the file of a
 * directory this JVM holds (closing any descriptor of a locked file would release the process's lock on it).
 *
 * <p>{@link #holder} asks without taking the lock for longer than an instant (a shared lock on a read-only
 * descriptor, released at once), so {@code status} and {@code cutover} can look while a run holds it; a command that
 * starts during that instant tries again for a moment before it refuses.
 */
public final class RunDirectoryLock implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RunDirectoryLock.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a command tries before it refuses: rides over another command's momentary look at the lock. */
  private static final long ATTEMPT_MILLIS = 2_000;
  private static final long RETRY_MILLIS = 100;

  /** This JVM's holders, by the directory's real path. Guarded by the class. */
  private static final Map<Path, RunDirectoryLock> HELD = new HashMap<>();

  private static volatile String hostName;

  /**
   * Who holds a run directory.
   *
   * @param pid the holding process
   * @param host the machine it runs on
   * @param since when it took the lock (ISO-8601)
   * @param command what it is doing, e.g. "migrate --live"
   */
  @JsonPropertyOrder({"pid", "host", "since", "command"})
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Holder(long pid, String host, String since, String command) {

    /** "migrate --live (pid 4242 on host db-tools, since 2026-11-30T10:15:03Z)". */
    public String describe() {
      return (command == null ? "another command" : command) + " (pid " + pid + " on host " + host + ", since "
          + since + ")";
    }

    /** True when the holder is this process (another command of this JVM). */
    @JsonIgnore
    public boolean isThisProcess() {
      return pid == ProcessHandle.current().pid() && host().equals(RunDirectoryLock.host());
    }
  }

  private final Path directory;
  private final Path key;
  private final FileChannel channel;
  private final FileLock lock;
  private final Holder holder;
  private final boolean createdDirectory;
  private boolean removeDirectory;
  private boolean closed;

  private RunDirectoryLock(Path directory, Path key, FileChannel channel, FileLock lock, Holder holder,
      boolean createdDirectory) {
    this.directory = directory;
    this.key = key;
    this.channel = channel;
    this.lock = lock;
    this.holder = holder;
    this.createdDirectory = createdDirectory;
  }

  /**
   * Takes the lock on {@code runDirectory} (created when missing) for {@code command}, or refuses.
   *
   * @param command what the caller does, for the holder's record and messages, e.g. "migrate", "cutover"
   * @throws Pg2SpannerException RUN_STATE naming the holder when another command holds the directory; LOCAL_IO when
   *     the directory or its lock file cannot be created
   */
  public static RunDirectoryLock acquire(Path runDirectory, String command) {
    long deadline = System.nanoTime() + ATTEMPT_MILLIS * 1_000_000;
    while (true) {
      Attempt attempt = attempt(runDirectory, command);
      if (attempt.lock() != null) {
        return attempt.lock();
      }
      if (attempt.holder() != null || System.nanoTime() > deadline) {
        throw held(runDirectory, attempt.holder(), command);
      }
      sleep();
    }
  }

  /**
   * Takes the lock when no other command holds it; empty when one does (see {@link #holder} for who).
   *
   * @throws Pg2SpannerException LOCAL_IO when the directory or its lock file cannot be created
   */
  public static Optional<RunDirectoryLock> tryAcquire(Path runDirectory, String command) {
    long deadline = System.nanoTime() + ATTEMPT_MILLIS * 1_000_000;
    while (true) {
      Attempt attempt = attempt(runDirectory, command);
      if (attempt.lock() != null) {
        return Optional.of(attempt.lock());
      }
      if (attempt.holder() != null || System.nanoTime() > deadline) {
        return Optional.empty();
      }
      sleep();
    }
  }

  /**
   * Who holds {@code runDirectory} now, without taking its lock (beyond an instant) and without writing anything:
   * empty when no command holds it (also when the directory or its lock file does not exist).
   *
   * @return the holder; its fields say "unknown" when the holder has not named itself yet
   */
  public static Optional<Holder> holder(Path runDirectory) {
    synchronized (RunDirectoryLock.class) {
      Path key = key(runDirectory);
      RunDirectoryLock mine = HELD.get(key);
      if (mine != null) {
        return Optional.of(mine.holder);
      }
      Path file = runDirectory.resolve(RunFiles.LOCK);
      if (!Files.isRegularFile(file)) {
        return Optional.empty();
      }
      try (FileChannel probe = FileChannel.open(file, StandardOpenOption.READ)) {
        FileLock shared = probe.tryLock(0, Long.MAX_VALUE, true);
        if (shared != null) {
          shared.release();
          return Optional.empty();
        }
        return Optional.of(readHolder(file));
      } catch (NoSuchFileException e) {
        return Optional.empty();
      } catch (IOException | OverlappingFileLockException e) {
        // Unreadable: say nothing rather than claim a holder that may not exist.
        LOG.debug("Cannot probe {}: {}", file, e.toString());
        return Optional.empty();
      }
    }
  }

  /** The process holding this lock: this one. */
  public Holder holder() {
    return holder;
  }

  /** The run directory this lock covers. */
  public Path directory() {
    return directory;
  }

  /** True when taking this lock created the run directory (it did not exist before). */
  public boolean createdDirectory() {
    return createdDirectory;
  }

  /**
   * On {@link #close}, remove the run directory again when taking this lock created it: for a command refused
   * before it began, so a refusal leaves no directory behind. Nothing else can have written into it: this lock was
   * held the whole time.
   */
  public void removeDirectoryOnClose() {
    removeDirectory = createdDirectory;
  }

  @Override
  public void close() {
    synchronized (RunDirectoryLock.class) {
      if (closed) {
        return;
      }
      closed = true;
      HELD.remove(key);
      if (removeDirectory) {
        removeTree(directory);
      } else {
        try {
          channel.truncate(0); // a later reader of the file sees no stale holder
        } catch (IOException e) {
          LOG.debug("Cannot clear {}: {}", directory.resolve(RunFiles.LOCK), e.toString());
        }
      }
      try {
        lock.release();
      } catch (IOException e) {
        // closing the channel releases it too
      }
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("Closing {} failed: {}", directory.resolve(RunFiles.LOCK), e.toString());
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** One try: the lock, or who holds it (null when the holder could not be told: try again). */
  private record Attempt(RunDirectoryLock lock, Holder holder) {}

  private static Attempt attempt(Path runDirectory, String command) {
    synchronized (RunDirectoryLock.class) {
      boolean existed = Files.isDirectory(runDirectory);
      try {
        Files.createDirectories(runDirectory);
      } catch (IOException e) {
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot create the run directory " + runDirectory + " ("
            + e.getClass().getSimpleName() + ": " + e.getMessage() + "); choose a writable --run-dir. Nothing was "
            + "changed on the source or the target", e);
      }
      Path key = key(runDirectory);
      RunDirectoryLock mine = HELD.get(key);
      if (mine != null) {
        return new Attempt(null, mine.holder);
      }
      Path file = runDirectory.resolve(RunFiles.LOCK);
      FileChannel channel = null;
      try {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
          channel.close();
          Holder other = readHolder(file);
          // A holder that has not written its name yet, or a momentary look by status: try again.
          return new Attempt(null, other.pid() > 0 ? other : null);
        }
        Holder holder = new Holder(ProcessHandle.current().pid(), host(), Instant.now().toString(), command);
        byte[] bytes = JSON.writeValueAsBytes(holder);
        channel.truncate(0);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long position = 0;
        while (buffer.hasRemaining()) {
          position += channel.write(buffer, position);
        }
        channel.force(false);
        RunDirectoryLock held = new RunDirectoryLock(runDirectory, key, channel, lock, holder, !existed);
        HELD.put(key, held);
        return new Attempt(held, null);
      } catch (OverlappingFileLockException e) {
        // Another channel of this JVM holds it without being in the table: cannot happen, but never lose a lock.
        closeQuietly(channel);
        return new Attempt(null, new Holder(ProcessHandle.current().pid(), host(), "unknown", "another command"));
      } catch (IOException e) {
        closeQuietly(channel);
        throw new Pg2SpannerException(ExitCode.LOCAL_IO, "cannot lock the run directory " + runDirectory + " ("
            + e.getClass().getSimpleName() + ": " + e.getMessage() + "); check its permissions, or choose another "
            + "--run-dir. Nothing was changed on the source or the target", e);
      }
    }
  }

  private static Pg2SpannerException held(Path runDirectory, Holder holder, String command) {
    String who = holder == null ? "another process (it has not named itself in " + runDirectory.resolve(RunFiles.LOCK)
        + ")" : holder.describe();
    String stop = holder == null ? "" : holder.isThisProcess() ? "" : " (or stop it: kill " + holder.pid()
        + (holder.host().equals(host()) ? "" : " on " + holder.host()) + ")";
    return new Pg2SpannerException(ExitCode.RUN_STATE, NextStep.RESUME,
        "the run directory " + runDirectory + " is in use by " + who
        + ", so " + command + " did not start; nothing was changed on the source or the target. Wait for it to "
        + "finish" + stop + ", then run the command again (a run stopped with kill -9 leaves no lock behind; continue "
        + "it with --resume); to run two migrations at once, give each its own --run-dir and target");
  }

  private static Holder readHolder(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      if (bytes.length > 0) {
        return JSON.readValue(new String(bytes, StandardCharsets.UTF_8), Holder.class);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Cannot read the holder of {}: {}", file, e.toString());
    }
    return new Holder(0, "unknown", "unknown", null);
  }

  /** The directory's identity: its real path, so two spellings of one directory are one lock. */
  private static Path key(Path runDirectory) {
    Path absolute = runDirectory.toAbsolutePath().normalize();
    try {
      return absolute.toRealPath();
    } catch (IOException e) {
      return absolute;
    }
  }

  /** This machine's name, for holders' records: the kernel's host name, else what Java resolves. */
  static String host() {
    String name = hostName;
    if (name == null) {
      name = readHostName();
      hostName = name;
    }
    return name;
  }

  private static String readHostName() {
    Path kernel = Path.of("/proc/sys/kernel/hostname");
    try {
      if (Files.isReadable(kernel)) {
        String name = Files.readString(kernel).strip();
        if (!name.isEmpty()) {
          return name;
        }
      }
    } catch (IOException e) {
      // fall through
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  private static void removeTree(Path directory) {
    try (Stream<Path> walk = Files.walk(directory)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      LOG.debug("Cannot remove {}: {}", directory, e.toString());
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(RETRY_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Pg2SpannerException(ExitCode.INTERRUPTED, "interrupted while waiting for the run directory's lock",
          e);
    }
  }
}
