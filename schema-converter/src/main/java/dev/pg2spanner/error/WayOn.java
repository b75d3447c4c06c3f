package dev.pg2spanner.error;

import java.util.Objects;

/**
 * A way on that a lower layer is given to end its failure messages with: the words, and what they tell the user to do
 * ({@link NextStep}), so the exception carries both.
 *
 * @param next what the words tell the user to do
 * @param words the end of the failure's sentence, e.g. "rerun with --resume"
 */
public record WayOn(NextStep next, String words) {

  public WayOn {
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(words, "words");
  }

  /** Words that offer continuing the run with {@code --resume}. */
  public static WayOn resume(String words) {
    return new WayOn(NextStep.RESUME, words);
  }

  /**
   * Words that say what to fix but not how to go on afterwards ({@link NextStep#UNSAID}): the layer that knows the
   * run's state adds that.
   */
  public static WayOn fixFirst(String words) {
    return new WayOn(NextStep.UNSAID, words);
  }

  /** Words that name another way on (start over, fix and run again). */
  public static WayOn stated(String words) {
    return new WayOn(NextStep.STATED, words);
  }
}
