package dev.pg2spanner.targetdb;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;

/** Builds the Spanner client for a target: the emulator without credentials, real Spanner with ADC. */
public final class SpannerConnector {

  private SpannerConnector() {}

  /** A new client; the caller closes it. */
  public static Spanner open(SpannerTarget target) {
    SpannerOptions.Builder builder = SpannerOptions.newBuilder().setProjectId(target.project());
    if (target.isEmulator()) {
      builder.setEmulatorHost(target.emulatorHost()).setCredentials(NoCredentials.getInstance());
    }
    return builder.build().getService();
  }
}
