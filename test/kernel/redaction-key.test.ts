// The kernel's redaction key on real ledger files: a redacting kernel without a key governs nothing
// (revocations and recovery need none); the key never leaves its object; recovery carries the salt
// marker of stored facts only where the facts are redacted (stored facts are attacker-controlled).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, hashCanonical, signerFromSeed, toHex } from '../../src/crypto/index.js';
import type { ChioError } from '../../src/errors.js';
import { Kernel, normalizePolicy, RedactionKey } from '../../src/kernel/index.js';
import { currentOwner } from '../../src/kernel/owner.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { saltedParameterHash, verifyReceipt } from '../../src/receipt/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir('chio-redaction-key-');
const SEED = fromHex('44'.repeat(32));
const KEY = fromHex('5a'.repeat(32));
const agent = signerFromSeed(fromHex('55'.repeat(32)));
const redacting = normalizePolicy({ redaction: { mode: 'redact_keys', keys: ['password'] } });
let n = 0;
const fresh = () => join(dir, `r-${++n}.sqlite`);
const kernels: Kernel[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close().catch(() => {});
});
const open = (options: Omit<Parameters<typeof Kernel.open>[0], 'ledgerPath' | 'seed'> & { path?: string }) => {
  const k = Kernel.open({ ledgerPath: options.path ?? fresh(), seed: SEED, ...options });
  kernels.push(k);
  return k;
};
const thrown = (f: () => unknown): ChioError => {
  try {
    f();
  } catch (e) {
    return e as ChioError;
  }
  throw new Error('did not throw');
};

describe('a kernel whose policy redacts', () => {
  it('without a key refuses to govern calls (registerToolServer), and still revokes', async () => {
    const path = fresh();
    const kernel = open({ path, policy: redacting });
    expect(thrown(() => kernel.registerToolServer(new CountingToolServer())).code).toBe('CHIO-REDACTION-KEY-REQUIRED');
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex, scope: { grants: [] } });
    const { receipt } = await kernel.revokeCapability(cap.id, 'done');
    expect(receipt.redaction_mode).toBe('none');
    // With no server registered a call is denied as unknown, and its receipt would have to be salted: it fails closed.
    await expect(
      kernel.evaluateToolCall({
        capability: cap,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { password: 'x' },
      }),
    ).rejects.toMatchObject({ code: 'CHIO-REDACTION-KEY-REQUIRED' });
    const l = openLedger(path, { readonly: true });
    expect(l.db.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 1 });
    expect(l.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    l.close();
  });

  it('takes the key as bytes or as a file, not both; a file that is not 64 hex characters is refused', () => {
    const file = join(dir, 'k.key');
    writeFileSync(file, `${toHex(KEY).toUpperCase()}\n`);
    expect(open({ policy: redacting, redactionKeyFile: file })).toBeInstanceOf(Kernel);
    expect(
      thrown(() => Kernel.open({ ledgerPath: fresh(), seed: SEED, redactionKey: KEY, redactionKeyFile: file })).code,
    ).toBe('CHIO-REDACTION-KEY-INVALID');
    expect(thrown(() => Kernel.open({ ledgerPath: fresh(), seed: SEED, redactionKey: KEY.slice(0, 31) })).code).toBe(
      'CHIO-REDACTION-KEY-INVALID',
    );
    writeFileSync(file, 'ab'.repeat(31));
    expect(thrown(() => Kernel.open({ ledgerPath: fresh(), seed: SEED, redactionKeyFile: file })).code).toBe(
      'CHIO-REDACTION-KEY-INVALID',
    );
  });

  it('the key never shows in JSON, util.inspect or the receipt; the receipt names it by id only', async () => {
    const key = RedactionKey.fromBytes(KEY);
    const hex = toHex(KEY);
    expect(JSON.stringify({ key })).not.toContain(hex);
    expect(inspect(key, { showHidden: true, depth: 5 })).not.toContain(hex);
    expect(JSON.stringify({ key })).toContain(key.id);
    const kernel = open({ policy: redacting, redactionKey: key });
    kernel.registerToolServer(new CountingToolServer());
    const r = await kernel.evaluateToolCall({
      capability: kernel.issueCapability({ subject: agent.publicKeyHex }),
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'hello_tool',
      arguments: { name: 'Ada', password: 'hunter2' },
    });
    expect(JSON.stringify(r.receipt)).not.toContain(hex);
    expect(r.receipt.metadata!.chio_parameter_salt).toEqual({ key_id: key.id, scheme: 'chio.parameter-salt.v1' });
    // Denials are salted as well: the arguments of a refused call are redacted the same way.
    const denied = await kernel.evaluateToolCall({
      capability: { id: 'not-a-token' },
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'hello_tool',
      arguments: { password: 'hunter2' },
    });
    expect(denied).toMatchObject({
      ok: false,
      verdict: 'deny',
      receipt: { redaction_mode: 'redacted', action: { parameters: { password: '[REDACTED]' } } },
    });
    expect(denied.receipt.action.parameter_hash).not.toBe(hashCanonical({ password: 'hunter2' }));
    const salt = key.salt({
      capabilityId: 'not-a-token',
      timestamp: denied.receipt.timestamp,
      signingNonce: denied.receipt.metadata!.chio_receipt_signing_nonce as string,
    });
    expect(denied.receipt.action.parameter_hash).toBe(saltedParameterHash(salt, { password: 'hunter2' }));
  });
});

describe('recovery and the salt marker of stored facts (read from the file: attacker-controlled)', () => {
  const self = currentOwner();
  const deadOwner = () => `${self.host}:${spawnSync('true').pid!}`;
  const marker = { key_id: 'c'.repeat(64), scheme: 'chio.parameter-salt.v1' };
  const facts = (mode: 'none' | 'redacted', parameters: unknown, hash: string, meta?: unknown) =>
    canonicalJson({
      timestamp: 1_800_000_000,
      capability_id: 'cap-x',
      tool_server: 'fs',
      tool_name: 'login',
      action: { parameters, parameter_hash: hash },
      redaction_mode: mode,
      policy_hash: '',
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      trust_level: 'mediated',
      ...(meta === undefined ? {} : { metadata: meta }),
    });
  const insert = (path: string, id: string, text: string) => {
    const l = openLedger(path);
    l.db
      .prepare(
        'INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts) VALUES (?, ?, 0, 1800000000, ?, NULL, ?, ?, ?)',
      )
      .run(id, 'cap-x', deadOwner(), 'fs', 'login', text);
    l.close();
  };

  it('redacted facts keep their salted hash and marker; unredacted facts lose a planted marker; other metadata is never carried', () => {
    const path = fresh();
    insert(
      path,
      'salted',
      facts('redacted', { password: '[REDACTED]' }, 'd'.repeat(64), {
        chio_parameter_salt: marker,
        chio_grant_index: 99,
        note: 'planted',
      }),
    );
    insert(path, 'legacy', facts('redacted', { password: '[REDACTED]' }, 'e'.repeat(64)));
    insert(
      path,
      'planted',
      facts('none', { path: '/w' }, hashCanonical({ path: '/w' }), { chio_parameter_salt: marker }),
    );
    insert(
      path,
      'bad-marker',
      facts('redacted', { password: '[REDACTED]' }, 'f'.repeat(64), {
        chio_parameter_salt: { key_id: 'nope', scheme: 'chio.parameter-salt.v1' },
      }),
    );
    const kernel = open({ path });
    expect(kernel.lastRecovery.settled.map((s) => s.requestId).sort()).toEqual([
      'bad-marker',
      'legacy',
      'planted',
      'salted',
    ]);
    const byId = Object.fromEntries(kernel.lastRecovery.settled.map((s) => [s.requestId, s.receipt]));
    expect(byId.salted).toMatchObject({
      redaction_mode: 'redacted',
      action: { parameter_hash: 'd'.repeat(64) },
      metadata: { chio_parameter_salt: marker, chio_grant_index: 0 },
    });
    expect(byId.salted!.metadata!.note).toBeUndefined();
    expect(byId.legacy!.metadata!.chio_parameter_salt).toBeUndefined();
    expect(byId.legacy!.action.parameter_hash).toBe('e'.repeat(64));
    expect(byId.planted!.metadata!.chio_parameter_salt).toBeUndefined();
    expect(byId.planted!.metadata!.chio_recovery).toMatchObject({ facts: 'stored' });
    // A malformed marker makes the facts unreadable: nothing of them is signed.
    expect(byId['bad-marker']).toMatchObject({
      action: { parameters: null, parameter_hash: '0'.repeat(64) },
      metadata: { chio_recovery: { facts: 'unreadable' } },
    });
    for (const r of Object.values(byId)) expect(verifyReceipt(JSON.parse(JSON.stringify(r))).ok).toBe(true);
    const l = openLedger(path, { readonly: true });
    expect(verifyChain(l)).toMatchObject({ ok: true, entries: 4 });
    l.close();
  });
});
