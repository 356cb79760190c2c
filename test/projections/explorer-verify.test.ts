// The explorer's in-browser checks (dist/explorer/verify.js, the very file the page loads), run
// here on Node's WebCrypto: the golden vectors verify byte for byte (JCS text, id, signature,
// entry hashes), JCS agrees with `canonicalize` on random JSON, and every kind of tampering an
// untrusted server could try — a changed field, a recomputed id, another key, a wrong rule, changed
// parameters, a moved position — is reported as a failed check.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signerFromSeed, toHex } from '../../src/crypto/index.js';

const vectors = JSON.parse(readFileSync('test/vectors/receipt/chio-v1.json', 'utf8'));
// The compiled browser module (npm test builds first); typed loosely: it is checked by the explorer's own tsconfig.
const web: any = await import(pathToFileURL('dist/explorer/verify.js').href);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));
const kinds = Object.keys(vectors.receipts) as string[];

describe('explorer: receipt checks in the browser', () => {
  it('reproduces the golden vectors: the id input, the signed text, and every receipt verifies', async () => {
    for (const kind of kinds) {
      const v = vectors.receipts[kind];
      const { id: _id, signature: _s, ...idInput } = v.receipt;
      expect(web.jcs(idInput), kind).toBe(v.id_input_jcs);
      const { signature: _sig, ...signed } = v.receipt;
      expect(web.jcs(signed), kind).toBe(v.signed_jcs);
      const checks = await web.checkReceipt(v.receipt);
      expect(checks, kind).toMatchObject({
        ok: true,
        id: { ok: true },
        signature: { ok: true },
        semantics: { ok: true },
      });
      expect(checks.kernelKey).toBe(vectors.ed25519_public_key_hex);
    }
  });

  it('recomputes every golden ledger entry hash from its body and position', async () => {
    for (const e of vectors.ledger.entries) {
      const position = {
        seq: e.seq,
        sessionId: e.session_id,
        sessionPrevSeq: e.session_prev_seq,
        prevHash: e.prev_hash,
        entryHash: e.entry_hash,
      };
      expect(await web.checkPosition(JSON.parse(e.body), position)).toMatchObject({ ok: true });
      expect(await web.checkPosition(JSON.parse(e.body), { ...position, seq: e.seq + 1 })).toMatchObject({ ok: false });
      expect(await web.checkPosition(JSON.parse(e.body), { ...position, sessionPrevSeq: 99 })).toMatchObject({
        ok: false,
      });
    }
  });

  it('agrees with canonicalize (RFC 8785) on random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value));
        expect(web.jcs(parsed)).toBe(canonicalize(parsed));
      }),
      { numRuns: 500 },
    );
  });

  it('a changed field fails the id and the signature', async () => {
    const r = clone(vectors.receipts.deny.receipt);
    r.decision.reason = 'nothing to see here';
    const checks = await web.checkReceipt(r);
    expect(checks).toMatchObject({ ok: false, id: { ok: false }, signature: { ok: false } });
  });

  it('a changed field with its id recomputed still fails the signature', async () => {
    const r = clone(vectors.receipts.deny.receipt);
    r.decision = { verdict: 'allow' };
    const { id: _i, signature: _s, ...rest } = r;
    r.id = await web.sha256Hex(web.jcs(rest));
    const checks = await web.checkReceipt(r);
    expect(checks).toMatchObject({ ok: false, id: { ok: true }, signature: { ok: false } });
  });

  it('a receipt re-signed by another key verifies, and names that key (pinning is what catches it)', async () => {
    const other = signerFromSeed(new Uint8Array(32).fill(9));
    const r = clone(vectors.receipts.allow.receipt);
    r.kernel_key = other.publicKeyHex;
    const { id: _i, signature: _s, ...rest } = r;
    r.id = await web.sha256Hex(web.jcs(rest));
    const { signature: _t, ...body } = r;
    r.signature = toHex(other.sign(new TextEncoder().encode(web.jcs(body))));
    const checks = await web.checkReceipt(r);
    expect(checks.ok).toBe(true);
    expect(checks.kernelKey).toBe(other.publicKeyHex);
    expect(checks.kernelKey).not.toBe(vectors.ed25519_public_key_hex);
  });

  it('the semantic rule, unredacted parameters and malformed keys are checked', async () => {
    const wrongRule = clone(vectors.receipts.trace_observation.receipt);
    wrongRule.trust_level = 'mediated';
    expect(await web.checkReceipt(wrongRule)).toMatchObject({ ok: false, semantics: { ok: false } });
    const params = clone(vectors.receipts.allow.receipt);
    params.action.parameters.path = '/etc/shadow';
    expect(await web.checkReceipt(params)).toMatchObject({ ok: false, parameterHash: { ok: false } });
    const badKey = clone(vectors.receipts.allow.receipt);
    badKey.kernel_key = 'zz';
    expect(await web.checkReceipt(badKey)).toMatchObject({ ok: false, signature: { ok: false } });
    const algorithm = clone(vectors.receipts.allow.receipt);
    expect(await web.checkReceipt({ ...algorithm, algorithm: 'ed25519' })).toMatchObject({ ok: true });
    // Outside the signed text, so only its absence or "ed25519" is accepted (as chio's own verify).
    for (const a of ['none', null, 'Ed25519'])
      expect(await web.checkReceipt({ ...algorithm, algorithm: a }), String(a)).toMatchObject({
        ok: false,
        signature: { ok: false },
      });
    expect(await web.checkReceipt([1, 2])).toMatchObject({ ok: false });
    expect(await web.checkReceipt(null)).toMatchObject({ ok: false });
  });
});
