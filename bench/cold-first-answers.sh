#!/bin/bash
# A cold workspace as a new user meets it, up to the first answer of every index (issue 31: "Django
# and this repository measured the same way, so small workspaces do not get slower"): a fresh
# cache and socket, the corpus read once just before, then from the shell, each timed: `fathom
# index ROOT`, the first lexical search, the first `fathom symbols`, the first `fathom grep -F`,
# the first search in words (hybrid when the semantic index is on). A build that leaves an index
# to its first question (084d762: the ranking, the graph and the regex index) pays for it there;
# `total` is the sum. Then `fathom stop` and the cache is removed. Run the baseline's checkout
# and this one in turns, nothing else running.
#
# Usage: bash bench/cold-first-answers.sh MAIN ROOT LABEL SYMBOL "WORDS"
#   MAIN: a built checkout (bin/fathom.js); SYMBOL: an identifier ROOT defines; WORDS: a question.
#   Django: get_object_or_404 "render a template with a context"; this repository: SyntaxPass
#   "drop products held too long for an index".
set -u
main=$1 root=$2 label=$3 symbol=$4 words=$5
cache=$(mktemp -d /tmp/fathom-first-answers.XXXXXX)
export FATHOM_SOCKET=/tmp/fathom-first-answers-$$.sock FATHOM_CACHE_DIR=$cache
fathom() { node "$main/bin/fathom.js" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
find "$root" -type f -not -path '*/node_modules/*' -not -path '*/.git/*' -print0 | xargs -0 cat > /dev/null 2>&1
line="$label"
first=$(ms)
for step in index lexical symbols grep words; do
  start=$(ms)
  case $step in
    index) fathom index "$root" > /dev/null 2>&1 ;;
    lexical) (cd "$root" && fathom search --mode lexical "$words" > /dev/null 2>&1) ;;
    symbols) (cd "$root" && fathom symbols "$symbol" > /dev/null 2>&1) ;;
    grep) (cd "$root" && fathom grep -F "$symbol" > /dev/null 2>&1) ;;
    words) (cd "$root" && fathom search "$words" > /dev/null 2>&1) ;;
  esac
  line="$line $step=$(($(ms) - start))"
done
echo "$line total=$(($(ms) - first)) ms"
fathom stop > /dev/null 2>&1
rm -rf "$cache"
