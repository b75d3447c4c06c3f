package dev.pg2spanner.error;

/**
 * What a failure's message tells its user to do next, as a value beside the words, so that a layer above can change
 * the way on without reading the message: a run whose own emulator stops with it cannot be resumed, a Beam load keeps
 * no checkpoint, and a failure after the run changed the target must say how to continue.
 */
public enum NextStep {
  /** The message names no way on: the layer that knows the run's state adds one. */
  UNSAID,
  /** The message offers continuing the same run with {@code --resume}, alone or beside another way. */
  RESUME,
  /** The message names a way on that does not continue the run: start over, or fix the input and run again. */
  STATED
}
