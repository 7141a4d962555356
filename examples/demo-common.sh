# Sourced by the demos, after they set `demo` (their bus prefix and store schema): the local servers,
# the CLI, a scratch folder, and on the way out, the demo's processes, schema and streams removed.
# A demo may define demo_cleanup for anything else it made.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export MESH_BUS_PREFIX="$demo" MESH_STORE_SCHEMA="$demo" PGOPTIONS="--client-min-messages=warning"
node=node_modules/.bin/node
# The CLI, quietly; `mc` shows the command and its exit code, as a person would see them.
cli() { "$node" shells/src/cli/main.ts "$@"; }
mc() { echo "\$ mesh-controller $*"; cli "$@" || echo "(exit code $?)"; }
psql_() { psql "$DATABASE_URL" -qAtX -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if declare -F demo_cleanup >/dev/null; then demo_cleanup || true; fi
  psql_ "drop schema if exists $demo cascade" || true
  "$node" examples/clean-bus.ts "$demo" || true
  rm -rf "$dir"
}
trap cleanup EXIT
psql_ "drop schema if exists $demo cascade"
