// A minimal "agent" for the proxy's pass-through test: it reports the arguments it was started
// with and one environment variable as a notification, then waits for its stdin to close.
process.stdout.write(
  `${JSON.stringify({ jsonrpc: '2.0', method: '_test/argv', params: { argv: process.argv.slice(2), env: process.env.CHIO_ACP_PROXY_TEST ?? null } })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
