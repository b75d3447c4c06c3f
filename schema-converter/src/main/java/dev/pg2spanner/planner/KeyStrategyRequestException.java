package dev.pg2spanner.planner;

import dev.pg2spanner.plan.KeyStrategy;

/**
 * A strategy asked for with {@code plan --key-strategy} that cannot apply: an unknown or interleaved table, or a key
 * the strategy does not fit. The message names the table, the strategy and what to choose instead.
 */
public final class KeyStrategyRequestException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  KeyStrategyRequestException(String table, KeyStrategy.Kind kind, String why) {
    super("--key-strategy " + table + "=" + kind.json() + ": " + why);
  }

  KeyStrategyRequestException(String message) {
    super(message);
  }
}
