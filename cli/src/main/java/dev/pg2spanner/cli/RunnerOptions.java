package dev.pg2spanner.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.dataflow.DataflowRunner;
import org.apache.beam.runners.dataflow.options.DataflowPipelineOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.runners.flink.VersionDependentFlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.util.construction.resources.PipelineResources;
import picocli.CommandLine.Option;

/** {@code --runner} and the Dataflow and Flink options of {@code migrate}; a mixin. */
public final class RunnerOptions {

  /** Where the load runs. */
  enum Runner { IN_PROCESS, DIRECT, FLINK, DATAFLOW }

  /** Beam's name for Flink's embedded local cluster, started in this JVM for the job and stopped after it. */
  static final String FLINK_LOCAL = "[local]";

  @Option(names = "--runner", paramLabel = "RUNNER", defaultValue = "in-process", converter = RunnerConverter.class,
      description = "in-process (default; checkpoints, --resume), direct (the Beam pipeline on this machine), flink "
          + "(the Beam pipeline on Apache Flink: an embedded local cluster, or --flink-master) or dataflow (the Beam "
          + "pipeline as a Dataflow job).")
  Runner runner;

  @Option(names = "--flink-master", paramLabel = "HOST:PORT", description = "Flink: the JobManager of a running "
      + "Flink 1.19 cluster (its REST port) that runs the job (default: an embedded local cluster in this process).")
  String flinkMaster;

  @Option(names = "--project", paramLabel = "PROJECT", description = "Dataflow: the project that runs the job.")
  String project;

  @Option(names = "--region", paramLabel = "REGION", description = "Dataflow: the job's region, e.g. europe-west1.")
  String region;

  @Option(names = "--temp-location", paramLabel = "GS_PATH", description = "Dataflow: gs:// path for temporary files.")
  String tempLocation;

  @Option(names = "--staging-location", paramLabel = "GS_PATH",
      description = "Dataflow: gs:// path for the staged jars (default: under --temp-location).")
  String stagingLocation;

  @Option(names = "--max-workers", paramLabel = "N", description = "Dataflow: the autoscaling ceiling.")
  Integer maxWorkers;

  @Option(names = "--worker-machine-type", paramLabel = "TYPE", description = "Dataflow: e.g. n2-standard-4.")
  String workerMachineType;

  @Option(names = "--network", paramLabel = "NAME", description = "Dataflow: the VPC network the workers use.")
  String network;

  @Option(names = "--subnetwork", paramLabel = "URL",
      description = "Dataflow: e.g. regions/REGION/subnetworks/NAME (it must reach the source database).")
  String subnetwork;

  @Option(names = "--service-account", paramLabel = "EMAIL", description = "Dataflow: the workers' service account.")
  String serviceAccount;

  @Option(names = "--worker-password-file", paramLabel = "PATH",
      description = "Dataflow or a remote Flink cluster: a private file whose first line is the source password, "
          + "read by the workers (a gs:// object for Dataflow; the password itself never enters the job graph).")
  String workerPasswordFile;

  @Option(names = "--dry-run", description = "Dataflow: validate the options, print the pipeline graph and the "
      + "options, contact nothing.")
  boolean dryRun;

  /** The runner's name as --runner takes it ("in-process", "direct", "flink", "dataflow"). */
  String name() {
    return runner == Runner.IN_PROCESS ? "in-process" : runner.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** picocli's enum converter does not accept "in-process". */
  static final class RunnerConverter implements picocli.CommandLine.ITypeConverter<Runner> {
    @Override
    public Runner convert(String value) {
      return switch (value) {
        case "in-process" -> Runner.IN_PROCESS;
        case "direct" -> Runner.DIRECT;
        case "flink" -> Runner.FLINK;
        case "dataflow" -> Runner.DATAFLOW;
        default -> throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a runner: use "
            + "in-process, direct, flink or dataflow");
      };
    }
  }

  /** Problems with the Dataflow options, one sentence each; empty when they are complete. */
  List<String> dataflowProblems() {
    List<String> problems = new ArrayList<>();
    if (blank(project)) {
      problems.add("--runner dataflow needs --project PROJECT");
    }
    if (blank(region)) {
      problems.add("--runner dataflow needs --region REGION (e.g. europe-west1)");
    }
    if (blank(tempLocation)) {
      problems.add("--runner dataflow needs --temp-location gs://BUCKET/PATH");
    } else if (!tempLocation.startsWith("gs://")) {
      problems.add("--temp-location must be a gs:// path, was " + tempLocation);
    }
    if (stagingLocation != null && !stagingLocation.startsWith("gs://")) {
      problems.add("--staging-location must be a gs:// path, was " + stagingLocation);
    }
    if (maxWorkers != null && maxWorkers < 1) {
      problems.add("--max-workers must be at least 1");
    }
    if (workerPasswordFile != null && !workerPasswordFile.startsWith("gs://")) {
      problems.add("--worker-password-file must be a gs:// object the workers can read, was " + workerPasswordFile);
    }
    return problems;
  }

  /** Problems with the Flink options, one sentence each; empty when they are complete. */
  List<String> flinkProblems() {
    List<String> problems = new ArrayList<>();
    if (flinkMaster != null && !flinkMaster.matches("[^\\s:/]+:\\d{1,5}")) {
      problems.add("--flink-master must be HOST:PORT (the JobManager's REST port, e.g. flink-jm:8081), was "
          + flinkMaster);
    }
    return problems;
  }

  /** Whether the Flink job runs in this JVM (the embedded local cluster): its workers share this machine. */
  boolean flinkLocal() {
    return flinkMaster == null;
  }

  /**
   * FlinkRunner options: the embedded local cluster unless {@code --flink-master}, {@code parallelism} task slots
   * (the job's parallelism; one DoFn instance, so one source connection, per slot), batch execution.
   */
  FlinkPipelineOptions flinkOptions(String jobName, int parallelism) {
    FlinkPipelineOptions options = PipelineOptionsFactory.create().as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster(flinkMaster != null ? flinkMaster : FLINK_LOCAL);
    options.setParallelism(parallelism);
    options.setJobName(jobName);
    options.setStreaming(false);
    // Flink's DataStream API in batch mode rather than the DataSet API: with DataSet, ReadPiece's two outputs
    // (mutations, rejected rows) become one union data set that both consumers read and decode in full, a fusion
    // break that encodes every mutation once and decodes it twice; DataStream routes side outputs to their own
    // consumers, chained (BENCHMARKS.md, the Beam section: ReadPiece's emit time 4.1 -> 1.3-1.6 s at 300,000 rows).
    options.as(VersionDependentFlinkPipelineOptions.class).setUseDataStreamForBatch(true);
    if (flinkMaster != null) {
      // A remote cluster receives the job's jars: not Flink's own, not what only this machine uses (FlinkStaging).
      options.setFilesToStage(FlinkStaging.filesToStage(PipelineResources.detectClassPathResourcesToStage(
          FlinkRunner.class.getClassLoader(), options)));
    }
    return options;
  }

  /** Dataflow options from the values given (validated first); builds objects only, contacts nothing. */
  DataflowPipelineOptions dataflowOptions(String jobName) {
    DataflowPipelineOptions options = PipelineOptionsFactory.create().as(DataflowPipelineOptions.class);
    options.setRunner(DataflowRunner.class);
    options.setProject(project);
    options.setRegion(region);
    options.setTempLocation(tempLocation);
    options.setGcpTempLocation(tempLocation);
    options.setStagingLocation(stagingLocation != null ? stagingLocation : tempLocation.replaceAll("/+$", "")
        + "/staging");
    options.setJobName(jobName);
    if (maxWorkers != null) {
      options.setMaxNumWorkers(maxWorkers);
    }
    if (workerMachineType != null) {
      options.setWorkerMachineType(workerMachineType);
    }
    if (network != null) {
      options.setNetwork(network);
    }
    if (subnetwork != null) {
      options.setSubnetwork(subnetwork);
    }
    if (serviceAccount != null) {
      options.setServiceAccount(serviceAccount);
    }
    return options;
  }

  /** The Dataflow options as printed by {@code --dry-run}, from the built options object. */
  static Map<String, String> describe(DataflowPipelineOptions o) {
    Map<String, String> lines = new LinkedHashMap<>();
    lines.put("runner", o.getRunner().getSimpleName());
    lines.put("project", o.getProject());
    lines.put("region", o.getRegion());
    lines.put("jobName", o.getJobName());
    lines.put("tempLocation", o.getTempLocation());
    lines.put("stagingLocation", o.getStagingLocation());
    lines.put("maxNumWorkers", o.getMaxNumWorkers() == 0 ? "(Dataflow default)" : String.valueOf(o.getMaxNumWorkers()));
    lines.put("workerMachineType", orDefault(o.getWorkerMachineType()));
    lines.put("network", orDefault(o.getNetwork()));
    lines.put("subnetwork", orDefault(o.getSubnetwork()));
    lines.put("serviceAccount", orDefault(o.getServiceAccount()));
    return lines;
  }

  private static String orDefault(String s) {
    return s == null ? "(Dataflow default)" : s;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
