#!/usr/bin/env bash
# `npm run build` (and `npm start`, before it starts): the JavaScript the service runs, in dist/.
# tsc emits the JavaScript without checking types (`--noCheck`: the code is erasable syntax only, so
# the output is the same; `npm test` checks the types) and the files the code reads beside itself
# (the pages' assets, the default badge image) are copied over. A process run from dist/ does not
# load Node's type stripper (a WebAssembly compiler and its source), about 40 MiB of resident memory
# per process (docs/benchmarks.md, Memory).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json --noCheck
find adapters apps core workers -type f ! -name '*.ts' -print0 | xargs -0 -r cp --parents -u -t dist
