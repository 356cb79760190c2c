#!/usr/bin/env bash
# hello-mcp smoke test: initialize → notifications/initialized → tools/list → tools/call
# (hello_tool {"name":"world"}) → an unregistered tool → bridge-call, saving each response under
# .artifacts/<timestamp>/ and the edge's stderr in .artifacts/<timestamp>/logs/edge.log (which must
# stay empty).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export HELLO_MCP_HOME="${HELLO_MCP_HOME:-$here}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
artifacts="$HELLO_MCP_HOME/.artifacts/$stamp"
# The edge's stderr goes into this run's artifacts (upstream's $ARTIFACT_ROOT/logs/edge.log), so a
# run's log sits beside its responses and an earlier run's log is never mistaken for this one's.
mkdir -p "$artifacts/logs"
log="$artifacts/logs/edge.log"
: > "$log"

coproc EDGE { "$here/run-edge.sh" serve 2>"$log"; }
send() { printf '%s\n' "$1" >&"${EDGE[1]}"; }
recv() { local line; IFS= read -r -t 30 line <&"${EDGE[0]}"; printf '%s' "$line"; }
check() { node -e "const m=JSON.parse(process.argv[1]); if(!(($2))) { console.error('smoke check failed: $3'); console.error(process.argv[1]); process.exit(1); }" "$1"; }

send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hello-mcp-smoke","version":"1.0.0"}}}'
init="$(recv)"; printf '%s\n' "$init" > "$artifacts/initialize-response.json"
check "$init" 'm.result.protocolVersion === "2025-11-25" && m.result.capabilities.tools' 'initialize'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'

send '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
list="$(recv)"; printf '%s\n' "$list" > "$artifacts/tools-list-response.json"
check "$list" 'm.result.tools.length === 1 && m.result.tools[0].name === "hello_tool"' 'tools/list'

send '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello_tool","arguments":{"name":"world"}}}'
call="$(recv)"; printf '%s\n' "$call" > "$artifacts/tool-call-response.json"
check "$call" 'm.result.isError === false && m.result.structuredContent.message === "hello from mcp, world" && /^[0-9a-f]{64}$/.test(m.result._meta["chio/receipt"].id)' 'tools/call'

send '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"not_registered","arguments":{}}}'
unknown="$(recv)"
check "$unknown" 'm.error.code === -32602 && m.error.message === "unknown tool"' 'unknown tool'

exec {EDGE[1]}>&-   # close the edge's stdin: it finishes and exits
wait "$EDGE_PID"

"$here/run-edge.sh" bridge-call world > "$artifacts/bridge-call.json"
bridge="$(cat "$artifacts/bridge-call.json")"
check "$bridge" 'm.decision.verdict === "allow" && m.output.message === "hello from mcp, world"' 'bridge-call'
[ -s "$log" ] && { echo "smoke check failed: logs/edge.log is not empty" >&2; cat "$log" >&2; exit 1; }

echo "hello-mcp smoke passed"
echo "artifacts: $artifacts"
echo "bridge receipt: $(node -e 'console.log(JSON.parse(process.argv[1]).receipt_id)' "$bridge")"
