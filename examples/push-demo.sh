#!/usr/bin/env bash
# A push against five simulated machines on the local NATS and PostgreSQL: the mesh's records
# given, the controller and five engines started, a push, a module that gains a state, a named
# push, a machine that fails and push --behind. Run from the repository: npm run demo:push
set -euo pipefail
cd "$(dirname "$0")/.."
export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export MESH_BUS_PREFIX="pushdemo" MESH_STORE_SCHEMA="pushdemo" PGOPTIONS="--client-min-messages=warning"
node=node_modules/.bin/node
mc() { echo "\$ mesh-controller $*"; "$node" shells/src/cli/main.ts "$@" || echo "(exit code $?)"; }
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$DATABASE_URL" -qAtX -c "drop schema if exists pushdemo cascade" >/dev/null || true
  "$node" examples/clean-bus.ts pushdemo || true
  rm -rf "$dir"
}
trap cleanup EXIT
psql "$DATABASE_URL" -qAtX -c "drop schema if exists pushdemo cascade" >/dev/null

mc mesh apply examples/mesh.json
"$node" shells/src/cli/main.ts identity > "$dir/controller.pem"
"$node" shells/src/cli/main.ts serve > "$dir/controller.log" 2>&1 & pids+=($!)
for m in hq-1 hq-2 hq-3 hq-4 hq-5; do
  "$node" shells/src/cli/main.ts node-engine --simulate "$m" --trust-key "$dir/controller.pem" > "$dir/$m.log" 2>&1 & pids+=($!)
done
sleep 3
mc push
sleep 1
echo
echo "# postgres gains a state in a new build: the holder goes first with the new user list"
with_module() { # records-in records-out module json-of-changes
  "$node" -e 'const fs = require("fs"); const [from, to, name, change] = process.argv.slice(1); const r = JSON.parse(fs.readFileSync(from, "utf8"));
    r.modules = r.modules.map((m) => (m.name === name ? { ...m, ...JSON.parse(change) } : m)); fs.writeFileSync(to, JSON.stringify(r, null, 2))' "$@"
}
with_module examples/mesh.json "$dir/mesh2.json" postgres '{"build":"postgres-18","states":["postgres-roles","postgres-grants"]}'
mc mesh apply "$dir/mesh2.json"
mc push hq-2 --wait 10s
echo
echo "# hq-4's engine fails grafana; a new grafana build goes out"
kill "${pids[4]}"; sleep 0.5
"$node" shells/src/cli/main.ts node-engine --simulate hq-4 --trust-key "$dir/controller.pem" --fail-module grafana >> "$dir/hq-4.log" 2>&1 & pids+=($!)
sleep 2
with_module "$dir/mesh2.json" "$dir/mesh3.json" grafana '{"build":"grafana-10"}'
mc mesh apply "$dir/mesh3.json"
mc push hq-4 --wait 10s
echo
echo "# the engine is mended; push --behind sends only hq-4"
kill "${pids[-1]}"; sleep 0.5
"$node" shells/src/cli/main.ts node-engine --simulate hq-4 --trust-key "$dir/controller.pem" >> "$dir/hq-4.log" 2>&1 & pids+=($!)
sleep 2
mc push --behind
sleep 1
mc push --behind
echo
echo "# what the machines said"
cat "$dir"/hq-*.log | sed 's/^/  /'
