/**
 * Anchor files: signed checkpoint notes appended, one after another, to a file kept outside the
 * ledger (another disk, a git repository, a witness's inbox). A note is written whole and fsynced
 * before the producer goes on; notes are separated by an empty line. Reading splits the file back
 * into notes (C2SP signed-note grammar: body lines, an empty line, one or more `— ` signature
 * lines) without trusting any of them: each is verified by the caller.
 * Owns: the anchor file layout. Imports node:fs and src/input-file.ts; must not import kernel,
 * edges, cli or projections. The file's contents are attacker-controlled.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { ChioError } from '../errors.js';
import { readInputText } from '../input-file.js';

const SIGNATURE_PREFIX = '\u2014 ';

/** Appends one note (ending in `\n`) and an empty separator line; fsynced before it returns. */
export function appendToAnchorFile(path: string, note: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'a', 0o644);
  } catch (e) {
    throw new ChioError(
      'CHIO-CHECKPOINT-ANCHOR-FAILED',
      `cannot open the anchor file ${path}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  try {
    writeSync(fd, `${note}\n`);
    fsyncSync(fd);
  } catch (e) {
    throw new ChioError(
      'CHIO-CHECKPOINT-ANCHOR-FAILED',
      `cannot append to the anchor file ${path}: ${(e as Error).message}`,
      { cause: e },
    );
  } finally {
    closeSync(fd);
  }
}

export interface AnchoredNote {
  /** 1-based line of the note's first line in the file. */
  line: number;
  note: string;
}

/**
 * The notes of an anchor file's text, in order. A block that is not shaped like a signed note
 * (no empty line after its body, no signature line) is returned in `malformed` with its line, so
 * the caller can fail on it rather than skip it.
 */
export function splitAnchorText(text: string): {
  notes: AnchoredNote[];
  malformed: Array<{ line: number; reason: string }>;
} {
  const lines = text.split('\n');
  const notes: AnchoredNote[] = [];
  const malformed: Array<{ line: number; reason: string }> = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i] === '') {
      i++;
      continue;
    }
    const start = i;
    const body: string[] = [];
    while (i < lines.length && lines[i] !== '' && !lines[i]!.startsWith(SIGNATURE_PREFIX)) body.push(lines[i++]!);
    if (i >= lines.length || lines[i] !== '') {
      malformed.push({ line: start + 1, reason: 'a note body not followed by an empty line and its signatures' });
      while (i < lines.length && lines[i] !== '') i++;
      continue;
    }
    i++;
    const signatures: string[] = [];
    while (i < lines.length && lines[i]!.startsWith(SIGNATURE_PREFIX)) signatures.push(lines[i++]!);
    if (signatures.length === 0) {
      malformed.push({ line: start + 1, reason: 'a note without a signature line' });
      continue;
    }
    notes.push({ line: start + 1, note: `${body.join('\n')}\n\n${signatures.join('\n')}\n` });
  }
  return { notes, malformed };
}

/** Reads an anchor file the user named (regular file, size-capped) and splits it into notes. */
export function readAnchorFile(path: string): ReturnType<typeof splitAnchorText> {
  return splitAnchorText(readInputText(path, 'anchor', 'anchor file'));
}
