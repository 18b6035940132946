#!/usr/bin/env bash
# Rebuilds Fathom's code-search model from scratch on a Debian machine: installs the Python
# packages the pairs are mined from (by name, from Debian), mines, trains (numpy, CPU) and exports
# into models/fathom-code. Not part of `npm test`; the trained model is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${FATHOM_MODEL_WORK:-/tmp/fathom-model}
packages=(python3 python3-numpy python3-sympy python3-networkx python3-twisted python3-docutils python3-sphinx python3-setuptools python3-babel python3-pandas python3-matplotlib python3-astropy python3-flask python3-requests python3-click)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
# JavaScript with JSDoc, from the npm registry by name (pinned; no install scripts run)
mkdir -p "$WORK/npm"
(cd "$WORK/npm" && [ -f package.json ] || npm init -y >/dev/null)
(cd "$WORK/npm" && npm install --no-audit --no-fund --ignore-scripts lodash@4.17.21 date-fns@2.30.0 ramda@0.29.1 underscore@1.13.6 async@3.2.5 validator@13.11.0 express@4.18.2 commander@11.1.0)
/usr/bin/python3 model/mine.py "$WORK/data" "$WORK/npm"
/usr/bin/python3 model/train.py "$WORK/data" "$WORK/trained" --epochs 5 --dim 256 --temperature 0.07
hybrid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("hybridWeight", ""))' models/fathom-code/fathom.json 2>/dev/null || true)
rm -rf "$WORK/model" && mkdir -p "$WORK/model"
[ -n "$hybrid" ] && printf '{"hybridWeight": %s}\n' "$hybrid" > "$WORK/model/fathom.json"
/usr/bin/python3 model/export.py "$WORK/trained" "$WORK/model"
cp "$WORK/data/counts.json" model/data-counts.json
cp "$WORK/trained/training.json" model/training.json
rm -rf models/fathom-code/onnx && cp -r "$WORK/model/." models/fathom-code/
echo "models/fathom-code rebuilt; measure it: FATHOM_EVAL_MODEL=models/fathom-code node dist/bench/retrieval/eval.js"
