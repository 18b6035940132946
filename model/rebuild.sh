#!/usr/bin/env bash
# Rebuilds Fathom's code-search model from scratch on a Debian machine, no GPU needed: installs
# the packages the pairs are mined from (Debian's by name: model/debian-packages.txt; npm's by
# name and version, no install scripts), mines, tokenises, trains (PyTorch on the CPU, Debian's
# python3-torch) and exports into models/fathom-code. Not part of `npm test`; the trained model is
# committed. About 25 min mining, 3 min tokenising and 15–20 min training on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${FATHOM_MODEL_WORK:-/tmp/fathom-model}
mapfile -t packages < <(grep -v '^#' model/debian-packages.txt)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
# JavaScript and TypeScript with JSDoc, from the npm registry by name (pinned; no install scripts run)
mkdir -p "$WORK/npm"
(cd "$WORK/npm" && [ -f package.json ] || npm init -y >/dev/null)
(cd "$WORK/npm" && npm install --no-audit --no-fund --ignore-scripts lodash@4.17.21 date-fns@2.30.0 ramda@0.29.1 underscore@1.13.6 async@3.2.5 validator@13.11.0 express@4.18.2 commander@11.1.0 \
  acorn@8.19.0 ajv@8.20.0 axios@1.21.1 big.js@7.0.1 bignumber.js@11.1.5 bluebird@3.7.2 body-parser@2.4.0 chai@6.3.0 chalk@5.6.2 chart.js@4.6.1 cheerio@1.2.0 chokidar@5.0.0 cookie@2.0.2 cors@2.8.6 d3@7.9.2 dayjs@1.11.23 debug@4.4.3 decimal.js@10.6.0 eslint@10.15.0 esprima@4.0.1 eventemitter3@5.0.4 fast-xml-parser@5.12.1 fastify@5.12.8 fs-extra@11.4.1 glob@14.0.6 got@14.6.6 graphql@16.15.0 helmet@8.3.0 highlight.js@11.12.0 immer@11.2.13 immutable@5.2.1 io-ts@2.2.22 joi@18.3.2 js-yaml@5.5.0 jsonwebtoken@9.0.3 knex@3.3.0 koa@3.3.0 lit@3.3.3 lru-cache@11.5.3 luxon@3.7.2 markdown-it@15.0.3 marked@18.2.1 mathjs@15.2.0 minimatch@11.0.9 mobx@7.1.3 mocha@12.0.3 moment@2.31.0 mongoose@9.12.1 node-forge@1.4.3 passport@0.7.0 preact@11.2.0 prettier@3.10.1 redux@5.0.1 rollup@4.68.8 semver@7.8.6 sequelize@6.37.8 sinon@22.1.0 socket.io@4.8.4 superstruct@2.0.2 three@0.187.0 tinycolor2@1.6.0 typeorm@1.1.1 uuid@14.0.3 vue@3.5.45 webpack@5.113.0 ws@8.23.0 yaml@2.9.1 yargs@18.2.0 yup@1.7.1 \
  effect@4.1.0 @tanstack/query-core@5.108.4 @sinclair/typebox@0.34.52 ts-pattern@5.9.2 @reduxjs/toolkit@2.15.0 remeda@2.62.2 kysely@0.28.19 drizzle-orm@0.45.4 hono@4.13.19 @angular/core@21.2.26 @nestjs/common@12.5.1 valibot@1.5.0)
/usr/bin/python3 model/mine.py "$WORK/data" "$WORK/npm"
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
