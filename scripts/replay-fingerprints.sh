#!/usr/bin/env bash
# Every shipped example and recorded day replayed every way simulate replays (text, --json, --set,
# --sweep, --html), one sha256 per output: a redesign must leave every line of this unchanged
# (issue 39). Usage: bash scripts/replay-fingerprints.sh > before.txt; … change …; diff before.txt <(bash scripts/replay-fingerprints.sh)
set -u
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # name, args…
  local name=$1
  shift
  ./mesh-controller simulate "$@" >"$out/o" 2>&1
  local rc=$?
  printf '%s exit=%s %s\n' "$(sha256sum <"$out/o" | cut -c1-16)" "$rc" "$name"
}
page() { # name, args…
  local name=$1
  shift
  rm -f "$out/p.html"
  ./mesh-controller simulate "$@" --html "$out/p.html" >"$out/o" 2>&1
  local rc=$?
  printf '%s %s exit=%s %s\n' "$(sha256sum <"$out/o" | cut -c1-16)" "$(sha256sum <"$out/p.html" 2>/dev/null | cut -c1-16)" "$rc" "$name --html"
}
for f in examples/*.facts.jsonl examples/*.facts.jsonl.gz; do
  run "$f" "$f"
  run "$f --json" "$f" --json
  run "$f --strict" "$f" --strict
  page "$f" "$f"
done
for f in examples/identity-issue-179.facts.jsonl.gz examples/small.facts.jsonl; do
  run "$f --set failingAfter=2m" "$f" --set failingAfter=2m
  run "$f --sweep failingAfter" "$f" --sweep failingAfter=1m,2m,5m,10m
  run "$f --sweep grid --json" "$f" --sweep failingAfter=30s,5m --sweep sayAgainEvery=1m,15m --json
  page "$f sweep" "$f" --sweep failingAfter=30s,5m --sweep sayAgainEvery=1m,15m
done
for f in examples/release-day.facts.jsonl examples/gate-crash-loop.facts.jsonl; do
  run "$f --set passes=5" "$f" --set passes=5
  run "$f --set passes=5 --json" "$f" --set passes=5 --json
  run "$f --set settle,every" "$f" --set settle=10s --set every=20s
  run "$f --sweep bound" "$f" --sweep bound=5m,10m,20m
  run "$f --sweep grid --json" "$f" --sweep bound=5m,20m --sweep passes=2,5 --json
  page "$f sweep" "$f" --sweep bound=5m,10m,20m
done
