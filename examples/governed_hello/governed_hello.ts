/**
 * governed_hello: a program's first governed call through a hosted Chio edge, then the receipt
 * that call left, resolved from the audit API. Reads CHIO_BASE_URL (the edge, e.g.
 * http://127.0.0.1:8931), CHIO_CONTROL_URL (the audit API; defaults to CHIO_BASE_URL, which serves
 * it under /v1/) and CHIO_AUTH_TOKEN; optionally CHIO_TOOL (default `echo`) and CHIO_TOOL_ARGS
 * (JSON, default {"message":"hello from governed_hello"}).
 * Owns: nothing but the walk-through. Imports only the SDK, under its published name.
 */
import { ChioClient, ReceiptQueryClient } from '@chio-protocol/sdk';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    process.stderr.write(
      `governed_hello: ${name} is not set (need CHIO_BASE_URL and CHIO_AUTH_TOKEN; CHIO_CONTROL_URL defaults to CHIO_BASE_URL)\n`,
    );
    process.exit(2);
  }
  return value;
}

const baseUrl = required('CHIO_BASE_URL');
const token = required('CHIO_AUTH_TOKEN');
const controlUrl = process.env.CHIO_CONTROL_URL || baseUrl;
const tool = process.env.CHIO_TOOL || 'echo';
let args: Record<string, unknown>;
try {
  args = JSON.parse(process.env.CHIO_TOOL_ARGS || '{"message":"hello from governed_hello"}') as Record<string, unknown>;
} catch (e) {
  process.stderr.write(`governed_hello: CHIO_TOOL_ARGS is not JSON: ${(e as Error).message}\n`);
  process.exit(2);
}

const client = ChioClient.withStaticBearer(baseUrl, token);
const session = await client.initialize();
try {
  const tools = await session.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
  const result = await session.callTool(tool, args);
  console.log(`${tool}: ${result.isError === true ? 'denied or failed' : 'ok'}: ${JSON.stringify(result.content)}`);
  if (result.receipt === null) throw new Error('the answer carried no receipt: is CHIO_BASE_URL a Chio edge?');
  const detail = await new ReceiptQueryClient(controlUrl, token).get(result.receipt.id);
  console.log(
    `receipt ${detail.receipt.id}: ${result.receipt.decision} at seq ${detail.position.seq}, verified by the service: ${detail.verification.ok}`,
  );
} finally {
  await session.close();
}
