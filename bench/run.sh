#!/usr/bin/env bash
# The benchmark harness (issue 7): on one generated data set, measures the source ceiling (COPY binary), the target
# ceiling (raw emulator writes, a batch x threads sweep on a plain table) and the plan-shaped target ceiling (the
# loader's own commits for the plan, replayed), migrate in-process and --runner direct, the loader's heap at two
# sizes and plan on a 1,000-table catalog; prints one table (each load as a ratio of the lower ceiling, and of the
# plan-shaped one) and writes it to bench/results/latest.json.
# Usage: bench/run.sh [--rows N]      (default 300000; needs PostgreSQL at 127.0.0.1:5432, user postgres, and the
#                                      installed Spanner emulator)
#        bench/run.sh --only live     (just the live-migration figures, on the emulator's ceiling of this run)
#        bench/run.sh --only loader   (the loader's own ceiling: the in-process loader into a target that discards
#                                      the mutations, at 1/2/4 workers, and the Beam pipeline into a sink that
#                                      discards them on the DirectRunner and on Flink's local cluster, 2 workers,
#                                      beside the source ceiling; no emulator)
#        bench/run.sh --only beam [--rows N]
#                                     (the Beam discard figures of --only loader alone, beside the source ceilings:
#                                      cheaper to iterate on)
#        bench/run.sh --only cluster [--rows N]
#                                     (the Flink session cluster's rates (issue 34), default 100,000 rows: a cluster of
#                                      separate JVMs, 2 TaskManagers x 1 slot, started from Flink's jars alone and
#                                      stopped at the end; the Beam pipeline into a discard sink submitted to it, and
#                                      migrate --runner flink --flink-master onto a fresh emulator with verify, each
#                                      with the job's own time (its REST record) apart from the submission and the
#                                      TaskManagers' CPU (rows/s per core used); beside them the in-process loader
#                                      and Flink's embedded cluster into a discard sink, and migrate in-process)
#        bench/run.sh --only ceiling  (the target ceilings alone: the raw sweep's best on a plain table, and the
#                                      plan-shaped ceiling, i.e. the in-process loader's own commits for this plan,
#                                      captured into memory, replayed with writeAtLeastOnce on a fresh emulator
#                                      holding the plan's V1 tables at 1 and 2 threads, and again with the stored
#                                      generated columns made plain columns; the full run measures it too)
#        bench/run.sh --only floor    (the emulator-bound floor: three trials alternating the plan-shaped ceiling
#                                      (the loader's commits replayed at 1 thread) and migrate in-process, each on a
#                                      fresh emulator; each trial's ratio and the medians)
#        bench/run.sh --only cutover [--sizes 100000,1000000,3000000]
#                                     (cutover's write stop at each size: migrate --live of one table of that many
#                                      rows on a private PostgreSQL and a fresh emulator, a steady workload while it
#                                      verifies at consistent cuts, then cutover with the writes stopped; beside it a
#                                      full verify (the old write stop) as rows/s and as a ratio of its read ceilings)
#        bench/run.sh --only fallback (fallback's reverse apply rate: 50,000 rows written to Spanner after a live
#                                      migration's cutover, brought back to a private PostgreSQL by fallback, as a
#                                      ratio of the source's own insert ceiling (plain multi-row INSERTs of the same
#                                      rows); then cutover --back's write stop)
#        bench/run.sh --only keyless [--rows N] [--cp CLASSPATH]
#                                     (a table without a primary key, REPLICA IDENTITY FULL, default 100,000 rows:
#                                      15,000 updates and 5,000 deletes of loaded rows, one transaction each, applied by
#                                      migrate --live --resume, as changes/s, with how many rows were found through the
#                                      row hash's index and how many by a scan; then cutover's exit; --cp measures
#                                      another build's CLI, e.g. "before")
#        bench/run.sh --only schema [--tables N] [--cp CLASSPATH]
#                                     (the schema phases of migrate on N generated tables, default 200, with two
#                                      indexes, a foreign key and a CHECK each, on a fresh emulator: phase times and
#                                      the emulator's peak RSS; --cp measures another build, e.g. "before")
# Build first: ./mvnw -q package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rows=""
only=all
tables=200
other_cp=""
sizes=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --tables) tables="$2"; shift 2 ;;
    --cp) other_cp="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    *) echo "unknown option $1 (usage: bench/run.sh [--rows N] [--only live|loader|beam|cluster|ceiling|floor|cutover|fallback|keyless|schema] [--sizes N,N,...] [--tables N] [--cp CLASSPATH])" >&2; exit 2 ;;
  esac
done
if [[ -z "$rows" ]]; then
  if [[ "$only" == keyless || "$only" == cluster ]]; then rows=100000; else rows=300000; fi
fi
jar="$here/cli/target/pg2spanner-cli.jar"
if [[ ! -f "$jar" ]]; then
  echo "pg2spanner is not built yet: run ./mvnw -q package -DskipTests in $here first" >&2
  exit 1
fi
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
classes="$here/bench/target/classes"
mkdir -p "$classes"
cp="$jar:$here/cli/target/lib/*"
"$java_home/bin/javac" --release 17 -nowarn -d "$classes" -cp "$cp" \
  $(find "$here/bench/src/main/java" -name '*.java')
if [[ "$only" == schema ]]; then
  exec "$java_home/bin/java" -cp "$cp:$classes" dev.pg2spanner.bench.SchemaBench "$tables" "$(mktemp -d)" \
    "${other_cp:-$cp}"
fi
exec "$java_home/bin/java" -cp "$cp:$classes" dev.pg2spanner.bench.Bench "$rows" "$here" "$only" "$sizes" "$other_cp"
