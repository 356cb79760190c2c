#!/usr/bin/env bash
# hello-acp edge: `run-edge.sh serve` (line-based ACP JSON-RPC over stdio).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export HELLO_ACP_HOME="${HELLO_ACP_HOME:-$here}"
exec node "$here/../../dist/examples/hello-acp/edge.js" "$@"
