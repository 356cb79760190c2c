// Builds the ACP proxy golden vector (test/vectors/acp/chio-acp-v1.json) from the proxy's own
// functions, with the shared vector seed (bytes 0x01..0x20) and fixed clocks: audit-entry content
// hashes and three signed receipts (audit_only, cryptographically_enforced, a refusal).
import { canonicalJson, fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { auditDraft, auditEntry, auditNonce, eventContentHash, readToolCallEvent, refusalDraft } from '../../src/proxy/acp/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt, ReceiptDraft } from '../../src/receipt/index.js';

const SEED = '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
const POLICY_HASH = 'a4c94f4272b749e0d60b3481d636a2ab0ed31a7a25baa22cb8fdfa99719cea88';

function receiptVector(draft: ReceiptDraft, nonce: string) {
  const receipt: Receipt = signReceipt(draft, signerFromSeed(fromHex(SEED)), { nonce });
  const { id: _id, signature: _sig, ...idInput } = receipt;
  const { signature, ...signedInput } = receipt;
  return { nonce, receipt, id_input_jcs: canonicalJson(idInput), id: receipt.id, signed_jcs: canonicalJson(signedInput), signature };
}

export function buildAcpVectors() {
  const updates = [
    { sessionUpdate: 'tool_call', toolCallId: 'tc-1', title: 'Read notes', kind: 'read', status: 'in_progress', rawInput: { path: '/home/dev/project/notes.md' }, locations: [{ path: '/home/dev/project/notes.md' }] },
    { sessionUpdate: 'tool_call', toolCallId: 'tc-2', title: 'Think' },
    { sessionUpdate: 'tool_call_update', toolCallId: 'tc-1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'done' } }] },
  ];
  const events = updates.map((update) => {
    const e = readToolCallEvent({ sessionId: 'sess-acp', update });
    if (e.kind !== 'tool_call' && e.kind !== 'tool_call_update') throw new Error('vector event did not parse');
    const declared = e.kind === 'tool_call_update'
      ? { toolCallId: e.toolCallId, status: e.status }
      : { toolCallId: e.toolCallId, title: e.title, ...(e.toolKind === undefined ? {} : { kind: e.toolKind }), ...(e.status === undefined ? {} : { status: e.status }) };
    return { update, declared_fields_jcs: canonicalJson(declared), content_hash: eventContentHash(e) };
  });
  const ev = (i: number) => readToolCallEvent({ sessionId: 'sess-acp', update: updates[i] }) as Parameters<typeof auditEntry>[0];
  const observed = auditEntry(ev(2), 'chio-acp-proxy', 1796000000);
  const enforced = auditEntry(ev(0), 'chio-acp-proxy', 1796000000, {
    capabilityId: 'cap-01937f5e-0000-7000-8000-000000000001',
    authorizationReceiptId: 'e'.repeat(64),
    authorizationRequestId: 'acp-live-guard-example',
    authorizationToolCallId: 'tc-1',
    authorizationCorrelationId: 'acp-auth-example',
    authorizationOperation: 'fs_read',
    authorizationResource: '/home/dev/project/notes.md',
    authorizationParameterHash: 'a'.repeat(64),
  });
  const refusal = refusalDraft({
    serverId: 'chio-acp-proxy', sessionId: 'sess-acp', method: 'fs/read_text_file', operation: 'fs_read', resource: '/etc/shadow',
    parameterHash: 'b'.repeat(64), guard: 'acp-fs-guard', reason: 'access denied: fs read denied for path: /etc/shadow', timestamp: 1796000000,
  }, POLICY_HASH);
  return {
    description: 'ACP proxy vectors: audit-entry contentHash = sha256_hex(JCS(declared fields only)); receipts signed with the chio-v1 seed. See test/vectors/README.md.',
    ed25519_seed_hex: SEED,
    ed25519_public_key_hex: signerFromSeed(fromHex(SEED)).publicKeyHex,
    sha256_of_null_bytes: '74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b',
    events,
    entries: { audit_only: observed, cryptographically_enforced: enforced },
    receipts: {
      audit_only: receiptVector(auditDraft(observed, POLICY_HASH), auditNonce(observed)),
      cryptographically_enforced: receiptVector(auditDraft(enforced, POLICY_HASH), auditNonce(enforced)),
      refusal: receiptVector(refusal, 'acp-refusal-1-example'),
    },
  };
}
