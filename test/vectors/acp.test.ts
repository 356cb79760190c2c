// The ACP proxy golden vector: the proxy's functions reproduce test/vectors/acp/chio-acp-v1.json
// byte for byte, and its audit_only update hash matches the independent chio-v1 trace_observation.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../src/receipt/index.js';
import { loadVector } from '../helpers/vectors.js';
import { buildAcpVectors } from './acp-vectors.js';

const FILE = new URL('./acp/chio-acp-v1.json', import.meta.url);

describe('ACP proxy golden vector', () => {
  if (process.env['CHIO_WRITE_VECTORS'] === '1') writeFileSync(FILE, `${JSON.stringify(buildAcpVectors(), null, 2)}\n`);
  const committed = JSON.parse(readFileSync(FILE, 'utf8'));

  it('is reproduced byte for byte by the proxy code', () => {
    expect(JSON.parse(JSON.stringify(buildAcpVectors()))).toEqual(committed);
  });

  it('extra keys do not move a content hash; the completed update hash equals the independent trace_observation vector', () => {
    const shared = loadVector('receipt/chio-v1.json');
    expect(committed.events[2].content_hash).toBe(shared.receipts.trace_observation.receipt.content_hash);
    expect(committed.events[0].declared_fields_jcs).toBe('{"kind":"read","status":"in_progress","title":"Read notes","toolCallId":"tc-1"}');
    expect(committed.events[1].declared_fields_jcs).toBe('{"title":"Think","toolCallId":"tc-2"}');
  });

  it('every vector receipt verifies and has the documented semantics', () => {
    for (const v of Object.values(committed.receipts) as Array<{ receipt: unknown }>) expect(verifyReceipt(v.receipt).ok).toBe(true);
    const r = committed.receipts;
    expect(r.audit_only.receipt).toMatchObject({ receipt_kind: 'trace_observation', trust_level: 'verified', capability_id: 'acp-session:sess-acp', policy_hash: '' });
    expect(r.audit_only.receipt.decision).toBeUndefined();
    expect(r.cryptographically_enforced.receipt).toMatchObject({ receipt_kind: 'mediated_decision', trust_level: 'mediated', decision: { verdict: 'allow' }, capability_id: 'cap-01937f5e-0000-7000-8000-000000000001', tool_name: 'fs/read_text_file' });
    expect(Object.keys(r.cryptographically_enforced.receipt.metadata.acp)).toHaveLength(11);
    expect(r.refusal.receipt.decision).toEqual({ verdict: 'deny', guard: 'acp-fs-guard', reason: 'access denied: fs read denied for path: /etc/shadow' });
  });
});
