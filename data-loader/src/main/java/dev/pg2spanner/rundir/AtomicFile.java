package dev.pg2spanner.rundir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The one way the run directory's state files are replaced: written beside the file, forced to disk, then moved over it
 * atomically, so a crash (or {@code kill -9}) leaves the old file or the new one, never half of either.
 */
public final class AtomicFile {

  private AtomicFile() {}

  /** Replaces {@code file} with {@code bytes}, creating its directory when missing. */
  public static void write(Path file, byte[] bytes) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(temp, bytes);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
