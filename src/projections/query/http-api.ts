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
import type { PgLedger } from '../../ledger/pg/open.js';
import type { CertificateSigner } from '../certificate/index.js';
import { denialSeries, DenialQuerySchema } from './denials.js';
import type { DenialQuery } from './denials.js';
import { PageSchema, parseQuery, ReceiptQuerySchema } from './params.js';
import type { PageQuery, ReceiptQuery } from './params.js';
import {
  checkpoint,
  ledgerHead,
  listSessions,
  queryReceipts,
  receiptById,
  receiptProof,
  sessionCertificate,
  sessionEvidence,
  sessionReceipts,
} from './routes.js';
import {
  checkpointPg,
  denialSeriesPg,
  ledgerHeadPg,
  listSessionsPg,
  queryReceiptsPg,
  receiptByIdPg,
  receiptProofPg,
  sessionCertificatePg,
  sessionEvidencePg,
  sessionReceiptsPg,
} from './routes-pg.js';

export interface AuditApiOptions {
  /** The ledger, opened read-only: an SQLite file, or PostgreSQL (routes-pg.ts). */
  ledger: Ledger | PgLedger;
  /** The bearer token every route but /healthz requires. */
  token: string;
  /** Signs the certificates of /v1/sessions/{id}/certificate; without it that route answers CHIO-CLI-CERT-SIGNER-REQUIRED. */
  certificateSigner?: CertificateSigner | undefined;
}

/** Longest request target accepted: ids and filters are short; anything longer is refused unread. */
const MAX_TARGET = 4096;

const STATUS: Partial<Record<string, number>> = {
  'CHIO-API-UNAUTHORIZED': 401,
  'CHIO-API-BAD-REQUEST': 400,
  'CHIO-API-NOT-FOUND': 404,
  'CHIO-API-LEDGER-UNREADABLE': 503,
  'CHIO-CLI-SESSION-EMPTY': 404,
  'CHIO-PROOF-NOT-FOUND': 404,
  'CHIO-CLI-CERT-SIGNER-REQUIRED': 501,
  'CHIO-EVIDENCE-NO-SESSION': 404,
  'CHIO-EVIDENCE-NO-CHECKPOINT': 409,
};

/** The HTTP status of an error: by code, then by area (a session that cannot be certified, a proof that cannot be made: 422). */
function statusOf(code: string): number {
  return STATUS[code] ?? (/^CHIO-(CERT|PROOF|CHECKPOINT)-/.test(code) ? 422 : 500);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, e: unknown): void {
  const error =
    e instanceof ChioError
      ? e
      : new ChioError(
          'CHIO-API-LEDGER-UNREADABLE',
          `the ledger could not be read: ${(e as Error)?.message ?? String(e)}`,
        );
  const status = statusOf(error.code);
  const help = (ERROR_CATALOGUE as Record<string, { help: string }>)[error.code]?.help;
  send(
    res,
    status,
    { error: { code: error.code, message: error.message, ...(help === undefined ? {} : { help }) } },
    status === 401 ? { 'www-authenticate': 'Bearer realm="chio"' } : {},
  );
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
  if (!options.ledger.readonly)
    throw new ChioError('CHIO-CLI-SERVICE-OPTIONS', 'the audit API reads a ledger opened read-only');
  const expected = createHash('sha256').update(options.token).digest();
  const answers = answersOf(options.ledger, options.certificateSigner);
  return (req, res) => {
    try {
      const target = req.url ?? '/';
      if (target.length > MAX_TARGET)
        throw new ChioError('CHIO-API-BAD-REQUEST', `the request target is longer than ${MAX_TARGET} characters`);
      const url = new URL(target, 'http://chio.invalid');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(
          res,
          405,
          {
            error: {
              code: 'CHIO-API-BAD-REQUEST',
              message: `${req.method} is not allowed: the audit API is read-only`,
            },
          },
          { allow: 'GET, HEAD' },
        );
        return;
      }
      if (url.pathname === '/healthz') {
        send(res, 200, { ok: true });
        return;
      }
      if (!tokenMatches(req.headers.authorization, expected))
        throw new ChioError('CHIO-API-UNAUTHORIZED', 'a valid bearer token is required');
      const answer = route(answers, url);
      if (answer instanceof Promise)
        answer.then(
          (a) => send(res, 200, a),
          (e: unknown) => sendError(res, e),
        );
      else send(res, 200, answer);
    } catch (e) {
      sendError(res, e);
    }
  };
}

/** The route's parts: area, id, sub-resource; any more is no route. Parameters are parsed by each route. */
function parse(url: URL) {
  const parts = url.pathname.split('/').slice(1);
  if (parts[0] !== 'v1') throw new ChioError('CHIO-API-NOT-FOUND', `no route ${url.pathname}`);
  const [, area, rawId, sub, ...rest] = parts;
  if (rest.length > 0) throw new ChioError('CHIO-API-NOT-FOUND', `no route ${url.pathname}`);
  return {
    area,
    rawId,
    sub,
    id: rawId === undefined || rawId === '' ? undefined : segment(rawId),
    page: () => parseQuery(url.searchParams, PageSchema),
    // Routes without parameters refuse any, as the others refuse unknown ones.
    bare: <T>(answer: () => T): T => {
      parseQuery(url.searchParams, PageSchema.pick({}));
      return answer();
    },
  };
}

/** What each route answers, on one store: the SQLite answers (routes.ts) now, the PostgreSQL ones (routes-pg.ts) later. */
interface Answers {
  query(q: ReceiptQuery): unknown;
  receipt(id: string): unknown;
  proof(id: string): unknown;
  sessions(q: PageQuery): unknown;
  sessionReceipts(id: string, q: PageQuery): unknown;
  certificate(id: string): unknown;
  evidence(id: string): unknown;
  denials(q: DenialQuery): unknown;
  head(): unknown;
  checkpoint(): unknown;
}

function answersOf(ledger: Ledger | PgLedger, signer: CertificateSigner | undefined): Answers {
  if ('kind' in ledger) {
    return {
      query: (q) => queryReceiptsPg(ledger, q),
      receipt: (id) => receiptByIdPg(ledger, id),
      proof: (id) => receiptProofPg(ledger, id),
      sessions: (q) => listSessionsPg(ledger, q),
      sessionReceipts: (id, q) => sessionReceiptsPg(ledger, id, q),
      certificate: (id) => sessionCertificatePg(ledger, id, signer),
      evidence: (id) => sessionEvidencePg(ledger, id, signer),
      denials: (q) => denialSeriesPg(ledger, q),
      head: () => ledgerHeadPg(ledger),
      checkpoint: () => checkpointPg(ledger),
    };
  }
  return {
    query: (q) => queryReceipts(ledger, q),
    receipt: (id) => receiptById(ledger, id),
    proof: (id) => receiptProof(ledger, id),
    sessions: (q) => listSessions(ledger, q),
    sessionReceipts: (id, q) => sessionReceipts(ledger, id, q),
    certificate: (id) => sessionCertificate(ledger, id, signer),
    evidence: (id) => sessionEvidence(ledger, id, signer),
    denials: (q) => denialSeries(ledger, q),
    head: () => ledgerHead(ledger),
    checkpoint: () => checkpoint(ledger),
  };
}

/** The route's answer: a value (SQLite) or a promise of one (PostgreSQL). */
function route(answers: Answers, url: URL): unknown {
  const { area, rawId, sub, id, page, bare } = parse(url);
  if (area === 'receipts' && id === 'query' && sub === undefined)
    return answers.query(parseQuery(url.searchParams, ReceiptQuerySchema));
  if (area === 'receipts' && id !== undefined && sub === undefined) return bare(() => answers.receipt(id));
  if (area === 'receipts' && id !== undefined && sub === 'proof') return bare(() => answers.proof(id));
  if (area === 'sessions' && rawId === undefined) return answers.sessions(page());
  if (area === 'sessions' && id !== undefined && sub === 'receipts') return answers.sessionReceipts(id, page());
  if (area === 'sessions' && id !== undefined && sub === 'certificate') return bare(() => answers.certificate(id));
  if (area === 'sessions' && id !== undefined && sub === 'evidence') return bare(() => answers.evidence(id));
  if (area === 'denials' && rawId === undefined)
    return answers.denials(parseQuery(url.searchParams, DenialQuerySchema));
  if (area === 'ledger' && id === 'head' && sub === undefined) return bare(() => answers.head());
  if (area === 'ledger' && id === 'checkpoint' && sub === undefined) return bare(() => answers.checkpoint());
  throw new ChioError('CHIO-API-NOT-FOUND', `no route ${url.pathname}`);
}
