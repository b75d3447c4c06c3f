/**
 * The load as a Beam pipeline. Until the Beam issue lands this package only pins the dependencies, so that the
 * build proves Beam, the Spanner client, gRPC, protobuf and Guava converge on one classpath with the rest.
 */
package dev.pg2spanner.beam;
