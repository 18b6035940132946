#!/usr/bin/env bash
# One round of a restart as a user of the code graph meets it, from a shell: `fathom stop`, then
# `fathom status` in ROOT (it starts the daemon), then the first `fathom symbols SYMBOL`, a
# `fathom def DEFINITION` and a `fathom refs REFERENCED` after it; then the daemon's RSS. The
# cache's graph.bin is read once before (the machine evicts idle pages within seconds: both sides
# start warm). Prints LABEL and the status's, symbols', def's and refs' wall ms and the RSS in MB.
# Interleave two builds' rounds for an A/B (bench/RESULTS.md):
#   for r in 1 2 3; do bench/restart-graph.sh OLD/dist/src/cli/main.js ROOT OLDCACHE old; \
#     bench/restart-graph.sh dist/src/cli/main.js ROOT CACHE new; done
set -euo pipefail
main=$(realpath "$1") root=$2 cache=$3 label=$4
symbol=${5:-kmem_cache_alloc_node} definition=${6:-vfs_read} referenced=${7:-ksys_sync_helper}
export FATHOM_SOCKET=/tmp/fathom-restart-graph-$label.sock FATHOM_CACHE_DIR=$cache
node "$main" stop >/dev/null 2>&1 || true
sleep 0.5
cat "$cache"/workspaces/*/graph.bin >/dev/null
ms() { echo $(( $(date +%s%N) / 1000000 )); }
timed() { local start; start=$(ms); (cd "$root" && node "$main" "$@" >/dev/null 2>&1) || true; echo $(( $(ms) - start )); }
status=$(timed status)
symbols=$(timed symbols "$symbol")
def=$(timed def "$definition")
refs=$(timed refs "$referenced")
pid=$(pgrep -f "serve-main.*" -n || true)
rss=$(ps -o rss= -p "$pid" 2>/dev/null | awk '{ printf "%d", $1 / 1024 }')
echo "$label $status $symbols $def $refs ${rss:-?}"
node "$main" stop >/dev/null 2>&1 || true
