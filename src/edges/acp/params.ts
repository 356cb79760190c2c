/**
 * Parameter checks for the ACP edge's methods, with the messages upstream's edge gives
 * (`<op> requires params.capabilityId`, …). Every value checked here is attacker-controlled.
 * Verdicts are values: `{ ok: true, value } | { ok: false, message }` (the edge answers −32602).
 * Owns: parameter validation. Imports nothing from the kernel.
 */
export type ParamCheck<T> = { ok: true; value: T } | { ok: false; message: string };

const CONTROL = /[\u0000-\u001f\u007f]/;

/** A required identifier: a string, not empty, not padded, no control characters. */
export function identifier(params: Record<string, unknown>, op: string, key: string): ParamCheck<string> {
  if (!(key in params)) return { ok: false, message: `${op} requires params.${key}` };
  const v = params[key];
  if (typeof v !== 'string') return { ok: false, message: `${op} params.${key} must be a string` };
  if (v.trim() === '') return { ok: false, message: `${op} params.${key} must not be empty` };
  if (v.trim() !== v) return { ok: false, message: `${op} params.${key} must not include leading or trailing whitespace` };
  if (CONTROL.test(v)) return { ok: false, message: `${op} params.${key} must not include control characters` };
  return { ok: true, value: v };
}

/** `{capabilityId, arguments}` of tool/invoke, tool/stream and session/request_permission. */
export function invocation(params: Record<string, unknown>, op: string): ParamCheck<{ capabilityId: string; arguments: Record<string, unknown> }> {
  const id = identifier(params, op, 'capabilityId');
  if (!id.ok) return id;
  const args = params['arguments'] ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { ok: false, message: `${op} params.arguments must be an object` };
  return { ok: true, value: { capabilityId: id.value, arguments: args as Record<string, unknown> } };
}
