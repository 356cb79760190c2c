/**
 * The floor of any edge that wraps a stdio MCP server: a process that starts the server and copies
 * bytes both ways, judging nothing (`node dist/bench/null-relay.js <server command …>`). The
 * profile times calls through it beside direct and governed calls, so the cost of the extra
 * process hop is measured in the same run instead of being charged to governance.
 * Owns: nothing but the two pipes. Must not import src/.
 */
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: null-relay <command> [args…]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 0));
