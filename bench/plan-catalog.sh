#!/usr/bin/env bash
# Times `pg2spanner plan` on a synthetic catalog of N tables (default 1000) in the local PostgreSQL.
# Each table has a bigserial key, a text and a timestamptz column, a CHECK, a secondary index, a foreign key to
# the previous table and 20 rows, so every planner stage (catalog, evidence, samples, hotspots, names, DDL) runs.
# Usage: bench/plan-catalog.sh [--tables N]   (PostgreSQL at 127.0.0.1:5432, user $PGUSER or postgres)
# Build first: ./mvnw -q package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tables=1000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tables) tables="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
db="p2s_bench_catalog"
psql_url="postgresql://${PGUSER:-postgres}@127.0.0.1:5432"
psql -X -q "$psql_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
psql -X -q "$psql_url/$db" <<SQL
DO \$\$
BEGIN
  FOR i IN 1..$tables LOOP
    EXECUTE format('CREATE TABLE t%s (id bigserial PRIMARY KEY, name text NOT NULL CHECK (name <> %L),
      created_at timestamptz NOT NULL DEFAULT now(), parent_id bigint %s)', i, '',
      CASE WHEN i > 1 THEN format('REFERENCES t%s', i - 1) ELSE '' END);
    EXECUTE format('CREATE INDEX t%s_created_idx ON t%s (created_at)', i, i);
    EXECUTE format('INSERT INTO t%s (name) SELECT ''n'' || g FROM generate_series(1, 20) g', i);
  END LOOP;
END \$\$;
ANALYZE;
SQL
out="$(mktemp -d)"
url="jdbc:postgresql://127.0.0.1:5432/$db?user=${PGUSER:-postgres}"
start=$(date +%s.%N)
"$here/bin/pg2spanner" plan --source "$url" --out "$out" | head -1
end=$(date +%s.%N)
printf 'plan on %s tables: %.1f s wall (JVM start included)\n' "$tables" "$(echo "$end - $start" | bc)"
psql -X -q "$psql_url/postgres" -c "DROP DATABASE $db WITH (FORCE)"
rm -rf "$out"
