/**
 * The producers' checkpoint flags (`chio mcp serve`, `serve-http`, `acp proxy`): how often the
 * kernel signs a checkpoint of the ledger while it appends, and the anchor file each new note is
 * appended to (DESIGN §10). On by default: every 1000 entries, every 60 s while the ledger grows,
 * and at a clean shutdown.
 * Owns: these flags and their translation to KernelOptions.checkpoints. Imports src/kernel types.
 */
import { z } from 'zod';
import type { CheckpointSchedule } from '../src/kernel/index.js';
import { DEFAULT_CHECKPOINT_EVERY_ENTRIES, DEFAULT_CHECKPOINT_EVERY_SECONDS } from '../src/kernel/index.js';
import { parseFlag } from './options.js';

export interface CheckpointArgs {
  checkpoints: boolean;
  'checkpoint-every': number;
  'checkpoint-interval': number;
  'anchor-file'?: string;
}

export const checkpointOptions = {
  checkpoints: {
    type: 'boolean',
    default: true,
    describe: 'sign checkpoints of the ledger while appending (--no-checkpoints: none)',
  },
  'checkpoint-every': {
    type: 'number',
    default: DEFAULT_CHECKPOINT_EVERY_ENTRIES,
    describe: 'sign a checkpoint every this many entries',
  },
  'checkpoint-interval': {
    type: 'number',
    default: DEFAULT_CHECKPOINT_EVERY_SECONDS,
    describe: 'and every this many seconds while the ledger grows (and at shutdown)',
  },
  'anchor-file': {
    type: 'string',
    describe: "append every new checkpoint note to this file (keep it where the ledger's operator cannot rewrite it)",
  },
} as const;

const positive = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export function checkpointSchedule(args: CheckpointArgs): CheckpointSchedule | false {
  if (!args.checkpoints) return false;
  return {
    everyEntries: parseFlag('checkpoint-every', positive, args['checkpoint-every']),
    everySeconds: parseFlag('checkpoint-interval', positive, args['checkpoint-interval']),
    ...(args['anchor-file'] === undefined ? {} : { anchorFile: args['anchor-file'] }),
  };
}
