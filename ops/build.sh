#!/usr/bin/env bash
# `npm run build` (and `npm start`, before it starts): the JavaScript the service runs, in dist/.
# tsc compiles the TypeScript (incremental: with nothing changed it only checks, a few seconds) and
# the files the code reads beside itself (the pages' assets, the default badge image) are copied
# over. A process run from dist/ does not load Node's type stripper (a WebAssembly compiler and its
# source), about 40 MiB of resident memory per process (docs/benchmarks.md, Memory).
set -euo pipefail
cd "$(dirname "$0")/.."
# --declaration: an incremental build computes each changed file's declaration to find the files it
# affects; emitting them on every build makes a fresh build (the tests') fail where an incremental one
# would, rather than a user's next `npm start` after a pull.
npx tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsbuildinfo --declaration
find adapters apps core workers -type f ! -name '*.ts' -print0 | xargs -0 -r cp --parents -u -t dist
