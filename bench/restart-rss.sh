#!/bin/bash
# A restarted daemon's memory as a user fills it (issue 31's RSS goal): stops the daemon on
# FATHOM_SOCKET, then from the shell asks in turn what loads each index (status, a grep, a lexical
# search, a search in words, symbols, a structural search), printing each command's wall time and
# the daemon's VmRSS / VmHWM after it, and VmRSS again 15 s after the last. Run it on a cache where
# `fathom index ROOT` already ran; run it for a baseline's checkout (MAIN) in the same session.
#
# Usage: FATHOM_SOCKET=/tmp/rss.sock FATHOM_CACHE_DIR=CACHE bash bench/restart-rss.sh [MAIN] [ROOT]
#   MAIN: a built checkout (default: this one); ROOT: the workspace (default: the kernel from
#   bench/corpora.sh). The words, symbol and pattern are the kernel's.
set -u
main=${1:-$(cd "$(dirname "$0")/.." && pwd)}
root=${2:-/tmp/fathom-bench/linux}
: "${FATHOM_SOCKET:?set FATHOM_SOCKET (a socket of its own)}" "${FATHOM_CACHE_DIR:?set FATHOM_CACHE_DIR (an indexed cache)}"
fathom() { node "$main/bin/fathom.js" "$@"; }
timed() {
  local start=$(date +%s%N)
  fathom "$@" > /tmp/restart-rss.out 2>&1
  local rc=$?
  echo "$(( ($(date +%s%N) - start) / 1000000 )) ms rc=$rc: fathom $*  ($(wc -l < /tmp/restart-rss.out) lines)"
}
memory() {
  local pid
  pid=$(pgrep -f "serve-main.js --socket $FATHOM_SOCKET" -n)
  echo "  $(grep -E 'VmRSS|VmHWM' "/proc/$pid/status" | tr -s ' \t\n' ' ') (pid $pid)"
}
fathom stop > /dev/null 2>&1
timed status "$root"
timed grep -F ksys_sync_helper "$root"
memory
timed search --mode lexical "flush dirty pages of an inode" "$root"
memory
timed search "flush dirty pages of an inode" "$root"
memory
timed symbols ksys_sync_helper "$root"
memory
timed sg 'kfree($A)' "$root" --lang c --max 5
memory
sleep 15
memory
fathom stop > /dev/null
