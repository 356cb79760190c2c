/**
 * Parameter schemas for the ACP edge's methods (zod), with the messages upstream's edge gives
 * (`<op> requires params.capabilityId`, …). Every value checked here is attacker-controlled.
 * Verdicts are values: `{ ok: true, value } | { ok: false, message }` (the edge answers −32602).
 * Owns: parameter validation. Imports zod only.
 */
import { z } from 'zod';

export type ParamCheck<T> = { ok: true; value: T } | { ok: false; message: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters in attacker-controlled names is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A required identifier: a string, not empty, not padded, no control characters. */
function identifierSchema(op: string, key: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${op} requires params.${key}` : `${op} params.${key} must be a string`,
    })
    .refine((v) => v.trim() !== '', { message: `${op} params.${key} must not be empty`, abort: true })
    .refine((v) => v.trim() === v, {
      message: `${op} params.${key} must not include leading or trailing whitespace`,
      abort: true,
    })
    .refine((v) => !CONTROL.test(v), {
      message: `${op} params.${key} must not include control characters`,
      abort: true,
    });
}

function invocationSchema(op: string) {
  return z.object({
    capabilityId: identifierSchema(op, 'capabilityId'),
    arguments: z.record(z.string(), z.unknown(), { error: `${op} params.arguments must be an object` }).optional(),
  });
}

function check<T>(schema: z.ZodType<T>, params: Record<string, unknown>): ParamCheck<T> {
  const r = schema.safeParse(params);
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, message: r.error.issues[0]?.message ?? 'invalid params' };
}

export function identifier(params: Record<string, unknown>, op: string, key: string): ParamCheck<string> {
  const r = check(z.object({ [key]: identifierSchema(op, key) }), params);
  return r.ok ? { ok: true, value: r.value[key] as string } : r;
}

/** `{capabilityId, arguments}` of tool/invoke, tool/stream and session/request_permission. */
export function invocation(
  params: Record<string, unknown>,
  op: string,
): ParamCheck<{ capabilityId: string; arguments: Record<string, unknown> }> {
  const r = check(invocationSchema(op), params);
  // Arguments are read from the params object itself, not zod's copy: z.record assigns members,
  // and a "__proto__" member (legal JSON) would change the copy (see receipt/schema.ts).
  return r.ok
    ? {
        ok: true,
        value: {
          capabilityId: r.value.capabilityId,
          arguments: (params.arguments ?? {}) as Record<string, unknown>,
        },
      }
    : r;
}
