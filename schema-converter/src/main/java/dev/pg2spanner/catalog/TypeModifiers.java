package dev.pg2spanner.catalog;

/**
 * Decodes {@code atttypmod} into the length, precision and scale a column was declared with. PostgreSQL stores
 * them packed in one int whose layout depends on the type; -1 means "not given".
 *
 * @param length varchar(n)/char(n)/bit(n)/varbit(n): n; else null
 * @param precision numeric(p,s): p; time/timetz/timestamp/timestamptz/interval(p): p; else null
 * @param scale numeric(p,s): s (negative allowed since PostgreSQL 15); else null
 */
record TypeModifiers(Integer length, Integer precision, Integer scale) {

  static final TypeModifiers NONE = new TypeModifiers(null, null, null);

  /** VARHDRSZ: varchar, bpchar and numeric add the 4-byte varlena header size to their typmod. */
  private static final int VARHDRSZ = 4;
  /** interval's typmod keeps the precision in its low 16 bits; all ones means "no precision given". */
  private static final int INTERVAL_FULL_PRECISION = 0xFFFF;

  /**
   * @param typname the built-in element type's {@code typname} (e.g. "varchar", "numeric", "timestamptz")
   * @param typmod {@code atttypmod}, -1 when the declaration had no modifier
   */
  static TypeModifiers decode(String typname, int typmod) {
    if (typmod < 0) {
      return NONE;
    }
    switch (typname) {
      case "varchar", "bpchar" -> {
        return typmod >= VARHDRSZ ? new TypeModifiers(typmod - VARHDRSZ, null, null) : NONE;
      }
      case "bit", "varbit" -> {
        // bit stores n itself, without the varlena header
        return new TypeModifiers(typmod, null, null);
      }
      case "numeric" -> {
        if (typmod < VARHDRSZ) {
          return NONE;
        }
        int packed = typmod - VARHDRSZ;
        int precision = (packed >> 16) & 0xFFFF;
        // PostgreSQL 15 allows negative scales and stores the scale as an 11-bit two's complement number;
        // for the 0..1000 scales of older versions this is the same as (packed & 0xFFFF).
        int scale = ((packed & 0x7FF) ^ 1024) - 1024;
        return new TypeModifiers(null, precision, scale);
      }
      case "time", "timetz", "timestamp", "timestamptz" -> {
        return new TypeModifiers(null, typmod, null);
      }
      case "interval" -> {
        int precision = typmod & 0xFFFF;
        return precision == INTERVAL_FULL_PRECISION ? NONE : new TypeModifiers(null, precision, null);
      }
      default -> {
        return NONE;
      }
    }
  }
}
