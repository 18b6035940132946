#!/usr/bin/env bash
# One round of a restart as a user meets it, from a shell: `fathom stop`, then `fathom status` in
# ROOT (it starts the daemon), then the first `fathom grep -F PATTERN`. Prints LABEL, the status's
# and the grep's wall ms. Interleave two builds' rounds for an A/B (bench/RESULTS.md):
#   for r in 1 2 3 4 5; do bench/restart-status.sh OLD/dist/src/cli/main.js ROOT CACHE old; \
#     bench/restart-status.sh dist/src/cli/main.js ROOT CACHE new; done
set -euo pipefail
main=$(realpath "$1") root=$2 cache=$3 label=$4 pattern=${5:-ksys_sync_helper}
export FATHOM_SOCKET=/tmp/fathom-restart-status-$label.sock FATHOM_CACHE_DIR=$cache
node "$main" stop >/dev/null 2>&1 || true
sleep 0.5
ms() { echo $(( $(date +%s%N) / 1000000 )); }
start=$(ms); (cd "$root" && node "$main" status >/dev/null); status=$(( $(ms) - start ))
start=$(ms); (cd "$root" && node "$main" grep -F "$pattern" >/dev/null) || true; grep=$(( $(ms) - start ))
echo "$label $status $grep"
node "$main" stop >/dev/null 2>&1 || true
