#!/bin/bash
# A cold `fathom index ROOT` as a user meets it (issue 31's first goal), for one build: a fresh
# cache and socket, the corpus read once just before (this machine evicts idle file pages within
# seconds), `fathom index` timed from the shell (the daemon it starts included), then from /proc
# the daemon's CPU (every thread's, workers that ended included), its main thread's own, and its
# peak RSS; then `fathom stop`. Run it for the baseline's checkout in the same session, one after
# the other, nothing else running.
#
# Usage: bash bench/cold-index.sh [MAIN] [ROOT]
#   MAIN: a built checkout (default: this one); ROOT: the workspace (default: the kernel from
#   bench/corpora.sh). Extra node flags for the daemon (a CPU profile) go in NODE_OPTIONS;
#   FATHOM_COLD_KEEP=1 keeps the cache (its daemon.log, its indexes) and says where.
#   FATHOM_COLD_TRACE=FILE appends, every 15 s of the build, the seconds since its start, each
#   index's state and files, and the syntax pass's counts (shared, dropped by product): when each
#   index starts taking, and when products are dropped.
set -u
main=${1:-$(cd "$(dirname "$0")/.." && pwd)}
root=${2:-/tmp/fathom-bench/linux}
cache=$(mktemp -d /tmp/fathom-cold-cache.XXXXXX)
export FATHOM_SOCKET=/tmp/fathom-cold-$$.sock FATHOM_CACHE_DIR=$cache
fathom() { node "$main/bin/fathom.js" "$@"; }
find "$root" -type f -print0 | xargs -0 cat > /dev/null
start=$(date +%s%N)
tracer=
if [ -n "${FATHOM_COLD_TRACE:-}" ]; then
  (
    sleep 5
    while :; do
      at=$(( ($(date +%s%N) - start) / 1000000000 ))
      fathom status --json "$root" 2> /dev/null | node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
        const s = JSON.parse(t), ix = s.indexes ?? {};
        const each = Object.entries(s.indexFacts ?? ix).map(([n, f]) => `${n}=${typeof f === "string" ? f : `${f.state}:${f.files}`}`).join(" ");
        const p = s.syntaxPass ?? {};
        console.log(`${process.argv[1]}s ${each} files=${p.files} parses=${p.parses} shared=${JSON.stringify(p.shared)} dropped=${JSON.stringify(p.dropped)}`);
      })' "$at" >> "$FATHOM_COLD_TRACE" 2>&1
      sleep 15
    done
  ) &
  tracer=$!
fi
fathom index "$root" > /tmp/fathom-cold-$$.out 2>&1
rc=$?
[ -n "$tracer" ] && kill "$tracer" 2> /dev/null
wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
pid=$(pgrep -f "serve-main.js --socket $FATHOM_SOCKET" -n)
ticks=$(getconf CLK_TCK)
cpu() { awk -v t="$ticks" '{ sub(/^.*\) /, ""); print ($12 + $13) / t }' "$1"; }
echo "$main: fathom index $root: rc=$rc, wall $((wall_ms / 1000)).$(( (wall_ms % 1000) / 100 )) s;" \
  "daemon CPU $(cpu "/proc/$pid/stat") s, its main thread $(cpu "/proc/$pid/task/$pid/stat") s;" \
  "$(grep VmHWM "/proc/$pid/status" | tr -s ' \t' ' ')"
tail -3 /tmp/fathom-cold-$$.out
fathom status "$root" 2>&1 | head -20
fathom status --json "$root" 2>&1 | node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => console.log("syntax pass:", JSON.stringify(JSON.parse(t).syntaxPass)))'
fathom stop > /dev/null 2>&1
rm -f /tmp/fathom-cold-$$.out
if [ "${FATHOM_COLD_KEEP:-}" = 1 ]; then echo "cache kept: $cache"; else rm -rf "$cache"; fi
