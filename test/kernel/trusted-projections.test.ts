// Receipts written into the ledger by a key the kernel does not trust: a forged revocation does
// not revoke, forged allow receipts do not use up a budget, and `chio ledger verify` with the
// kernel's key pinned names every such entry. Keys the operator configures are trusted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapabilityToken } from '../../src/capability/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { LedgerWriter, openLedger, verifyChain } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED = fromHex('71'.repeat(32));
const ROGUE_SEED = fromHex('72'.repeat(32));
const kernelKey = signerFromSeed(SEED);
const rogue = signerFromSeed(ROGUE_SEED);
const alice = signerFromSeed(fromHex('73'.repeat(32)));
const dir = tempDir();
let n = 0;
const opened: Kernel[] = [];
afterEach(async () => {
  for (const k of opened.splice(0)) await k.close();
});

function kernelAt(
  path: string,
  options: { trustedKernelKeys?: string[] } = {},
): { kernel: Kernel; server: CountingToolServer } {
  const kernel = Kernel.open({ ledgerPath: path, seed: SEED, ...options });
  const server = new CountingToolServer();
  kernel.registerToolServer(server);
  opened.push(kernel);
  return { kernel, server };
}
const use = (kernel: Kernel, capability: CapabilityToken) =>
  kernel.evaluateToolCall({
    capability,
    caller: alice.publicKeyHex,
    serverId: 'fs',
    toolName: 'read_file',
    arguments: { path: '/workspace/a' },
  });

/** The same receipt body re-signed by another key under a fresh nonce: what a hostile co-writer can append. */
function resign(
  genuine: Receipt,
  signer: Ed25519Signer,
  nonce: string,
  metadata: Record<string, unknown> = {},
): Receipt {
  const { id: _i, kernel_key: _k, signature: _s, algorithm: _a, metadata: meta, ...draft } = genuine;
  const { chio_receipt_signing_nonce: _n, ...rest } = (meta ?? {}) as Record<string, unknown>;
  return signReceipt({ ...draft, metadata: { ...rest, ...metadata } } as never, signer, { nonce });
}
async function appendForeign(path: string, receipts: Receipt[]): Promise<void> {
  const ledger = openLedger(path);
  const writer = new LedgerWriter(ledger);
  try {
    for (const receipt of receipts) await writer.append({ receipt, producer: 'hostile-writer' });
  } finally {
    await writer.close();
    ledger.close();
  }
}
function pinned(path: string, key: Ed25519Signer) {
  const pub = join(dir, `pub-${++n}`);
  writeFileSync(pub, `${key.publicKeyHex}\n`);
  return chio(['ledger', 'verify', '--receipt-db', path, '--trusted-kernel-pubkey', pub]);
}

describe('projections count only receipts signed by a trusted kernel key', () => {
  it('a revocation signed by another key is ignored by the kernel and named by a pinned ledger verify', async () => {
    const path = join(dir, `t-${++n}.sqlite`);
    const { kernel, server } = kernelAt(path);
    const victim = kernel.issueCapability({ subject: alice.publicKeyHex });
    // A rogue kernel's genuine revocation of the victim's id, carried over into this ledger.
    const rogueKernel = Kernel.open({ ledgerPath: join(dir, `rogue-${++n}.sqlite`), seed: ROGUE_SEED });
    opened.push(rogueKernel);
    const forged = (await rogueKernel.revokeCapability(victim.id, 'forged')).receipt;
    expect(forged.kernel_key).toBe(rogue.publicKeyHex);
    await appendForeign(path, [forged]);

    expect(await use(kernel, victim)).toMatchObject({ ok: true });
    expect(server.calls).toHaveLength(1);

    const r = pinned(path, kernelKey);
    expect(r.status, r.stdout + r.stderr).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/untrusted_key/);
    expect(r.stdout + r.stderr).toContain('seq 1');
    // Pinned to both keys, the same ledger verifies: nothing else is wrong with it.
    const both = join(dir, `both-${++n}`);
    writeFileSync(both, `${kernelKey.publicKeyHex}\n`);
    const rogueFile = join(dir, `rogue-pub-${++n}`);
    writeFileSync(rogueFile, `${rogue.publicKeyHex}\n`);
    const ok = chio([
      'ledger',
      'verify',
      '--receipt-db',
      path,
      '--trusted-kernel-pubkey',
      both,
      '--trusted-kernel-pubkey',
      rogueFile,
    ]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
  });

  it("forged allow receipts naming the victim's grant (and its ancestors) do not use up its budget, across a restart", async () => {
    const path = join(dir, `t-${++n}.sqlite`);
    const { kernel, server } = kernelAt(path);
    const victim = kernel.issueCapability({
      subject: alice.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 3 }] },
    });
    const first = await use(kernel, victim);
    expect(first).toMatchObject({ ok: true });
    const forged = Array.from({ length: 6 }, (_, i) =>
      resign(first.receipt, rogue, `forged-${i}`, {
        chio_ancestor_grants: [{ capability_id: victim.id, grant_index: 0 }],
      }),
    );
    await appendForeign(path, forged);

    expect(await use(kernel, victim)).toMatchObject({ ok: true });
    expect(await use(kernel, victim)).toMatchObject({ ok: true });
    expect(await use(kernel, victim)).toMatchObject({ ok: false, guard: 'budget' });
    expect(server.calls).toHaveLength(3);
    await kernel.close();
    opened.splice(opened.indexOf(kernel), 1);

    const ledger = openLedger(path, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 10 });
    expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    ledger.close();
    const r = pinned(path, kernelKey);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/untrusted_key/);

    // Reopened (projections read back from the file), the count is still the three real calls.
    const { kernel: again } = kernelAt(path);
    expect(await use(again, victim)).toMatchObject({
      ok: false,
      guard: 'budget',
      reason: expect.stringContaining('used 3 of 3'),
    });
  });

  it('a key the operator configures as trusted is counted: its revocation stops the token', async () => {
    const path = join(dir, `t-${++n}.sqlite`);
    const { kernel } = kernelAt(path, { trustedKernelKeys: [rogue.publicKeyHex] });
    const victim = kernel.issueCapability({ subject: alice.publicKeyHex });
    const peer = Kernel.open({ ledgerPath: join(dir, `peer-${++n}.sqlite`), seed: ROGUE_SEED });
    opened.push(peer);
    await appendForeign(path, [(await peer.revokeCapability(victim.id, 'revoked by a peer kernel')).receipt]);
    expect(await use(kernel, victim)).toMatchObject({ ok: false, guard: 'revocation' });
  });
});
