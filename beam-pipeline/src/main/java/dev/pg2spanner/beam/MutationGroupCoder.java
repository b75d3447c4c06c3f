package dev.pg2spanner.beam;

import com.google.cloud.spanner.Mutation;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.io.gcp.spanner.MutationGroup;
import org.apache.beam.sdk.util.VarInt;

/**
 * SpannerIO's {@link MutationGroup} through {@link MutationCoder}: the primary mutation, the number of attached
 * ones, then each. SpannerIO's write turns every mutation into a group and passes groups (and lists of them)
 * between its own transforms, with coders it takes from the pipeline's registry; {@link LoadPipeline} registers
 * this one there so those steps do not fall back to Java serialisation either.
 */
public final class MutationGroupCoder extends AtomicCoder<MutationGroup> {

  private static final long serialVersionUID = 1L;
  private static final MutationGroupCoder INSTANCE = new MutationGroupCoder();

  private MutationGroupCoder() {}

  /** The coder (stateless, one instance). */
  public static MutationGroupCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(MutationGroup group, OutputStream out) throws IOException {
    if (group == null) {
      throw new CoderException("cannot encode a null MutationGroup");
    }
    MutationCoder.of().encode(group.primary(), out);
    List<Mutation> attached = group.attached();
    VarInt.encode(attached.size(), out);
    for (Mutation m : attached) {
      MutationCoder.of().encode(m, out);
    }
  }

  @Override
  public MutationGroup decode(InputStream in) throws IOException {
    Mutation primary = MutationCoder.of().decode(in);
    int count = VarInt.decodeInt(in);
    if (count < 0) {
      throw new CoderException("negative attached count " + count);
    }
    List<Mutation> attached = new ArrayList<>(Math.min(count, 1 << 10));
    for (int i = 0; i < count; i++) {
      attached.add(MutationCoder.of().decode(in));
    }
    return MutationGroup.create(primary, attached);
  }

  @Override
  public void verifyDeterministic() {
    // Deterministic, as MutationCoder is.
  }
}
