/**
 * The audit API over HTTP (DESIGN §12): a read-only JSON API on a read-only ledger connection,
 * a bearer token on every route but `/healthz`. `auditApi` returns a request handler, so
 * `chio serve` runs it alone and other servers can mount it under `/v1/`.
 * Owns: routing, authentication and the JSON envelope. Never writes the ledger.
 * Everything in a request (path, query, headers) is attacker-controlled.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChioError, ERROR_CATALOGUE } from '../../errors.js';
import type { Ledger } from '../../ledger/index.js';
import { PageSchema, parseQuery, ReceiptQuerySchema } from './params.js';
import { ledgerHead, listSessions, queryReceipts, receiptById, sessionReceipts } from './routes.js';

export interface AuditApiOptions {
  /** The ledger, opened read-only. */
  ledger: Ledger;
  /** The bearer token every route but /healthz requires. */
  token: string;
}

/** Longest request target accepted: ids and filters are short; anything longer is refused unread. */
const MAX_TARGET = 4096;

const STATUS: Partial<Record<string, number>> = {
  'CHIO-API-UNAUTHORIZED': 401,
  'CHIO-API-BAD-REQUEST': 400,
  'CHIO-API-NOT-FOUND': 404,
  'CHIO-API-LEDGER-UNREADABLE': 503,
};

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, e: unknown): void {
  const error = e instanceof ChioError ? e : new ChioError('CHIO-API-LEDGER-UNREADABLE', `the ledger could not be read: ${(e as Error)?.message ?? String(e)}`);
  const status = STATUS[error.code] ?? 500;
  const help = (ERROR_CATALOGUE as Record<string, { help: string }>)[error.code]?.help;
  send(res, status, { error: { code: error.code, message: error.message, ...(help === undefined ? {} : { help }) } },
    status === 401 ? { 'www-authenticate': 'Bearer realm="chio"' } : {});
}

/** Constant-time comparison of the presented token with the service token (both hashed to equal length first). */
function tokenMatches(header: string | undefined, expected: Buffer): boolean {
  const m = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(header ?? '');
  if (m === null) return false;
  return timingSafeEqual(createHash('sha256').update(m[1]!).digest(), expected);
}

/** Decodes one path segment; a malformed escape is a bad request, not a crash. */
function segment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ChioError('CHIO-API-BAD-REQUEST', 'a path segment is not valid percent-encoding');
  }
}

export function auditApi(options: AuditApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  if (!options.ledger.readonly) throw new ChioError('CHIO-CLI-SERVICE-OPTIONS', 'the audit API reads a ledger opened read-only');
  const expected = createHash('sha256').update(options.token).digest();
  const { ledger } = options;
  return (req, res) => {
    try {
      const target = req.url ?? '/';
      if (target.length > MAX_TARGET) throw new ChioError('CHIO-API-BAD-REQUEST', `the request target is longer than ${MAX_TARGET} characters`);
      const url = new URL(target, 'http://chio.invalid');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, { error: { code: 'CHIO-API-BAD-REQUEST', message: `${req.method} is not allowed: the audit API is read-only` } }, { allow: 'GET, HEAD' });
        return;
      }
      if (url.pathname === '/healthz') {
        send(res, 200, { ok: true });
        return;
      }
      if (!tokenMatches(req.headers.authorization, expected)) throw new ChioError('CHIO-API-UNAUTHORIZED', 'a valid bearer token is required');
      send(res, 200, route(ledger, url));
    } catch (e) {
      sendError(res, e);
    }
  };
}

function route(ledger: Ledger, url: URL): unknown {
  const parts = url.pathname.split('/').slice(1);
  if (parts[0] !== 'v1') throw new ChioError('CHIO-API-NOT-FOUND', `no route ${url.pathname}`);
  const [, area, id, sub, ...rest] = parts;
  if (rest.length === 0) {
    if (area === 'receipts' && id === 'query' && sub === undefined) return queryReceipts(ledger, parseQuery(url.searchParams, ReceiptQuerySchema));
    if (area === 'receipts' && id !== undefined && id !== '' && sub === undefined) {
      parseQuery(url.searchParams, PageSchema.pick({}));
      return receiptById(ledger, segment(id));
    }
    if (area === 'sessions' && id === undefined) return listSessions(ledger, parseQuery(url.searchParams, PageSchema));
    if (area === 'sessions' && id !== undefined && id !== '' && sub === 'receipts') return sessionReceipts(ledger, segment(id), parseQuery(url.searchParams, PageSchema));
    if (area === 'ledger' && id === 'head' && sub === undefined) {
      parseQuery(url.searchParams, PageSchema.pick({}));
      return ledgerHead(ledger);
    }
  }
  throw new ChioError('CHIO-API-NOT-FOUND', `no route ${url.pathname}`);
}
