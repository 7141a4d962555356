#!/usr/bin/env bash
# A release through the gate, live on the local NATS and PostgreSQL: five simulated machines, hq-3
# the first machine for letta. letta-204 applies and then crash-loops there: the gate fails it and
# puts letta-203 back. letta-205 stays healthy: it passes, and then hq-4 is sent it too.
# The gate's bounds are quickened (settle 4s, bound 10s). Run from the repository: npm run demo:release
# With MESH_DEMO_RECORD=FILE the controller records its day there (serve --record), and the demo ends
# by replaying it: simulate says the same VERDICT and ROLLBACK lines the live controller said.
set -euo pipefail
demo=releasedemo
source "$(dirname "$0")/demo-common.sh"
export MESH_GATE_SETTLE=4s MESH_GATE_BOUND=10s MESH_GATE_EVERY=1s MESH_GATE_PASSES=3

cli mesh apply examples/mesh.json >/dev/null
cli identity > "$dir/controller.pem"
"$node" shells/src/cli/main.ts serve ${MESH_DEMO_RECORD:+--record "$MESH_DEMO_RECORD"} > "$dir/controller.log" 2>&1 & pids+=($!)
for m in hq-1 hq-2 hq-3 hq-4 hq-5; do
  extra=(); [ "$m" = hq-3 ] && extra=(--crash-module letta@letta-204)
  "$node" shells/src/cli/main.ts node-engine --simulate "$m" --trust-key "$dir/controller.pem" --state-every 1s "${extra[@]}" > "$dir/$m.log" 2>&1 & pids+=($!)
done
sleep 3
cli push >/dev/null
sleep 2
echo "# letta-204: applies, then crash-loops on hq-3"
mc release letta --build letta-204 --commit 5e1f0c2a9b --first hq-3
sleep 13
mc plans
mc conditions
echo
echo "# letta-205: stays healthy"
mc release letta --build letta-205 --commit 77aa01b9cd --first hq-3
sleep 7
mc plans
echo
echo "# what the gate said"
grep -E "^\[gate\]|raised|cleared" "$dir/controller.log" | grep -v "^\[gate\] *$" | sed 's/^/  /'
if [ -n "${MESH_DEMO_RECORD:-}" ]; then
  kill "${pids[0]}" 2>/dev/null || true; wait "${pids[0]}" 2>/dev/null || true
  echo
  echo "# the recorded day, replayed: mesh-controller simulate $MESH_DEMO_RECORD"
  cli simulate "$MESH_DEMO_RECORD" | grep -E "VERDICT|ROLLBACK|^summary|^  replay|^  what-if" | sed 's/^/  /'
fi
