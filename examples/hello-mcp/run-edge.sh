#!/usr/bin/env bash
# hello-mcp edge: `run-edge.sh serve` (MCP over stdio) or `run-edge.sh bridge-call [name]`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export HELLO_MCP_HOME="${HELLO_MCP_HOME:-$here}"
exec node "$here/../../dist/examples/hello-mcp/edge.js" "$@"
