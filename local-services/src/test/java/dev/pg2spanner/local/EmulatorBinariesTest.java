package dev.pg2spanner.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmulatorBinariesTest {

  @Test
  void explicitBinaryWinsOverEverythingElse(@TempDir Path dir) throws Exception {
    Path fake = executable(dir.resolve("emulator_main"));
    assertThat(EmulatorBinaries.locate(Map.of("SPANNER_EMULATOR_BINARY", fake.toString(), "PATH", "")))
        .contains(new EmulatorBinaries(fake));
  }

  @Test
  void findsTheEmulatorBesideGcloudOnThePath(@TempDir Path dir) throws Exception {
    Path sdk = dir.resolve("sdk");
    Path gcloud = executable(sdk.resolve("bin/gcloud"));
    Path emulator = executable(sdk.resolve("bin/cloud_spanner_emulator/emulator_main"));
    // Only a symlink to gcloud is on the PATH (as /usr/bin/gcloud is): the SDK is found through where it points.
    Path usrBin = Files.createDirectories(dir.resolve("usr-bin"));
    Files.createSymbolicLink(usrBin.resolve("gcloud"), gcloud);
    assertThat(EmulatorBinaries.locate(Map.of("PATH", usrBin.toString())))
        .contains(new EmulatorBinaries(emulator.toRealPath()));
  }

  @Test
  void aNonExecutableFileIsNotTaken(@TempDir Path dir) throws Exception {
    Path notExecutable = Files.createFile(dir.resolve("emulator_main"));
    assertThat(EmulatorBinaries.locate(Map.of("SPANNER_EMULATOR_BINARY", notExecutable.toString(), "PATH", "")))
        .isNotEqualTo(java.util.Optional.of(new EmulatorBinaries(notExecutable)));
  }

  private static Path executable(Path path) throws Exception {
    Files.createDirectories(path.getParent());
    Files.writeString(path, "#!/bin/sh\n");
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    return path;
  }
}
