package dev.pg2spanner.live;

import dev.pg2spanner.error.ErrorCode;
import dev.pg2spanner.error.Pg2SpannerException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The run directory's {@value #FILE}: held by the one process that streams a live run (or cuts it over), released
 * by the operating system when that process ends in any way, {@code kill -9} included. {@code cutover} and
 * {@code status} use it to tell whether a live migrate is running.
 */
final class RunLock implements AutoCloseable {

  static final String FILE = "live.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private RunLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** The lock, or empty when another process (or another run in this one) holds it. */
  static Optional<RunLock> tryAcquire(Path runDirectory) {
    FileChannel channel = null;
    try {
      Files.createDirectories(runDirectory);
      channel = FileChannel.open(runDirectory.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        return Optional.empty();
      }
      return Optional.of(new RunLock(channel, lock));
    } catch (OverlappingFileLockException e) {
      closeQuietly(channel);
      return Optional.empty();
    } catch (IOException e) {
      closeQuietly(channel);
      throw new Pg2SpannerException(ErrorCode.LOCAL_IO, "cannot lock " + runDirectory.resolve(FILE) + " ("
          + e.getMessage() + "); check the run directory's permissions", e);
    }
  }

  /** True when some process holds the lock (a live migrate is streaming this run). */
  static boolean isHeld(Path runDirectory) {
    Optional<RunLock> lock = tryAcquire(runDirectory);
    lock.ifPresent(RunLock::close);
    return lock.isEmpty();
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    closeQuietly(channel);
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
}
