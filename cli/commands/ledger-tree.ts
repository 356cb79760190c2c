/**
 * `chio ledger checkpoint | prove`, and the checkpoint part of `chio ledger verify` (DESIGN §10):
 * sign and store a checkpoint of the ledger's Merkle tree (and append its note to an anchor file),
 * print inclusion and consistency proofs, and check the stored tree, the stored checkpoints and
 * notes kept elsewhere against the entries.
 * Owns: presenting checkpoints, proofs and tree verdicts. Reads through src/ledger and src/projections.
 */
import type { Argv, CommandModule } from 'yargs';
import { parseSeed, signerFromSeed } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { readInputFile } from '../../src/input-file.js';
import { appendToAnchorFile, createCheckpoint, openLedger, readAnchorFile } from '../../src/ledger/index.js';
import { createCheckpointPg, isPostgresUrl, openPgLedger } from '../../src/ledger/pg/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import {
  proveConsistency,
  proveConsistencyPg,
  proveInclusion,
  proveInclusionPg,
  verifyTree,
} from '../../src/projections/checkpoints/index.js';
import type { ExternalNote, TreeVerdict } from '../../src/projections/checkpoints/index.js';
import type { GlobalArgs } from '../options.js';
import { parseFlag, readTextFile } from '../options.js';
import { outJson, writeErr, writeOut } from '../output.js';
import { z } from 'zod';

function signerFrom(seedFile: string) {
  return signerFromSeed(parseSeed(readInputFile(seedFile, 'seed', 'kernel seed file')));
}

/** --checkpoint files and --anchor-file notes, read before the ledger is opened. */
export function externalNotes(
  checkpointFiles: readonly string[],
  anchorFiles: readonly string[],
): { external: ExternalNote[]; malformed: Array<{ source: string; reason: string }> } {
  const external: ExternalNote[] = checkpointFiles.map((f) => ({ source: f, note: readTextFile(f, 'checkpoint') }));
  const malformed: Array<{ source: string; reason: string }> = [];
  for (const f of anchorFiles) {
    const r = readAnchorFile(f);
    if (r.notes.length === 0 && r.malformed.length === 0)
      malformed.push({ source: f, reason: 'the anchor file holds no checkpoint note' });
    for (const n of r.notes) external.push({ source: `${f}:${n.line}`, note: n.note });
    for (const m of r.malformed) malformed.push({ source: `${f}:${m.line}`, reason: m.reason });
  }
  return { external, malformed };
}

/** The tree part of `ledger verify`: FAIL lines (or JSON members) and whether it passed. */
export function treeReport(verdict: TreeVerdict): { lines: string[]; json: Record<string, unknown> } {
  const lines = verdict.failures.map((f) => `FAIL: ${f.source}: ${f.check}: ${f.message}`);
  if (verdict.ok) {
    lines.push(
      `  merkle     tree of ${verdict.treeSize} entries, root ${verdict.root}; ${verdict.checkpoints} stored checkpoint${verdict.checkpoints === 1 ? '' : 's'}${verdict.anchors > 0 ? `, ${verdict.anchors} anchored note${verdict.anchors === 1 ? '' : 's'}` : ''} match the entries`,
    );
  } else if (verdict.largestMatching !== undefined) {
    lines.push(`  the entries still match the checkpoint of size ${verdict.largestMatching}`);
  }
  return {
    lines,
    json: {
      tree_size: verdict.treeSize,
      root: verdict.root,
      checkpoints: verdict.checkpoints,
      anchors: verdict.anchors,
      largest_matching: verdict.largestMatching ?? null,
      failures: verdict.failures.map((f) => ({
        check: f.check,
        source: f.source,
        tree_size: f.treeSize ?? null,
        message: f.message,
      })),
    },
  };
}

/** The caller has refused external notes without trusted keys (ledger.ts, before opening the ledger). */
export function runTreeVerify(
  ledger: Ledger,
  trusted: ReadonlySet<string> | undefined,
  notes: ReturnType<typeof externalNotes>,
): TreeVerdict {
  return verifyTree(ledger, { trustedKeys: trusted, external: notes.external, malformed: notes.malformed });
}

interface CheckpointArgs extends GlobalArgs {
  'kernel-seed-file': string;
  'anchor-file'?: string;
  origin?: string;
}

const checkpoint: CommandModule<GlobalArgs, CheckpointArgs> = {
  command: 'checkpoint',
  describe:
    "Sign and store a checkpoint of the ledger's Merkle tree (C2SP signed note) and print it; --anchor-file appends the note there too",
  builder: (y) =>
    y
      .option('kernel-seed-file', {
        type: 'string',
        demandOption: true,
        describe: 'the kernel key that signs the checkpoint',
      })
      .option('anchor-file', {
        type: 'string',
        describe: "append the note to this file (keep it outside the operator's reach)",
      })
      .option('origin', {
        type: 'string',
        describe: "the note's origin line (default chio-ledger/<first 32 hex of seq 1's entry_hash>)",
      }) as Argv<CheckpointArgs>,
  handler: async (args) => {
    const signer = signerFrom(args['kernel-seed-file']);
    let r;
    if (isPostgresUrl(args['receipt-db'])) {
      const ledger = await openPgLedger(args['receipt-db']);
      try {
        r = await createCheckpointPg(ledger, signer, { origin: args.origin });
      } finally {
        await ledger.close();
      }
    } else {
      const ledger = openLedger(args['receipt-db'], { create: false });
      try {
        r = createCheckpoint(ledger, signer, { origin: args.origin });
      } finally {
        ledger.close();
      }
    }
    if (!r.created && r.checkpoint.signerKey !== signer.publicKeyHex) {
      writeErr(
        `chio: the latest checkpoint already covers all ${r.checkpoint.treeSize} entries and was signed by ${r.checkpoint.signerKey}, not by this key; it is printed unchanged\n`,
      );
    }
    if (args['anchor-file'] !== undefined) appendToAnchorFile(args['anchor-file'], r.checkpoint.note);
    if (args.json)
      outJson({
        tree_size: r.checkpoint.treeSize,
        root_hash: r.checkpoint.rootHash,
        origin: r.checkpoint.origin,
        signer_key: r.checkpoint.signerKey,
        created: r.created,
        note: r.checkpoint.note,
      });
    else writeOut(r.checkpoint.note);
  },
};

interface ProveArgs extends GlobalArgs {
  'receipt-id'?: string;
  'tree-size'?: number;
  consistency: boolean;
  'old-size'?: number;
  'new-size'?: number;
}

const sizeFlag = (flag: string, v: unknown) =>
  v === undefined ? undefined : parseFlag(flag, z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), v);

const prove: CommandModule<GlobalArgs, ProveArgs> = {
  command: 'prove',
  describe:
    'Print an inclusion proof (--receipt-id) or a consistency proof (--consistency --old-size M [--new-size N]) as JSON',
  builder: (y) =>
    y
      .option('receipt-id', { type: 'string', describe: 'the receipt to prove (64 hex)' })
      .option('tree-size', {
        type: 'number',
        describe:
          'prove against the tree of this many entries (default: the latest stored checkpoint that holds it, else the whole ledger)',
      })
      .option('consistency', { type: 'boolean', default: false, describe: 'a consistency proof instead' })
      .option('old-size', { type: 'number', describe: 'with --consistency: the older tree size' })
      .option('new-size', {
        type: 'number',
        describe: 'with --consistency: the newer tree size (default: the whole ledger)',
      }) as Argv<ProveArgs>,
  handler: async (args) => {
    // Flags are checked before anything is opened.
    const oldSize = args.consistency ? sizeFlag('old-size', args['old-size']) : undefined;
    if (args.consistency && oldSize === undefined)
      throw new ChioError('CHIO-CLI-USAGE', 'a consistency proof needs --old-size');
    const id = args['receipt-id'];
    if (!args.consistency) {
      if (id === undefined)
        throw new ChioError('CHIO-CLI-USAGE', 'name the receipt: --receipt-id <id> (or --consistency --old-size M)');
      parseFlag('receipt-id', z.string().regex(/^[0-9a-f]{64}$/, 'a receipt id is 64 lowercase hex characters'), id);
    }
    const newSize = sizeFlag('new-size', args['new-size']);
    const treeSize = sizeFlag('tree-size', args['tree-size']);
    if (isPostgresUrl(args['receipt-db'])) {
      const ledger = await openPgLedger(args['receipt-db'], { readonly: true });
      try {
        outJson(
          args.consistency
            ? await proveConsistencyPg(ledger, oldSize!, newSize)
            : await proveInclusionPg(ledger, { receiptId: id! }, { treeSize }),
        );
      } finally {
        await ledger.close();
      }
      return;
    }
    const ledger = openLedger(args['receipt-db'], { readonly: true });
    try {
      outJson(
        args.consistency
          ? proveConsistency(ledger, oldSize!, newSize)
          : proveInclusion(ledger, { receiptId: id! }, { treeSize }),
      );
    } finally {
      ledger.close();
    }
  },
};

export const ledgerTreeCommands = [checkpoint, prove] as const;
