// The evidence API as a library user sees it: everything imported from the package entry (the
// built `chio` module, as `import … from 'chio'` resolves it). A kernel appends, checkpoints while
// it runs and at close; the user proves a receipt and a consistency between two checkpoints,
// exports a session as a bundle and checks it with only the kernel's public key.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as chio from 'chio';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

describe('the package entry exports checkpoints, proofs and evidence bundles', () => {
  it('kernel checkpoints → proveInclusion/verifyProof → proveConsistency → exportEvidence → verifyEvidenceBundle, all from the package', async () => {
    const path = join(tempDir('chio-evidence-lib-'), 'ledger.sqlite');
    const seed = chio.fromHex('a9'.repeat(32));
    const key = chio.signerFromSeed(seed);
    const agent = chio.signerFromSeed(chio.fromHex('aa'.repeat(32)));
    const kernel = chio.Kernel.open({ ledgerPath: path, seed, checkpoints: { everyEntries: 4 }, log: () => {} });
    kernel.registerToolServer(new CountingToolServer());
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    const receipts = [];
    for (let i = 0; i < 10; i++) {
      const r = await kernel.evaluateToolCall({
        capability: cap,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: `/workspace/${i}` },
        sessionId: i < 5 ? 'one' : 'two',
      });
      receipts.push(r.receipt);
    }
    await kernel.close();

    const ledger = chio.openLedger(path);
    try {
      const stored = chio.listCheckpoints(ledger);
      expect(stored.map((c) => c.treeSize)).toEqual([4, 8, 10]);
      const notes = stored.map((c) => c.note);
      const proof = chio.proveInclusion(ledger, { receiptId: receipts[2]!.id });
      expect(proof).toMatchObject({ schema: chio.INCLUSION_PROOF_SCHEMA, seq: 3, tree_size: 10 });
      expect(chio.verifyProof(proof, notes, [key.publicKeyHex])).toMatchObject({
        ok: true,
        kind: 'inclusion',
        seq: 3,
        treeSize: 10,
      });
      expect(chio.verifyProof(chio.proveConsistency(ledger, 4, 10), notes, [key.publicKeyHex])).toMatchObject({
        ok: true,
        kind: 'consistency',
        oldSize: 4,
        newSize: 10,
      });
      expect(chio.verifyTree(ledger, { trustedKeys: new Set([key.publicKeyHex]) })).toMatchObject({
        ok: true,
        treeSize: 10,
        checkpoints: 3,
      });

      const certificate = chio.generateCertificate(ledger, { sessionId: 'one', signer: { role: 'kernel', key } });
      const bundle = chio.exportEvidence(ledger, { sessionId: 'one', certificate });
      const roundTrip = JSON.parse(JSON.stringify(bundle));
      expect(chio.verifyEvidenceBundle(roundTrip, { trustedKernelKeys: new Set([key.publicKeyHex]) })).toMatchObject({
        ok: true,
        sessionId: 'one',
        receipts: 5,
        treeSize: 10,
      });
      expect(chio.verifyEvidenceBundle(roundTrip, { trustedKernelKeys: new Set([agent.publicKeyHex]) })).toMatchObject({
        ok: false,
        check: 'checkpoint',
      });
    } finally {
      ledger.close();
    }
  });
});
