#!/usr/bin/env bash
# A push against five simulated machines on the local NATS and PostgreSQL: the mesh's records
# given, the controller and five engines started, a push, a module that gains a state, a named
# push, a machine that fails and push --behind. Run from the repository: npm run demo:push
set -euo pipefail
demo=pushdemo
source "$(dirname "$0")/demo-common.sh"

mc mesh apply examples/mesh.json
cli identity > "$dir/controller.pem"
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
