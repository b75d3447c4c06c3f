package dev.pg2spanner.load.write;

/**
 * Thrown inside a load worker to abandon its piece once the run is stopping; never escapes {@code LoadEngine.run}.
 */
public final class Stopped extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public Stopped() {
    super("the load is stopping", null, false, false);
  }
}
