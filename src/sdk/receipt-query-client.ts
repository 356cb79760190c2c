/**
 * `ReceiptQueryClient`: the audit API's client (DESIGN §12) — receipt queries, one receipt by id,
 * and every page of a query as an async iterator. Answers are checked with zod before they are
 * typed: the service is a network peer, and a proxy or a stale build between could send anything.
 * Owns: the API's wire shapes on the client side. Imports node/zod and src/errors only.
 */
import { z } from 'zod';
import { ChioError, ERROR_CATALOGUE } from '../errors.js';
import type { ChioErrorCode } from '../errors.js';

export interface ReceiptQuery {
  toolServer?: string;
  toolName?: string;
  capabilityId?: string;
  sessionId?: string;
  outcome?: 'allow' | 'deny' | 'cancelled' | 'incomplete';
  /** Unix seconds or an ISO 8601 date-time with its offset. */
  since?: number | string;
  until?: number | string;
  /** Receipts per page, 1–1000 (the service's default is 50). */
  limit?: number;
  /** The previous page's nextCursor. */
  cursor?: number;
}

/** A signed receipt as served: its members are the receipt's (chio.receipt.v1); `id` always present. */
const ServedReceiptSchema = z.looseObject({
  id: z.string(),
  timestamp: z.number(),
  tool_server: z.string(),
  tool_name: z.string(),
  signature: z.string(),
});
export type ServedReceipt = z.infer<typeof ServedReceiptSchema>;

const ReceiptPageSchema = z.object({
  receipts: z.array(ServedReceiptSchema),
  totalCount: z.number().int().nonnegative(),
  nextCursor: z.number().int().nullable(),
});
export type ReceiptPage = z.infer<typeof ReceiptPageSchema>;

const ReceiptDetailSchema = z.object({
  receipt: ServedReceiptSchema,
  position: z.object({
    seq: z.number().int(),
    sessionId: z.string().nullable(),
    sessionPrevSeq: z.number().int().nullable(),
    prevHash: z.string(),
    entryHash: z.string(),
    producer: z.string(),
  }),
  verification: z.object({ ok: z.boolean(), signature: z.string(), entryHash: z.string() }),
});
export type ReceiptDetail = z.infer<typeof ReceiptDetailSchema>;

const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function fault(message: string, cause?: unknown): ChioError {
  return new ChioError('CHIO-SDK-RESPONSE', message, cause === undefined ? undefined : { cause });
}

export class ReceiptQueryClient {
  private readonly base: URL;

  /** `url`: the service (`chio serve`) or a hosted edge's base URL; `token`: its bearer token. */
  constructor(
    url: string,
    private readonly token: string,
  ) {
    this.base = new URL(url.endsWith('/') ? url : `${url}/`);
  }

  /** One page of receipts matching `q`, in ledger order, with the total over all pages. */
  async query(q: ReceiptQuery = {}): Promise<ReceiptPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(q)) if (value !== undefined) params.set(name, String(value));
    return this.get_('v1/receipts/query', params, ReceiptPageSchema);
  }

  /** One receipt by its exact id, with its chain position and the service's verification verdict. */
  async get(id: string): Promise<ReceiptDetail> {
    return this.get_(`v1/receipts/${encodeURIComponent(id)}`, new URLSearchParams(), ReceiptDetailSchema);
  }

  /** Every receipt matching `q` (cursor and all), page by page. */
  async *all(q: Omit<ReceiptQuery, 'cursor'> = {}): AsyncGenerator<ServedReceipt> {
    let cursor: number | undefined;
    do {
      const page = await this.query({ ...q, ...(cursor === undefined ? {} : { cursor }) });
      yield* page.receipts;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  private async get_<S extends z.ZodType>(path: string, params: URLSearchParams, schema: S): Promise<z.infer<S>> {
    const url = new URL(path, this.base);
    url.search = params.toString();
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' } });
    } catch (e) {
      throw fault(`cannot reach the audit API at ${this.base.href}: ${(e as Error).message}`, e);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch (e) {
      throw fault(`the audit API answered ${res.status} without JSON`, e);
    }
    if (!res.ok) {
      const err = ErrorBodySchema.safeParse(body);
      // The service's own code when it is one Chio knows; anything else is the SDK's.
      if (err.success && Object.hasOwn(ERROR_CATALOGUE, err.data.error.code))
        throw new ChioError(err.data.error.code as ChioErrorCode, err.data.error.message);
      throw fault(
        `the audit API answered ${res.status}${err.success ? `: ${err.data.error.code}: ${err.data.error.message}` : ''}`,
      );
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw fault(
        `the audit API's answer is not what this SDK expects: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      );
    return parsed.data;
  }
}
