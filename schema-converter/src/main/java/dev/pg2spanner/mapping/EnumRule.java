package dev.pg2spanner.mapping;

import dev.pg2spanner.catalog.PgType;
import dev.pg2spanner.expression.SpannerExpression;
import dev.pg2spanner.finding.FindingCode;
import dev.pg2spanner.finding.Severity;
import dev.pg2spanner.plan.ValueConversion;
import dev.pg2spanner.spanner.SpannerDialect;
import dev.pg2spanner.spanner.SpannerType;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An enum: STRING(MAX) holding the label, with a CHECK that lists the labels. */
record EnumRule() implements Rule {

  @Override
  public String describe() {
    return "exact, noted: STRING(MAX) via ENUM_TEXT with CHECK {col} IN (labels...) [INFO] ordering follows the "
        + "label text, not the enum's declaration order";
  }

  @Override
  public TypeMapping map(PgType type, SpannerDialect dialect) {
    MappingNote order = new MappingNote(FindingCode.LOSSY_TYPE, Severity.INFO, "Enum " + type.display()
        + " → " + SpannerType.STRING_MAX.ddl(dialect) + " with a CHECK on its " + type.enumLabels().size() + " labels: ORDER BY and comparisons "
        + "follow the label text in Spanner, not the enum's declaration order.",
        Map.of("pgType", type.display(), "labels", type.enumLabels()));
    if (type.enumLabels().isEmpty()) {
      // "{col} IN ()" is not valid SQL; a label-less enum can only hold NULL, so say that instead.
      return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.ENUM_TEXT, List.of(order), Set.of(),
          List.of(SpannerExpression.seq(SpannerExpression.placeholder(), SpannerExpression.token(" IS NULL"))));
    }
    List<SpannerExpression> labels = type.enumLabels().stream().map(SpannerExpression::string).toList();
    return new TypeMapping(SpannerType.STRING_MAX, ValueConversion.ENUM_TEXT, List.of(order), Set.of(),
        List.of(SpannerExpression.seq(SpannerExpression.placeholder(), SpannerExpression.token(" IN ("),
            SpannerExpression.joined(", ", labels), SpannerExpression.token(")"))));
  }
}
