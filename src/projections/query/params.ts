/**
 * The audit API's query strings as zod schemas (DESIGN §12). Everything here arrives from the
 * network: attacker-controlled. A parameter given twice, one the route does not know, or one out
 * of range is refused with its name, never guessed at.
 * Owns: parameter names, ranges and their parsing. Imports zod and src/errors only.
 */
import { z } from 'zod';
import { ChioError } from '../../errors.js';

/** Receipts or sessions per page at most: a page is one JSON response held in memory. */
export const MAX_PAGE = 1000;
const DEFAULT_PAGE = 50;

const label = z.string().min(1).max(256);
export const whole = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
/** Unix seconds, or an ISO 8601 date-time with its offset (as `chio receipt list` takes them). */
export const timeParameter = z
  .string()
  .max(64)
  .transform((text, ctx) => {
    if (/^\d{1,12}$/.test(text)) return Number(text);
    const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
      ? Date.parse(text)
      : Number.NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: 'Unix seconds or an ISO 8601 date-time with Z or an offset' });
      return z.NEVER;
    }
    return Math.floor(ms / 1000);
  });
const page = {
  limit: whole(1, MAX_PAGE).default(DEFAULT_PAGE),
  cursor: whole(0, Number.MAX_SAFE_INTEGER).optional(),
};

export const ReceiptQuerySchema = z.strictObject({
  toolServer: label.optional(),
  toolName: label.optional(),
  capabilityId: label.optional(),
  sessionId: label.optional(),
  outcome: z.enum(['allow', 'deny', 'cancelled', 'incomplete']).optional(),
  since: timeParameter.optional(),
  until: timeParameter.optional(),
  ...page,
});
export type ReceiptQuery = z.infer<typeof ReceiptQuerySchema>;

export const PageSchema = z.strictObject(page);
export type PageQuery = z.infer<typeof PageSchema>;

/**
 * The query string as one value per name, checked by `schema`; throws CHIO-API-BAD-REQUEST naming
 * the parameter (a repeated one included: which of two limits would count is not for us to pick).
 */
export function parseQuery<S extends z.ZodType>(search: URLSearchParams, schema: S): z.infer<S> {
  const raw: Record<string, string> = {};
  for (const [name, value] of search) {
    if (Object.hasOwn(raw, name))
      throw new ChioError('CHIO-API-BAD-REQUEST', `query parameter ${JSON.stringify(name)} is given more than once`);
    raw[name] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
    throw new ChioError(
      'CHIO-API-BAD-REQUEST',
      `query parameter ${name}: ${issue.code === 'unrecognized_keys' ? 'not a parameter of this route' : issue.message}`,
    );
  }
  return parsed.data;
}
