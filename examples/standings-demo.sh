#!/usr/bin/env bash
# A provider against the local PostgreSQL and NATS, broken and mended, with `status` before and
# after. The provider's admin loses its rights and the mesh rotates a consumer's password, so the
# provider cannot apply it: it keeps failing, says so on the bus, and the controller's status names
# it until the rights are back. Run from the repository: npm run demo:standings
set -euo pipefail
demo=demo
demo_cleanup() {
  for c in demo_letta demo_grafana; do
    psql_ "drop database if exists ${c}_db with (force)" || true
    psql_ "drop role if exists $c" || true
  done
  psql_ "drop role if exists demo_admin"
}
source "$(dirname "$0")/demo-common.sh"

psql_ "drop role if exists demo_admin"
psql_ "create role demo_admin login createrole createdb"
mkdir -p "$dir/secrets"
echo "Lt7!secret-one" > "$dir/secrets/demo_letta"
echo "Gf3?secret-two" > "$dir/secrets/demo_grafana"
cat > "$dir/contributions.json" <<JSON
{"requirement":"postgres","given":[
 {"as":"demo_letta","secret":"$dir/secrets/demo_letta","node":"hq-3","values":{"name":"demo_letta_db"}},
 {"as":"demo_grafana","secret":"$dir/secrets/demo_grafana","node":"hq-1","values":{"name":"demo_grafana_db"}}]}
JSON

echo "== the controller and a provider start"
"$node" shells/src/cli/main.ts serve > "$dir/controller.log" 2>&1 & pids+=($!)
sleep 2
PROVIDER_ADMIN_URL="postgres://demo_admin@127.0.0.1:5432/test" \
  "$node" shells/src/cli/main.ts provide postgres --receives "$dir/contributions.json" --node hq-2 \
  --set every=500ms --set failingAfter=5s --set sayAgainEvery=10s --set verifyEvery=2s > "$dir/provider.log" 2>&1 & pids+=($!)
sleep 4
echo "== status, all well"
cli status || true

echo
echo "== broken: the provider's admin loses its rights, and the mesh rotates letta's password"
psql_ "alter role demo_admin nocreaterole nocreatedb"
echo "Lt7!secret-rotated" > "$dir/secrets/demo_letta"
sleep 8
echo "== status, 8s later"
cli status || echo "(status exit code $?)"
cli status --json || true

echo
echo "== mended: the rights are back"
psql_ "alter role demo_admin createrole createdb"
sleep 3
echo "== status, 3s later"
cli status || true

echo
echo "== what the provider said"
grep -v "^\[provider\]" "$dir/provider.log" | sed 's/^/  /'
