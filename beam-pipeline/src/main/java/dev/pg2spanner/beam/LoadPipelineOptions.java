package dev.pg2spanner.beam;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.Validation;

/**
 * What the load pipeline needs, as Beam options ({@code --planFile=... --sourceJdbcUrl=...}).
 *
 * <p>The source password is given by <em>reference</em> only: {@link #getSourcePasswordFile()} names a file (a local
 * path on the DirectRunner, a {@code gs://} object readable only by the workers' service account on Dataflow) that
 * each worker reads in {@code @Setup}. Options are printed in the job graph, the Dataflow console and the logs, so
 * a password value here would leak; a file reference does not, and access to it is controlled by IAM on the bucket.
 * Secret Manager would be the other choice, but its client is not on this build's classpath; a gs:// object with
 * a private ACL gives the same guarantee for the job's lifetime (delete it after the job). Limits: anyone who can
 * read the object, or who can run code as the worker service account, can read the password.
 */
public interface LoadPipelineOptions extends PipelineOptions {

  @Description("The plan file (plan.yaml) written by `pg2spanner plan`; read once at launch, its YAML text is "
      + "what reaches the workers.")
  @Validation.Required
  String getPlanFile();

  void setPlanFile(String value);

  @Description("The source PostgreSQL JDBC URL, e.g. jdbc:postgresql://10.0.0.5:5432/app?user=migrator. It must not "
      + "carry a password: pass sourcePasswordFile instead.")
  @Validation.Required
  String getSourceJdbcUrl();

  void setSourceJdbcUrl(String value);

  @Description("A file whose first line is the source password, read on each worker: a local path (DirectRunner) "
      + "or a privately readable gs:// object (Dataflow). Empty when the source needs no password.")
  String getSourcePasswordFile();

  void setSourcePasswordFile(String value);

  @Description("An exported PostgreSQL snapshot id (pg_export_snapshot()) every reader imports, so all pieces see "
      + "one consistent state. The exporting transaction must stay open until the job has read every piece. "
      + "Empty: each worker reads in a snapshot of its own (consistent per worker only).")
  String getSnapshotId();

  void setSnapshotId(String value);

  @Description("Target Google Cloud project of the Spanner instance.")
  @Validation.Required
  String getSpannerProject();

  void setSpannerProject(String value);

  @Description("Target Spanner instance id.")
  @Validation.Required
  String getSpannerInstance();

  void setSpannerInstance(String value);

  @Description("Target Spanner database id; its tables (Flyway V1) must exist before the job starts.")
  @Validation.Required
  String getSpannerDatabase();

  void setSpannerDatabase(String value);

  @Description("host:port of a Spanner emulator; empty for real Spanner.")
  String getSpannerEmulatorHost();

  void setSpannerEmulatorHost(String value);

  @Description("Where rows that cannot be loaded are written, one JSON object per line: a local file or a gs:// "
      + "object.")
  @Validation.Required
  String getDeadLetter();

  void setDeadLetter(String value);

  @Description("Minimum number of pieces when the pipeline cuts them itself (main): at least 10 x nodes.")
  @Default.Integer(40)
  int getMinPieces();

  void setMinPieces(int value);
}
