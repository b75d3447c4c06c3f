package dev.pg2spanner.error;

import java.util.regex.Pattern;

/**
 * An error message as a person reads it: what Spanner (or PostgreSQL) said, without the transport's wrappers that the
 * client libraries put around it — "Operation with name "projects/.../operations/r8485..." failed with status =
 * GrpcStatusCode{transportCode=FAILED_PRECONDITION} and message = ...", Java class names such as
 * "io.grpc.StatusRuntimeException: ", and the status code repeated by each layer ("INVALID_ARGUMENT: ...
 * INVALID_ARGUMENT: ..."). The status code is kept once, in front of the server's own words. Applied in one place to
 * every message a command prints on failure (the CLI's error handler).
 */
public final class ErrorText {

  /** A long-running operation's failure, as gax prints it around the server's message. */
  private static final Pattern OPERATION = Pattern.compile(
      "Operation with name \"[^\"]*\" failed with status = GrpcStatusCode\\{[^}]*\\} and message = ");

  /** A fully qualified Java exception or error class name and its colon: "io.grpc.StatusRuntimeException: ". */
  private static final Pattern CLASS_NAME = Pattern.compile(
      "\\b(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error): ");

  /** A status code said again right after itself: "INVALID_ARGUMENT: INVALID_ARGUMENT: ". */
  private static final Pattern REPEATED_CODE = Pattern.compile("\\b([A-Z][A-Z_]{3,}): (?:\\1: )+");

  private ErrorText() {}

  /** {@code message} without transport wrappers; null stays null. */
  public static String clean(String message) {
    if (message == null) {
      return null;
    }
    String s = OPERATION.matcher(message).replaceAll("");
    s = CLASS_NAME.matcher(s).replaceAll("");
    return REPEATED_CODE.matcher(s).replaceAll("$1: ");
  }
}
