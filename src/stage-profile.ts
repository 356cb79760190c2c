/**
 * Where a governed call's time goes, stage by stage (parse, authorize, reserve, dispatch, sign,
 * commit, respond), for `npm run bench -- --profile`. Off unless the environment variable
 * CHIO_STAGE_PROFILE names a file: then each boundary a call crosses is stamped (process-wide, so
 * the figures are meaningful with one call in flight, which is how the bench runs it) and the
 * totals are written to that file as JSON when the process exits. When off, a stamp is one boolean test.
 * Owns: the stage stamps and their totals. Imports node: only; every layer may import it.
 */
import { writeFileSync } from 'node:fs';

/** The boundaries, in the order a call crosses them; each stage ends at its boundary and starts at the previous one. */
export const STAGES = ['parse', 'authorize', 'reserve', 'dispatch', 'sign', 'commit', 'respond'] as const;
export type Stage = (typeof STAGES)[number];
/** The boundary a call starts at: a message arrived and was parsed as JSON (the parse stage is what follows: JSON-RPC shape, params, tool lookup). */
export type Boundary = 'received' | Stage;

const file = process.env.CHIO_STAGE_PROFILE;
const enabled = file !== undefined && file !== '';
const totals: Record<Stage, { ns: number; count: number }> = Object.fromEntries(
  STAGES.map((s) => [s, { ns: 0, count: 0 }]),
) as never;
let last: bigint | undefined;
let previous: Boundary | undefined;

/**
 * Stamps a boundary: the time since the previous stamp is added to `boundary`'s stage when the
 * previous stamp was the boundary just before it (`received` starts a call). Anything else (a
 * ping, a denied call that skips stages) adds nothing, so the totals are of whole allowed calls.
 */
export function stamp(boundary: Boundary): void {
  if (!enabled) return;
  const now = process.hrtime.bigint();
  if (boundary !== 'received') {
    const index = STAGES.indexOf(boundary);
    if (last !== undefined && previous === (index === 0 ? 'received' : STAGES[index - 1])) {
      const t = totals[boundary];
      t.ns += Number(now - last);
      t.count++;
    }
  }
  last = now;
  previous = boundary;
}

if (enabled) {
  process.on('exit', () => {
    try {
      writeFileSync(
        file!,
        JSON.stringify({ stages: STAGES.map((s) => ({ stage: s, ns: totals[s].ns, count: totals[s].count })) }),
      );
    } catch {
      // a profile that cannot be written is not worth failing the process for
    }
  });
}
