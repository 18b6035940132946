#!/usr/bin/env bash
# Rebuilds Fathom's code-search model from scratch on a Debian machine, no GPU needed: installs
# the packages the pairs are mined from (Debian's by name: model/debian-packages.txt for Python,
# model/debian-c-sources.txt for C; npm's from model/npm's lockfile, no install scripts), mines,
# tokenises, trains (PyTorch on the CPU, Debian's python3-torch) and exports into
# models/fathom-code. Not part of `npm test`; the trained model is committed. On 2 cores: about
# 45 min mining (the C part: about 3 min, unpacking included), 3 min tokenising, 10 min training.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${FATHOM_MODEL_WORK:-/tmp/fathom-model}
mapfile -t packages < <(grep -hv '^#' model/debian-packages.txt model/debian-c-sources.txt)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
# JavaScript and TypeScript with JSDoc, from the npm registry by name: model/npm's lockfile pins
# every package and dependency (no install scripts run)
command -v npm >/dev/null || { echo "rebuild.sh needs node and npm (as Fathom itself does)" >&2; exit 1; }
rm -rf "$WORK/npm" && mkdir -p "$WORK/npm"
cp model/npm/package.json model/npm/package-lock.json "$WORK/npm/"
(cd "$WORK/npm" && npm ci --no-audit --no-fund --ignore-scripts)
# C: the source packages' tarballs (under /usr/src) are unpacked into $WORK/c-src
/usr/bin/python3 model/mine.py "$WORK/data" "$WORK/npm" --c-sources model/debian-c-sources.txt --c-cache "$WORK/c-src"
# The retrieval evaluation's chunks, so training reports its scores too (needs `npm run build` and bench/corpora.sh)
DUMP=()
if [ -f dist/bench/retrieval/dump.js ] && [ -d "${FATHOM_BENCH_DIR:-/tmp/fathom-bench}/zod" ]; then
  node dist/bench/retrieval/dump.js "$WORK/eval-dump.json" && DUMP=(--eval "$WORK/eval-dump.json")
fi
/usr/bin/python3 model/train.py prepare "$WORK/data" "$WORK/tokens.npz" --vocab 30000 "${DUMP[@]}"
/usr/bin/python3 model/train.py train "$WORK/tokens.npz" "$WORK/trained" --device cpu --config "$(cat model/config.json)" "${DUMP[@]}"
hybrid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("hybridWeight", ""))' models/fathom-code/fathom.json 2>/dev/null || true)
rm -rf "$WORK/model" && mkdir -p "$WORK/model"
[ -n "$hybrid" ] && printf '{"hybridWeight": %s}\n' "$hybrid" > "$WORK/model/fathom.json"
/usr/bin/python3 model/export.py "$WORK/trained" "$WORK/model" --pooling "$(python3 -c 'import json; print({"unique": "distinct"}.get(json.load(open("model/config.json")).get("pool"), "sum"))')"
cp "$WORK/data/counts.json" model/data-counts.json
cp "$WORK/trained/training.json" model/training.json
rm -rf models/fathom-code/onnx && cp -r "$WORK/model/." models/fathom-code/
echo "models/fathom-code rebuilt; measure it: FATHOM_EVAL_MODEL=models/fathom-code node dist/bench/retrieval/eval.js"
