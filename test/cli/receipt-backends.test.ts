// chio receipt list and show on both ledgers (an SQLite file, a PostgreSQL server), through the real CLI over the
// same receipts: every filter selects what the receipts say, pages run to the end with a stable total, ids and
// unique prefixes resolve, and a prefix that is ambiguous, unknown or carries LIKE wildcards resolves to nothing.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAny, closeAnyLedger, openAnyLedger } from '../../src/ledger/pg/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const receipts: Receipt[] = Array.from({ length: 40 }, (_, i) => mixedReceipt(i));
const sessionOf = (i: number) => (i % 4 === 0 ? null : `s-${i % 3}`);
const stores: Record<string, string> = {};

beforeAll(async () => {
  stores.SQLite = join(dir, 'receipts.sqlite');
  stores.PostgreSQL = (await freshPgDatabase()).url;
  for (const location of Object.values(stores)) {
    const ledger = await openAnyLedger(location);
    try {
      await appendAny(
        ledger,
        receipts.map((receipt, i) => ({ receipt, sessionId: sessionOf(i) })),
      );
    } finally {
      await closeAnyLedger(ledger);
    }
  }
});

function list(store: string, flags: string[]): { ids: string[]; next: string; total: number } {
  const r = chio(['receipt', 'list', '--receipt-db', store, ...flags]);
  expect(r.status, r.stderr).toBe(0);
  const m = /^next_cursor=(\S+) total_count=(\d+)\n$/.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull();
  return {
    ids: r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as Receipt).id),
    next: m![1]!,
    total: Number(m![2]),
  };
}

const idsWhere = (keep: (r: Receipt, i: number) => boolean) => receipts.filter(keep).map((r) => r.id);

describe.each(['SQLite', 'PostgreSQL'])('chio receipt on %s', (name) => {
  it('each filter selects exactly the receipts it names, in ledger order', () => {
    const store = stores[name]!;
    const cases: Array<[string[], string[]]> = [
      [['--outcome', 'deny'], idsWhere((r) => r.decision?.verdict === 'deny')],
      [['--tool-name', 'read'], idsWhere((r) => r.tool_name === 'read')],
      [
        ['--tool-server', 'fs-srv', '--outcome', 'allow'],
        idsWhere((r) => r.tool_server === 'fs-srv' && r.decision?.verdict === 'allow'),
      ],
      [['--session-id', 's-1'], idsWhere((_, i) => sessionOf(i) === 's-1')],
      [
        ['--capability', 'cap-test', '--since', String(1_788_600_010), '--until', String(1_788_600_019)],
        idsWhere((r) => r.capability_id === 'cap-test' && r.timestamp >= 1_788_600_010 && r.timestamp <= 1_788_600_019),
      ],
      [['--session-id', 'no-such-session'], []],
    ];
    for (const [flags, expected] of cases) {
      const page = list(store, [...flags, '--limit', '1000']);
      expect(page.ids, flags.join(' ')).toEqual(expected);
      expect(page.total, flags.join(' ')).toBe(expected.length);
      expect(page.next).toBe('none');
    }
  });

  it('pages of 7 run to the end with total_count stable, and together are the whole ledger in order', () => {
    const store = stores[name]!;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = list(store, ['--limit', '7', ...(cursor === undefined ? [] : ['--cursor', cursor])]);
      expect(page.total).toBe(40);
      seen.push(...page.ids);
      if (page.next === 'none') break;
      cursor = page.next;
    }
    expect(seen).toEqual(receipts.map((r) => r.id));
  });

  it('show resolves an id and a unique prefix to the receipt and its place in the chain', () => {
    const store = stores[name]!;
    const target = receipts[9]!;
    for (const id of [target.id, target.id.slice(0, 12)]) {
      const r = chio(['receipt', 'show', id, '--receipt-db', store, '--json']);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        seq: 10,
        session_id: 's-0',
        session_prev_seq: 7,
        valid: true,
        receipt: { id: target.id },
      });
    }
  });

  it('an unknown id, a too-short prefix and a prefix with LIKE wildcards find nothing', () => {
    const store = stores[name]!;
    for (const id of ['f'.repeat(64), receipts[0]!.id.slice(0, 6), `${receipts[0]!.id.slice(0, 8)}%`, '________']) {
      const r = chio(['receipt', 'show', id, '--receipt-db', store]);
      expect(r.status, id).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-CLI-RECEIPT-NOT-FOUND');
    }
  });

  it('chio ledger stats counts the same entries, sessions, kinds, verdicts and keys on both stores', () => {
    const stats = (store: string) => {
      const r = chio(['ledger', 'stats', '--receipt-db', store, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const { path: _p, file_bytes: _f, database_bytes: _d, schema_version: _v, ...rest } = JSON.parse(r.stdout);
      return rest;
    };
    const mine = stats(stores[name]!);
    expect(mine).toEqual(stats(stores.SQLite!));
    expect(mine).toMatchObject({ entries: 40, sessions: 3, head: { seq: 40 } });
  });
});
