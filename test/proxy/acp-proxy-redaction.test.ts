// `chio acp proxy --redaction-key-file`: with --enforce-capabilities the proxy's kernel governs the
// agent's fs and terminal requests, so a redacting policy needs the operator's redaction key (the
// proxy refuses to start without it) and the kernel's receipts carry a salted parameter_hash that
// the operator can disclose and an auditor can check, through the built CLI.
// Then the ledger as an attacker reads it: someone with the SQLite file and a list of guessed paths,
// file contents and commands. Under a redacting policy no byte of it — the proxy's own audit and
// refusal receipts included — may hold a path in clear or sha256(JCS(params)) of any request the
// agent sent; with redaction `none` the proxy's receipts keep the resource and the hash as before.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromHex, hashCanonical, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { FIXTURE_AGENT, startProxyClient } from '../helpers/acp-proxy-client.js';
import type { ProxyClient } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { projectTree } from '../helpers/acp-proxy-tree.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-redaction-');
const { root, outside } = projectTree(dir);
const keys = kernelKeyFiles(dir);
const policy = join(dir, 'policy.json');
const redactionKey = join(dir, 'redaction.key');
const subject = signerFromSeed(fromHex('5e'.repeat(32))).publicKeyHex;

beforeAll(() => {
  writeFileSync(policy, JSON.stringify({ redaction: { mode: 'redact_keys', keys: ['path', 'resource'] } }));
  expect(chio(['receipt', 'redaction-key', '--out', redactionKey]).status).toBe(0);
});

describe('chio acp proxy --enforce-capabilities with a redacting policy', () => {
  it('refuses to start without --redaction-key-file (exit 2) and writes no receipt', () => {
    const db = join(dir, 'no-key.sqlite');
    const r = chio(
      [
        '--receipt-db',
        db,
        'acp',
        'proxy',
        '--kernel-seed-file',
        keys.seedFile,
        '--policy',
        policy,
        '--enforce-capabilities',
        '--allow-path',
        root,
        '--',
        process.execPath,
        FIXTURE_AGENT,
      ],
      { input: '' },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-REDACTION-KEY-REQUIRED');
    expect(!existsSync(db) || ledgerReceipts(db).length === 0).toBe(true);
  });

  describe('with the key', () => {
    const db = join(dir, 'receipts.sqlite');
    let client: ProxyClient;
    let readToken: unknown;
    beforeAll(async () => {
      const issuer = Kernel.open({ ledgerPath: join(dir, 'issuer.sqlite'), seedFile: keys.seedFile });
      readToken = issuer.issueCapability({
        subject,
        scope: { grants: [{ server_id: 'chio-acp-proxy', tool_name: 'fs/read_text_file', operations: ['invoke'] }] },
      });
      await issuer.close();
      client = startProxyClient([
        '--receipt-db',
        db,
        '--kernel-seed-file',
        keys.seedFile,
        '--policy',
        policy,
        '--redaction-key-file',
        redactionKey,
        '--enforce-capabilities',
        '--allow-path',
        root,
      ]);
    });
    afterAll(async () => void (await client?.close()));

    it("the kernel's authorization receipt redacts the path and salts its hash; the disclosed path opens it, another path does not", async () => {
      const s = await client.newSession();
      const path = join(root, 'a.txt');
      const r = await client.prompt(s, [{ read: { path, capabilityToken: readToken } }]);
      expect(r[0]).toEqual({ ok: true, result: { content: 'hello from a' } });
      const auth = ledgerReceipts(db)
        .map((e) => e.receipt)
        .find((rc) => rc.redaction_mode === 'redacted' && rc.tool_name === 'fs/read_text_file');
      expect(auth).toBeDefined();
      // The path once, under the request's own key; no unsalted hash of the request beside it.
      expect(auth.action.parameters).toMatchObject({ path: '[REDACTED]', operation: 'fs_read', session_id: s });
      expect(Object.keys(auth.action.parameters).sort()).toEqual([
        'authorization_correlation_id',
        'operation',
        'path',
        'session_id',
        'tool_call_id',
      ]);
      expect(auth.metadata.chio_parameter_salt).toMatchObject({ scheme: 'chio.parameter-salt.v1' });

      const salt = chio([
        '--receipt-db',
        db,
        'receipt',
        'disclose-salt',
        auth.id,
        '--redaction-key-file',
        redactionKey,
        '--trusted-kernel-pubkey',
        keys.pubFile,
      ]);
      expect(salt.status, salt.stderr).toBe(0);
      const disclosed = (p: string) => JSON.stringify({ ...auth.action.parameters, path: p });
      const check = (p: string) =>
        chio([
          '--receipt-db',
          db,
          'receipt',
          'check-disclosure',
          auth.id,
          '--salt',
          salt.stdout.trim(),
          '--parameters',
          disclosed(p),
          '--trusted-kernel-pubkey',
          keys.pubFile,
        ]);
      const ok = check(path);
      expect(ok.status, ok.stdout + ok.stderr).toBe(0);
      expect(check(join(root, 'b.txt')).status).toBe(1);
      expect(chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]).status).toBe(0);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The ledger as an attacker reads it.

const NULL_HASH = hashCanonical(null);
const secretPath = join(root, 'q3-acquisition-plan.txt');
const outsidePath = join(outside, 'offsite-payroll-ledger.txt');
const writePath = join(root, 'merger-draft-terms.txt');
const WRITE_CONTENT = 'strike price 41.17 per share, close on 2031-03-09';
const COMMAND = 'exfiltrate-payroll-tool';
const SECRET_TITLE = `Read ${secretPath}`;
const FREE_TITLE = `Inspect ${outsidePath}`;

interface Scenario {
  db: string;
  session: string;
  outcomes: Array<{ ok: boolean; [k: string]: unknown }>;
  receipts: any[];
  /** Every byte of the ledger: the database file and any -wal / -shm / -journal beside it. */
  bytes: Buffer[];
  /** sha256(JCS(params without the token)) of each request the agent sent, in order. */
  payloadHashes: string[];
  /** What an attacker with a word list would try: each payload hash, the clear titles' content hashes, and every id the old code derived from a request. */
  guessableHashes: string[];
}

/**
 * One session through the built proxy: an allowed read (bound to its tool call, which the agent
 * titles with the path), a read the kernel allows and FsGuard refuses (outside --allow-path), a
 * write and a terminal without a token, and an unbound tool call titled with a path.
 */
async function runScenario(name: string, policyDoc: object, withKey: boolean): Promise<Scenario> {
  const db = join(dir, `${name}.sqlite`);
  const policyFile = join(dir, `${name}-policy.json`);
  writeFileSync(policyFile, JSON.stringify(policyDoc));
  writeFileSync(secretPath, 'buy ACME at 41.17');
  writeFileSync(outsidePath, 'payroll');
  const issuer = Kernel.open({ ledgerPath: join(dir, `${name}-issuer.sqlite`), seedFile: keys.seedFile });
  const readToken = issuer.issueCapability({
    subject,
    scope: { grants: [{ server_id: 'chio-acp-proxy', tool_name: 'fs/read_text_file', operations: ['invoke'] }] },
  });
  await issuer.close();
  const client = startProxyClient([
    '--receipt-db',
    db,
    '--kernel-seed-file',
    keys.seedFile,
    '--policy',
    policyFile,
    ...(withKey ? ['--redaction-key-file', redactionKey] : []),
    '--enforce-capabilities',
    '--allow-path',
    root,
  ]);
  let session = '';
  let outcomes: Scenario['outcomes'] = [];
  try {
    session = await client.newSession();
    outcomes = (await client.prompt(session, [
      { read: { path: secretPath, toolCallId: 'tc-secret', capabilityToken: readToken } },
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 'tc-secret',
          title: SECRET_TITLE,
          kind: 'read',
          status: 'in_progress',
          rawInput: { path: secretPath },
          locations: [{ path: secretPath }],
        },
      },
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-secret', status: 'completed' } },
      { read: { path: outsidePath, toolCallId: 'tc-out', capabilityToken: readToken } },
      { write: { path: writePath, content: WRITE_CONTENT } },
      { terminal: { command: COMMAND, args: ['--dest', outsidePath] } },
      { update: { sessionUpdate: 'tool_call', toolCallId: 'tc-free', title: FREE_TITLE, kind: 'other' } },
    ])) as Scenario['outcomes'];
  } finally {
    await client.close();
  }
  const requests = [
    {
      operation: 'fs_read',
      resource: secretPath,
      payload: { sessionId: session, path: secretPath, toolCallId: 'tc-secret' },
    },
    {
      operation: 'fs_read',
      resource: outsidePath,
      payload: { sessionId: session, path: outsidePath, toolCallId: 'tc-out' },
    },
    {
      operation: 'fs_write',
      resource: writePath,
      payload: { sessionId: session, path: writePath, content: WRITE_CONTENT },
    },
    {
      operation: 'terminal',
      resource: COMMAND,
      payload: { sessionId: session, command: COMMAND, args: ['--dest', outsidePath] },
    },
  ];
  const payloadHashes = requests.map((r) => hashCanonical(r.payload));
  const guessableHashes = [
    ...payloadHashes,
    hashCanonical({ toolCallId: 'tc-secret', title: SECRET_TITLE, kind: 'read', status: 'in_progress' }),
    hashCanonical({ toolCallId: 'tc-free', title: FREE_TITLE, kind: 'other' }),
  ];
  // Correlation and request ids derived from (JSON-RPC id, session, operation, resource, payload):
  // the JSON-RPC id is a small counter, so an attacker tries them all.
  for (const r of requests) {
    for (let id = 0; id < 64; id++) {
      const correlationId = `acp-auth-${hashCanonical({ id, sessionId: session, operation: r.operation, resource: r.resource })}`;
      const toolCallId = (r.payload as { toolCallId?: string }).toolCallId ?? '';
      guessableHashes.push(
        correlationId.slice('acp-auth-'.length),
        hashCanonical({ correlationId, toolCallId, parameterHash: hashCanonical(r.payload), payload: r.payload }),
      );
    }
  }
  const bytes = readdirSync(dir)
    .filter((f) => f.startsWith(basename(db)))
    .map((f) => readFileSync(join(dir, f)));
  return {
    db,
    session,
    outcomes,
    receipts: ledgerReceipts(db).map((e) => e.receipt),
    bytes,
    payloadHashes,
    guessableHashes,
  };
}

/** The needles no byte of a redacted ledger may hold. */
function secrets(sc: Scenario): string[] {
  return [
    secretPath,
    outsidePath,
    writePath,
    basename(secretPath),
    basename(outsidePath),
    basename(writePath),
    WRITE_CONTENT,
    COMMAND,
    ...sc.guessableHashes,
  ];
}

function expectOutcomes(sc: Scenario): void {
  expect(sc.outcomes[0]).toEqual({ ok: true, result: { content: 'buy ACME at 41.17' } });
  for (const i of [3, 4, 5]) expect(sc.outcomes[i]).toMatchObject({ ok: false, code: -32000 });
}

function expectNoSecretsInLedger(sc: Scenario): void {
  expect(sc.bytes.length).toBeGreaterThan(0);
  for (const needle of secrets(sc)) {
    for (const b of sc.bytes)
      expect(b.includes(Buffer.from(needle, 'utf8')), `ledger bytes hold ${needle}`).toBe(false);
    for (const rc of sc.receipts)
      expect(JSON.stringify(rc).includes(needle), `receipt ${rc.id} holds ${needle}`).toBe(false);
  }
}

const proxyReceipts = (sc: Scenario) => sc.receipts.filter((rc) => rc.metadata?.acp !== undefined);
const kernelAuthorizations = (sc: Scenario) =>
  sc.receipts.filter((rc) => rc.metadata?.acp === undefined && rc.tool_server === 'chio-acp-proxy');
const refusals = (sc: Scenario) => proxyReceipts(sc).filter((rc) => rc.decision?.verdict === 'deny');
const audits = (sc: Scenario, toolCallId: string) =>
  proxyReceipts(sc).filter((rc) => rc.metadata.acp.toolCallId === toolCallId && rc.decision?.verdict !== 'deny');

describe('the ledger under a redact_keys policy (path, resource), as an attacker with a word list reads it', () => {
  let sc: Scenario;
  beforeAll(async () => {
    sc = await runScenario('redact-keys', { redaction: { mode: 'redact_keys', keys: ['path', 'resource'] } }, true);
  });

  it('holds no path, content or command in clear and no sha256(JCS(params)) of any request, in any byte or receipt', () => {
    expectOutcomes(sc);
    expectNoSecretsInLedger(sc);
  });

  it("the proxy's refusals record the resource as [REDACTED], no request hash, and no guard message quoting the request", () => {
    const denies = refusals(sc);
    expect(denies.map((rc) => [rc.tool_name, rc.decision.guard, rc.redaction_mode]).sort()).toEqual([
      ['fs/read_text_file', 'acp-fs-guard', 'redacted'],
      ['fs/write_text_file', 'capability', 'redacted'],
      ['terminal/create', 'capability', 'redacted'],
    ]);
    for (const rc of denies) {
      expect(rc.action.parameters).toEqual({
        session_id: sc.session,
        operation: rc.action.parameters.operation,
        resource: '[REDACTED]',
        authorization_parameter_hash: null,
      });
      expect(rc.metadata.acp.resource).toBe('[REDACTED]');
      // The hash commits to what the receipt records, and there is no salt marker claiming more.
      expect(rc.action.parameter_hash).toBe(hashCanonical(rc.action.parameters));
      expect(rc.metadata.chio_parameter_salt).toBeUndefined();
    }
    // A reason that quotes nothing of the request is kept.
    expect(denies.filter((rc) => rc.decision.guard === 'capability').map((rc) => rc.decision.reason)).toEqual([
      'no capability token presented',
      'no capability token presented',
    ]);
  });

  it("the audit receipts of the bound tool call redact title and resource and carry no request hash; they still link the kernel's salted authorization", () => {
    const [call, done] = audits(sc, 'tc-secret');
    expect(call).toMatchObject({
      redaction_mode: 'redacted',
      receipt_kind: 'mediated_decision',
      action: {
        parameters: {
          tool_call_id: 'tc-secret',
          title: '[REDACTED]',
          kind: 'read',
          status: 'in_progress',
          authorization_parameter_hash: null,
        },
      },
    });
    expect(done).toMatchObject({
      redaction_mode: 'redacted',
      action: { parameters: { status: 'completed', authorization_parameter_hash: null } },
    });
    for (const rc of [call, done]) {
      expect(rc.metadata.acp).toMatchObject({
        enforcementMode: 'cryptographically_enforced',
        authorizationOperation: 'fs_read',
        authorizationResource: '[REDACTED]',
        authorizationParameterHash: null,
      });
      expect(rc.metadata.receipt_context).toMatchObject({
        authorization_resource: '[REDACTED]',
        authorization_parameter_hash: null,
      });
      expect(rc.action.parameter_hash).toBe(hashCanonical(rc.action.parameters));
    }
    // content_hash covers the declared fields as recorded (title [REDACTED]), not the agent's title.
    expect(call.content_hash).toBe(
      hashCanonical({ toolCallId: 'tc-secret', title: '[REDACTED]', kind: 'read', status: 'in_progress' }),
    );
    const auth = kernelAuthorizations(sc).find((rc) => rc.id === call.metadata.acp.authorizationReceiptId);
    expect(auth).toMatchObject({ redaction_mode: 'redacted', action: { parameters: { path: '[REDACTED]' } } });
    expect(auth.metadata.chio_parameter_salt).toBeDefined();
    expect(audits(sc, 'tc-free')[0]).toMatchObject({
      redaction_mode: 'redacted',
      action: { parameters: { title: '[REDACTED]' } },
      metadata: { acp: { enforcementMode: 'audit_only' } },
    });
  });

  it("the kernel's authorization receipts carry no request hash among their arguments", () => {
    const auths = kernelAuthorizations(sc);
    expect(auths).toHaveLength(2);
    for (const rc of auths) {
      expect(rc.action.parameters).not.toHaveProperty('authorization_parameter_hash');
      expect(rc.action.parameters).not.toHaveProperty('resource');
    }
  });

  it('ledger verify --trusted-kernel-pubkey passes', () => {
    const v = chio(['--receipt-db', sc.db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('the ledger under a hash_only policy', () => {
  let sc: Scenario;
  beforeAll(async () => {
    sc = await runScenario('hash-only', { redaction: { mode: 'hash_only' } }, true);
  });

  it("holds no path, content, command or request hash; the proxy's receipts record no parameters, resource or title", () => {
    expectOutcomes(sc);
    expectNoSecretsInLedger(sc);
    const mine = proxyReceipts(sc);
    expect(mine.length).toBeGreaterThanOrEqual(6); // three refusals, two audits of tc-secret, one of tc-free
    for (const rc of mine) {
      expect(rc).toMatchObject({ redaction_mode: 'summary', action: { parameters: null, parameter_hash: NULL_HASH } });
      expect(JSON.stringify(rc.metadata)).not.toContain('[REDACTED]'); // not recorded at all, not even as a marker
    }
    for (const rc of refusals(sc)) expect(rc.metadata.acp.resource).toBeNull();
    for (const rc of audits(sc, 'tc-secret')) {
      expect(rc.metadata.acp).toMatchObject({
        enforcementMode: 'cryptographically_enforced',
        authorizationResource: null,
        authorizationParameterHash: null,
      });
      expect(rc.metadata.receipt_context).toMatchObject({
        authorization_resource: null,
        authorization_parameter_hash: null,
      });
    }
    for (const rc of kernelAuthorizations(sc))
      expect(rc).toMatchObject({ redaction_mode: 'summary', action: { parameters: null } });
    const v = chio(['--receipt-db', sc.db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('the ledger under redaction none (unchanged)', () => {
  let sc: Scenario;
  beforeAll(async () => {
    sc = await runScenario('no-redaction', {}, false);
  });

  it("the proxy's audit and refusal receipts keep the resource, the title and sha256(JCS(params)) of the request", () => {
    expectOutcomes(sc);
    const [call] = audits(sc, 'tc-secret');
    expect(call).toMatchObject({
      redaction_mode: 'none',
      action: { parameters: { title: SECRET_TITLE, authorization_parameter_hash: sc.payloadHashes[0] } },
    });
    expect(call.metadata.acp).toMatchObject({
      authorizationResource: secretPath,
      authorizationParameterHash: sc.payloadHashes[0],
    });
    expect(call.metadata.receipt_context).toMatchObject({
      authorization_resource: secretPath,
      authorization_parameter_hash: sc.payloadHashes[0],
    });
    expect(call.content_hash).toBe(
      hashCanonical({ toolCallId: 'tc-secret', title: SECRET_TITLE, kind: 'read', status: 'in_progress' }),
    );
    const fsDeny = refusals(sc).find((rc) => rc.tool_name === 'fs/read_text_file');
    expect(fsDeny).toMatchObject({
      redaction_mode: 'none',
      action: { parameters: { resource: outsidePath, authorization_parameter_hash: sc.payloadHashes[1] } },
      metadata: { acp: { resource: outsidePath } },
    });
    expect(fsDeny.decision.reason).toContain(outsidePath);
    const writeDeny = refusals(sc).find((rc) => rc.tool_name === 'fs/write_text_file');
    expect(writeDeny.action.parameters).toMatchObject({
      resource: writePath,
      authorization_parameter_hash: sc.payloadHashes[2],
    });
    const auth = kernelAuthorizations(sc).find((rc) => rc.id === call.metadata.acp.authorizationReceiptId);
    expect(auth.action.parameters).toMatchObject({
      path: secretPath,
      resource: secretPath,
      authorization_parameter_hash: sc.payloadHashes[0],
    });
    const v = chio(['--receipt-db', sc.db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});
