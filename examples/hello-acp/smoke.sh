#!/usr/bin/env bash
# hello-acp smoke test: session/list_capabilities → tool/invoke (hello_tool {"name":"world"}) →
# tool/stream → tool/resume, saving each response under .artifacts/<timestamp>/ and the edge's
# stderr in .artifacts/<timestamp>/logs/edge.log (which must stay empty).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export HELLO_ACP_HOME="${HELLO_ACP_HOME:-$here}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
artifacts="$HELLO_ACP_HOME/.artifacts/$stamp"
# The edge's stderr goes into this run's artifacts (upstream's $ARTIFACT_ROOT/logs/edge.log), so a
# run's log sits beside its responses and an earlier run's log is never mistaken for this one's.
mkdir -p "$artifacts/logs"
log="$artifacts/logs/edge.log"
: > "$log"

coproc EDGE { "$here/run-edge.sh" serve 2>"$log"; }
send() { printf '%s\n' "$1" >&"${EDGE[1]}"; }
recv() { local line; IFS= read -r -t 30 line <&"${EDGE[0]}"; printf '%s' "$line"; }
save() { node -e 'process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]), null, 2) + "\n")' "$1" > "$artifacts/$2"; }
check() { node -e "const m=JSON.parse(process.argv[1]); if(!(($2))) { console.error('smoke check failed: $3'); console.error(process.argv[1]); process.exit(1); }" "$1"; }
field() { node -e "const m=JSON.parse(process.argv[1]); console.log($2)" "$1"; }

send '{"jsonrpc":"2.0","id":1,"method":"session/list_capabilities","params":{}}'
list="$(recv)"; save "$list" list-capabilities.json
check "$list" 'm.result.capabilities[0].id === "hello_tool"' 'capabilities[0].id == hello_tool'
check "$list" 'm.result.capabilities[0].bridgeFidelity.kind === "adapted"' 'bridgeFidelity.kind == adapted'

send '{"jsonrpc":"2.0","id":2,"method":"tool/invoke","params":{"capabilityId":"hello_tool","arguments":{"name":"world"}}}'
invoke="$(recv)"; save "$invoke" tool-invoke.json
check "$invoke" 'm.result.success === true' 'invoke success'
check "$invoke" 'm.result.metadata.chio.authorityPath === "cross_protocol_orchestrator"' 'invoke authorityPath'
check "$invoke" 'typeof m.result.metadata.chio.receiptId === "string" && m.result.metadata.chio.receiptId.length > 0' 'invoke receiptId'

send '{"jsonrpc":"2.0","id":3,"method":"tool/stream","params":{"capabilityId":"hello_tool","arguments":{"name":"world"}}}'
stream="$(recv)"; save "$stream" tool-stream.json
check "$stream" 'm.result.task.status === "working"' 'stream task working'
check "$stream" 'm.result.task.metadata.chio.receiptPending === true' 'stream receiptPending'
task="$(field "$stream" 'm.result.task.id')"

send "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tool/resume\",\"params\":{\"taskId\":\"$task\"}}"
resume="$(recv)"; save "$resume" tool-resume.json
check "$resume" 'm.result.task.status === "completed"' 'resume task completed'
check "$resume" 'typeof m.result.result.metadata.chio.receiptId === "string" && m.result.result.metadata.chio.receiptId.length > 0' 'resume receiptId'
check "$resume" 'm.result.result.data.stream[1].content[0].text === "resume complete"' 'resume payload'

exec {EDGE[1]}>&-   # close the edge's stdin: it finishes and exits
wait "$EDGE_PID"
[ -s "$log" ] && { echo "smoke check failed: logs/edge.log is not empty" >&2; cat "$log" >&2; exit 1; }

echo "hello-acp smoke passed"
echo "artifacts: $artifacts"
echo "invoke receipt: $(field "$invoke" 'm.result.metadata.chio.receiptId')"
echo "stream receipt: $(field "$resume" 'm.result.result.metadata.chio.receiptId')"
