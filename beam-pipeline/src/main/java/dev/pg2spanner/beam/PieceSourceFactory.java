package dev.pg2spanner.beam;

import dev.pg2spanner.load.read.PieceSource;
import java.io.Serializable;

/**
 * Opens a {@link PieceSource} on a worker. It is serialised into the job graph, so it must hold references only
 * (a JDBC URL, a password <em>reference</em>, a snapshot id, the plan's YAML), never a secret's value; the source
 * it opens owns the connection and is closed in the DoFn's {@code @Teardown}.
 */
public interface PieceSourceFactory extends Serializable {

  /** A new source for one DoFn instance (never null); called from {@code @Setup}. */
  PieceSource open() throws Exception;
}
