/**
 * `node dist/bench/authorize.js`: where the kernel's authorize step (capability, budget,
 * revocation, guards) spends its time, piece by piece, beside the kernel allow-path rate and the
 * raw node:crypto signing rate it is compared with in `npm run bench`. Not part of run.ts (it
 * repeats the kernel figure of run.ts on its own, so the authorize pieces can be measured without
 * the whole bench).
 * Owns: nothing but this measurement. Imports the public modules only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromHex, signerFromSeed } from '../src/crypto/index.js';
import { firstRevoked, invocationsUsed, openLedger } from '../src/ledger/index.js';
import { delegateCapability, verifyCapability } from '../src/capability/index.js';
import { guards, Kernel } from '../src/kernel/index.js';

const SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');

/** Runs `op` repeatedly for about `ms` milliseconds; returns microseconds per operation. */
function micros(ms: number, op: (i: number) => unknown): number {
  for (let i = 0; i < 200; i++) op(i);
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let k = 0; k < 20; k++) op(n++);
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1e3 / n;
}

/** As `micros`, for an operation that resolves later (each awaited before the next starts). */
async function microsAsync(ms: number, op: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await op(i);
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let k = 0; k < 20; k++) await op(n++);
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1e3 / n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-authorize-'));
  const signer = signerFromSeed(SEED);
  const message = new TextEncoder().encode('x'.repeat(600));
  const nodeSign = 1e6 / micros(1500, () => signer.sign(message));

  const path = join(dir, 'kernel.sqlite');
  const kernel = Kernel.open({ ledgerPath: path, seed: SEED }); // as run.ts opens it
  kernel.registerToolServer({
    manifest: {
      schema: 'chio.manifest.v1',
      server_id: 'fs',
      name: 'bench',
      version: '1',
      tools: [{ name: 'read_file', description: '', input_schema: {}, has_side_effects: false }],
    },
    async invoke(_tool, args) {
      return { text: `contents of ${(args as { path: string }).path}` };
    },
  });
  const agent = signerFromSeed(fromHex('22'.repeat(32)));
  const other = signerFromSeed(fromHex('33'.repeat(32)));
  const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 86_400 });
  const budgeted = kernel.issueCapability({
    subject: agent.publicKeyHex,
    ttlSeconds: 86_400,
    scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'], max_invocations: 1_000_000 }] },
  });
  const delegated = delegateCapability(budgeted, agent, {
    delegatee: other.publicKeyHex,
    scope: {
      grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 1_000_000 }],
    },
  });

  const total = 6400;
  const start = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next++ < total)
        await kernel.evaluateToolCall({
          capability,
          caller: agent.publicKeyHex,
          serverId: 'fs',
          toolName: 'read_file',
          arguments: { path: '/home/dev/project/src/index.ts' },
        });
    }),
  );
  const allow = total / (Number(process.hrtime.bigint() - start) / 1e9);

  const call = (cap: unknown, caller: string) => ({
    capability: cap,
    caller,
    serverId: 'fs',
    toolName: 'read_file',
    arguments: { path: '/home/dev/project/src/x.ts' },
  });
  const fresh = () => JSON.parse(JSON.stringify(capability)) as unknown; // as an edge hands it over: a new object each call
  const target = {
    serverId: 'fs',
    toolName: 'read_file',
    operation: 'invoke' as const,
    arguments: { path: '/home/dev/project/src/x.ts' },
  };
  const trusted = new Set([kernel.publicKeyHex]);
  const ledger = openLedger(path, { readonly: true });
  const keys = kernel.trustedKernelKeys;
  const pipeline = guards.buildGuards(kernel.policy.policy.guards);
  const rows: Array<[string, number]> = [
    [
      'authorize (previewToolCall), root token, same object',
      await microsAsync(1500, () => kernel.previewToolCall(call(capability, agent.publicKeyHex))),
    ],
    [
      'authorize (previewToolCall), root token, fresh object',
      await microsAsync(1500, () => kernel.previewToolCall(call(fresh(), agent.publicKeyHex))),
    ],
    [
      'authorize (previewToolCall), delegated token (budgets)',
      await microsAsync(1500, () => kernel.previewToolCall(call(delegated, other.publicKeyHex))),
    ],
    [
      'verifyCapability, root token',
      micros(1500, () => verifyCapability(capability, { target, caller: agent.publicKeyHex, trustedIssuers: trusted })),
    ],
    [
      'verifyCapability, delegated token (1 link)',
      micros(1500, () => verifyCapability(delegated, { target, caller: other.publicKeyHex, trustedIssuers: trusted })),
    ],
    ['firstRevoked, 1 id', micros(1500, () => firstRevoked(ledger, [capability.id], keys))],
    ['firstRevoked, 2 ids', micros(1500, () => firstRevoked(ledger, [delegated.id, budgeted.id], keys))],
    ['invocationsUsed, 1 grant', micros(1500, () => invocationsUsed(ledger, budgeted.id, 0, keys))],
    [
      'guard pipeline (default guards)',
      micros(1500, () =>
        guards.runGuards(
          pipeline,
          { serverId: 'fs', toolName: 'read_file', arguments: { path: '/home/dev/project/src/x.ts' } },
          { pathBases: kernel.pathBases },
        ),
      ),
    ],
  ];
  ledger.close();
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });

  console.log(`raw Ed25519 sign, node:crypto: ${Math.round(nodeSign).toLocaleString('en-US')}/s`);
  console.log(
    `kernel decisions, allow path: ${Math.round(allow).toLocaleString('en-US')}/s = ${(allow / nodeSign).toFixed(2)} of node sign`,
  );
  for (const [name, us] of rows) console.log(`${name.padEnd(58)} ${us.toFixed(1).padStart(8)} µs`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
