// Checkpoint notes (DESIGN §10; C2SP tlog-checkpoint in a C2SP signed-note): the exact bytes Chio
// signs, the key hash recomputed here with node:crypto, verification under trusted keys matched by
// (key name, key hash), hostile notes refused as values, and notes made by the Go implementations
// (golang.org/x/mod/sumdb/note, transparency-dev/formats) verified byte for byte.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkpointText,
  defaultOrigin,
  fromHex,
  noteKeyHash,
  parseCheckpointNote,
  referenceEd25519,
  signCheckpoint,
  signerFromSeed,
  toHex,
  verifyCheckpointNote,
  MAX_NOTE_BYTES,
} from '../../src/crypto/index.js';
import type { CheckpointBody } from '../../src/crypto/index.js';

const SEED = fromHex('0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20');
const kernel = signerFromSeed(SEED);
const other = signerFromSeed(fromHex('2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40'));
const ORIGIN = 'chio-ledger/1e8bdfb75ab6e61a1c2e27e7a4e3f115';
const ROOT = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 0xff);
const BODY: CheckpointBody = { origin: ORIGIN, treeSize: 3, rootHash: ROOT };
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** SHA-256(name || 0x0A || 0x01 || key)[:4], computed without the product's code. */
function keyHashByHand(name: string, publicKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash('sha256')
      .update(Buffer.concat([Buffer.from(name, 'utf8'), Buffer.of(0x0a, 0x01), publicKey]))
      .digest()
      .subarray(0, 4),
  );
}

/** A signature line by `signer` under `name` over `text`, built by hand (any text, any name). */
function lineByHand(name: string, signer: typeof kernel, text: string): string {
  const hash = keyHashByHand(name, fromHex(signer.publicKeyHex));
  return `\u2014 ${name} ${b64(Buffer.concat([hash, signer.sign(text)]))}\n`;
}

/** A C2SP vkey "<name>+<hash hex>+<base64(0x01 || key)>" (its base64 may itself hold '+'). */
function parseVkey(vkey: string): { name: string; hash: string; key: Uint8Array } {
  const [name, hash, ...rest] = vkey.split('+');
  const raw = Buffer.from(rest.join('+'), 'base64');
  expect(raw[0]).toBe(0x01);
  return { name: name!, hash: hash!, key: new Uint8Array(raw.subarray(1)) };
}

/** The seed inside a Go signer key "PRIVATE+KEY+<name>+<hash>+<base64(0x01 || seed)>". */
function seedOfSkey(skey: string): Uint8Array {
  const raw = Buffer.from(skey.split('+').slice(4).join('+'), 'base64');
  expect(raw[0]).toBe(0x01);
  return new Uint8Array(raw.subarray(1));
}

describe('the note Chio signs', () => {
  const note = signCheckpoint(BODY, kernel);
  const text = `${ORIGIN}\n3\n${b64(ROOT)}\n`;

  it('is exactly the three lines, an empty line and one em-dash signature line ending in a newline', () => {
    expect(checkpointText(BODY)).toBe(text);
    const sig = referenceEd25519.sign(SEED, Buffer.from(text, 'utf8'));
    const expected = `${text}\n\u2014 ${ORIGIN} ${b64(Buffer.concat([keyHashByHand(ORIGIN, fromHex(kernel.publicKeyHex)), sig]))}\n`;
    expect(note).toBe(expected);
    const bytes = Buffer.from(note, 'utf8');
    const blank = bytes.indexOf('\n\n');
    expect(blank).toBe(Buffer.byteLength(text) - 1);
    // em dash U+2014 = E2 80 94, then one space, right after the empty line
    expect([...bytes.subarray(blank + 2, blank + 6)]).toEqual([0xe2, 0x80, 0x94, 0x20]);
    expect(bytes.at(-1)).toBe(0x0a);
    expect(note.split('\n')).toHaveLength(6); // origin, size, root, '', signature line, '' after the final newline
  });

  it('signs the three lines with their final newline, and nothing else', () => {
    const line = note.split('\n')[4]!;
    const raw = Buffer.from(line.split(' ')[2]!, 'base64');
    expect(raw).toHaveLength(68);
    const pub = fromHex(kernel.publicKeyHex);
    expect(referenceEd25519.verify(pub, Buffer.from(text), raw.subarray(4))).toBe(true);
    expect(referenceEd25519.verify(pub, Buffer.from(text.slice(0, -1)), raw.subarray(4))).toBe(false);
    expect(referenceEd25519.verify(pub, Buffer.from(`${text}\n`), raw.subarray(4))).toBe(false);
  });

  it('names the key by SHA-256(name || 0x0A || 0x01 || key)[:4], recomputed by hand', () => {
    const pub = fromHex(kernel.publicKeyHex);
    expect(toHex(noteKeyHash(ORIGIN, pub))).toBe(toHex(keyHashByHand(ORIGIN, pub)));
    const raw = Buffer.from(note.split('\n')[4]!.split(' ')[2]!, 'base64');
    expect(toHex(raw.subarray(0, 4))).toBe(toHex(keyHashByHand(ORIGIN, pub)));
    // the name is part of the hash: the same key under another name has another id
    expect(toHex(noteKeyHash('chio-ledger/other', pub))).not.toBe(toHex(noteKeyHash(ORIGIN, pub)));
  });

  it('round trips through parse and verifies under the kernel key', () => {
    const parsed = parseCheckpointNote(note);
    expect(parsed).toEqual({
      ok: true,
      body: BODY,
      text,
      signatures: [
        {
          keyName: ORIGIN,
          keyHash: keyHashByHand(ORIGIN, fromHex(kernel.publicKeyHex)),
          signature: expect.any(Uint8Array),
        },
      ],
    });
    expect(verifyCheckpointNote(note, [kernel.publicKeyHex])).toEqual({
      ok: true,
      body: BODY,
      signerKey: kernel.publicKeyHex,
    });
    expect(verifyCheckpointNote(Buffer.from(note, 'utf8'), [kernel.publicKeyHex.toUpperCase()])).toEqual({
      ok: true,
      body: BODY,
      signerKey: kernel.publicKeyHex,
    });
  });

  it('uses another key name when asked, and the verifier must then be told that name', () => {
    const named = signCheckpoint(BODY, kernel, 'kernel.example/k1');
    expect(named).toContain('\n\u2014 kernel.example/k1 ');
    expect(verifyCheckpointNote(named, [kernel.publicKeyHex], { keyName: 'kernel.example/k1' }).ok).toBe(true);
    const byOrigin = verifyCheckpointNote(named, [kernel.publicKeyHex]);
    expect(byOrigin).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no signature line is by a trusted key'),
    });
  });

  it("the default origin is chio-ledger/ and the first 32 hex characters of seq 1's entry_hash", () => {
    expect(defaultOrigin('1e8bdfb75ab6e61a1c2e27e7a4e3f115365e3bea2909a00eb4664d69c0680a6a')).toBe(ORIGIN);
    for (const bad of [
      '',
      '1e8b',
      '1E8BDFB75AB6E61A1C2E27E7A4E3F115365E3BEA2909A00EB4664D69C0680A6A',
      `${'0'.repeat(64)}0`,
    ]) {
      expect(() => defaultOrigin(bad)).toThrow(RangeError);
    }
  });

  it('refuses to write a checkpoint it could not parse back (RangeError)', () => {
    const bad: Array<Partial<CheckpointBody>> = [
      { origin: '' },
      { origin: 'a b' },
      { origin: 'a+b' },
      { origin: 'a\nb' },
      { origin: 'a\u0000b' },
      { origin: 'a\u00a0b' },
      { origin: 'a\u2028b' },
      { origin: 'a\u007fb' },
      { origin: 'a\ufffdb' },
      { origin: 'a\ud800b' },
      { origin: 'x'.repeat(1025) },
      { treeSize: -1 },
      { treeSize: 1.5 },
      { treeSize: 2 ** 53 },
      { treeSize: Number.NaN },
      { treeSize: '3' as unknown as number },
      { rootHash: new Uint8Array(31) },
      { rootHash: new Uint8Array(33) },
      { rootHash: Array.from(ROOT) as unknown as Uint8Array },
    ];
    for (const change of bad) {
      expect(() => checkpointText({ ...BODY, ...change }), JSON.stringify(change)).toThrow(RangeError);
      expect(() => signCheckpoint({ ...BODY, ...change }, kernel), JSON.stringify(change)).toThrow(RangeError);
    }
    expect(() => signCheckpoint(BODY, kernel, 'two words')).toThrow(RangeError);
    expect(() => noteKeyHash(ORIGIN, new Uint8Array(31))).toThrow(RangeError);
    expect(checkpointText({ ...BODY, treeSize: 0 })).toBe(`${ORIGIN}\n0\n${b64(ROOT)}\n`);
    expect(checkpointText({ ...BODY, treeSize: 2 ** 53 - 1 })).toContain('\n9007199254740991\n');
  });
});

describe('verification under trusted keys', () => {
  const note = signCheckpoint(BODY, kernel);
  const [text, sigLine] = [note.slice(0, note.indexOf('\n\n') + 1), note.slice(note.indexOf('\n\n') + 2)];

  it('a note signed by an untrusted key fails, naming the key name and key hash it looked for', () => {
    const result = verifyCheckpointNote(signCheckpoint(BODY, other), [kernel.publicKeyHex]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain('no signature line is by a trusted key');
    expect(result.reason).toContain(toHex(keyHashByHand(ORIGIN, fromHex(kernel.publicKeyHex))));
  });

  it("the trusted key's signature over a tampered size, root or origin fails", () => {
    const tamper = (from: string, to: string) => note.replace(from, to);
    const otherRoot = b64(ROOT.map((b, i) => (i === 0 ? b ^ 1 : b)));
    for (const forged of [tamper('\n3\n', '\n2\n'), tamper('\n3\n', '\n4\n'), tamper(b64(ROOT), otherRoot)]) {
      expect(forged).not.toBe(note);
      expect(parseCheckpointNote(forged).ok).toBe(true);
      const result = verifyCheckpointNote(forged, [kernel.publicKeyHex]);
      expect(result).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/is by trusted key [0-9a-f]{64} but does not verify/),
      });
    }
    // Another origin is another default key name, so the line is not even by the expected key…
    const moved = `chio-ledger/ffffffffffffffffffffffffffffffff${note.slice(ORIGIN.length)}`;
    expect(verifyCheckpointNote(moved, [kernel.publicKeyHex])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no signature line is by a trusted key'),
    });
    // …and naming the original key explicitly shows the signature does not cover the new origin.
    expect(verifyCheckpointNote(moved, [kernel.publicKeyHex], { keyName: ORIGIN })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('does not verify'),
    });
  });

  it("a line with the trusted key's name and key hash but a bad signature fails the note, even beside a good one", () => {
    const raw = Buffer.from(sigLine.trimEnd().split(' ')[2]!, 'base64');
    raw[40]! ^= 0x01;
    const bad = `\u2014 ${ORIGIN} ${b64(raw)}\n`;
    expect(verifyCheckpointNote(`${text}\n${bad}`, [kernel.publicKeyHex])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature line 1'),
    });
    expect(verifyCheckpointNote(`${text}\n${sigLine}${bad}`, [kernel.publicKeyHex])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature line 2'),
    });
    expect(verifyCheckpointNote(`${text}\n${bad}${sigLine}`, [kernel.publicKeyHex]).ok).toBe(false);
    // a known key whose line holds something other than a 64-byte Ed25519 signature
    const short = `\u2014 ${ORIGIN} ${b64(Buffer.concat([raw.subarray(0, 4), raw.subarray(4, 40)]))}\n`;
    expect(verifyCheckpointNote(`${text}\n${sigLine}${short}`, [kernel.publicKeyHex])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not a 64-byte Ed25519 signature'),
    });
  });

  it('signature lines by unknown keys are ignored, even sharing the name or the key hash (not both) with a trusted key', () => {
    const witness = lineByHand('witness.example/w1', other, text);
    const sameNameOtherKey = lineByHand(ORIGIN, other, text);
    // The trusted key's id under the origin, on a line that names something else, with garbage after it.
    const sameHashOtherName = `\u2014 impostor ${b64(Buffer.concat([keyHashByHand(ORIGIN, fromHex(kernel.publicKeyHex)), new Uint8Array(64)]))}\n`;
    const otherType = `\u2014 pq.example ${b64(new Uint8Array(4 + 2420).fill(9))}\n`;
    const full = `${text}\n${witness}${sameNameOtherKey}${sameHashOtherName}${otherType}${sigLine}${witness}`;
    expect(parseCheckpointNote(full)).toMatchObject({ ok: true, signatures: { length: 6 } });
    expect(verifyCheckpointNote(full, [kernel.publicKeyHex])).toEqual({
      ok: true,
      body: BODY,
      signerKey: kernel.publicKeyHex,
    });
    // Both keys trusted: the first verifying line in note order names the signer.
    expect(verifyCheckpointNote(full, [kernel.publicKeyHex, other.publicKeyHex])).toMatchObject({
      ok: true,
      signerKey: other.publicKeyHex,
    });
    // Without the trusted key's own line, the unknown ones prove nothing.
    expect(
      verifyCheckpointNote(`${text}\n${witness}${sameNameOtherKey}${sameHashOtherName}`, [kernel.publicKeyHex]).ok,
    ).toBe(false);
  });

  it('accepts up to 100 signature lines (C2SP: at least 16) and refuses 101', () => {
    const witness = lineByHand('witness.example/w1', other, text);
    expect(verifyCheckpointNote(`${text}\n${witness.repeat(15)}${sigLine}`, [kernel.publicKeyHex]).ok).toBe(true);
    expect(verifyCheckpointNote(`${text}\n${witness.repeat(99)}${sigLine}`, [kernel.publicKeyHex]).ok).toBe(true);
    expect(verifyCheckpointNote(`${text}\n${witness.repeat(100)}${sigLine}`, [kernel.publicKeyHex])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('101 signature lines'),
    });
  });

  it('bad trusted keys and names are refused as values, never thrown', () => {
    expect(verifyCheckpointNote(note, [])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no trusted keys'),
    });
    expect(verifyCheckpointNote(note, [kernel.publicKeyHex, 'zz'])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('trusted key 2'),
    });
    expect(verifyCheckpointNote(note, [` ${kernel.publicKeyHex}`]).ok).toBe(false);
    expect(verifyCheckpointNote(note, [42 as unknown as string]).ok).toBe(false);
    expect(verifyCheckpointNote(note, 'abc' as unknown as string[]).ok).toBe(false);
    expect(verifyCheckpointNote(note, [kernel.publicKeyHex], { keyName: 'a b' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('spaces'),
    });
    // A small-order "key" (the identity point) is trusted by mistake: it verifies nothing.
    const identity = `01${'00'.repeat(31)}`;
    const forged = `${text}\n\u2014 ${ORIGIN} ${b64(Buffer.concat([keyHashByHand(ORIGIN, fromHex(identity)), fromHex(identity), new Uint8Array(32)]))}\n`;
    expect(verifyCheckpointNote(forged, [identity]).ok).toBe(false);
  });
});

describe('hostile notes are refused with a reason, never thrown', () => {
  const note = signCheckpoint(BODY, kernel);
  const split = note.indexOf('\n\n');
  const text = note.slice(0, split + 1);
  const sigLine = note.slice(split + 2);
  const root = b64(ROOT);
  const lastRootChar = root.at(-2)!;
  const nonCanonicalRoot = `${root.slice(0, -2)}${String.fromCharCode(lastRootChar.charCodeAt(0) + 1)}=`;
  // A root whose base64 has '+' and '/' (fb ef be → "++++", ff ff ff → "////"), written URL-safe.
  const slashy = Uint8Array.from({ length: 32 }, (_, i) => [0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff][i] ?? 0);
  const slashyRoot = b64(slashy);
  const urlSafe = signCheckpoint({ ...BODY, rootHash: slashy }, kernel).replace(
    slashyRoot,
    slashyRoot.replaceAll('+', '-').replaceAll('/', '_'),
  );
  const nonUtf8 = Buffer.concat([Buffer.from(note.slice(0, 5)), Buffer.of(0xff, 0xfe), Buffer.from(note.slice(5))]);

  const cases: Array<[string, unknown, RegExp]> = [
    ['CRLF line endings', note.replaceAll('\n', '\r\n'), /carriage return/],
    ['a CR alone', note.replace('\n3\n', '\n3\r\n'), /carriage return/],
    ['no blank line', `${text}${sigLine}`, /no blank line/],
    ['no signature line', `${text}\n`, /no signature lines/],
    ['no final newline', note.slice(0, -1), /does not end in a newline/],
    ['empty input', '', /no blank line/],
    ['only the text', text, /no blank line/],
    ['leading zeros in the size', note.replace('\n3\n', '\n003\n'), /leading zeros/],
    ['a signed size', note.replace('\n3\n', '\n+3\n'), /not ASCII decimal/],
    ['a size in hex', note.replace('\n3\n', '\n0x3\n'), /not ASCII decimal/],
    ['a non-ASCII digit in the size', note.replace('\n3\n', '\n\u0663\n'), /not ASCII decimal/],
    ['size 2^53', note.replace('\n3\n', '\n9007199254740992\n'), /beyond 2\^53-1/],
    ['a size of 400 digits', note.replace('\n3\n', `\n${'9'.repeat(400)}\n`), /beyond 2\^53-1/],
    ['an empty size', note.replace('\n3\n', '\n\n'), /tree size \(line 2\) of the note text is empty/],
    ['base64 garbage for the root', note.replace(root, '!!not base64!!'), /root hash.*not canonical standard base64/],
    ['URL-safe base64 root', urlSafe, /root hash.*not canonical standard base64/],
    ['root with non-zero padding bits', note.replace(root, nonCanonicalRoot), /root hash.*not canonical/],
    ['root without padding', note.replace(root, root.slice(0, -1)), /root hash.*not canonical/],
    ['a 31-byte root', note.replace(root, b64(ROOT.subarray(1))), /root hash is 31 bytes/],
    ['a space in the root', note.replace(root, `${root.slice(0, 4)} ${root.slice(4)}`), /root hash.*not canonical/],
    [
      'an extension line',
      note.replace(`${root}\n`, `${root}\nextra\n`),
      /1 line\(s\) after the root hash: extension lines are refused/,
    ],
    ['only two lines', note.replace(`\n${root}\n`, '\n'), /2 line\(s\)/],
    ['an empty origin', note.slice(ORIGIN.length), /origin \(line 1\) of the note text is empty/],
    [
      'an empty line inside the text',
      note.replace('\n3\n', '\n\n3\n'),
      /tree size \(line 2\) of the note text is empty/,
    ],
    ['a NUL', note.replace('\n3\n', '\n3\u0000\n'), /control character U\+0000/],
    ['a tab', note.replace(ORIGIN, `${ORIGIN}\t`), /control character U\+0009/],
    ['an escape sequence', note.replace(ORIGIN, `\u001b[31m${ORIGIN}`), /control character U\+001B/],
    ['bytes that are not UTF-8', nonUtf8, /not valid UTF-8/],
    ['bytes that were not UTF-8, decoded to a string', nonUtf8.toString('utf8'), /U\+FFFD/],
    ['a lone surrogate', note.replace(ORIGIN, `${ORIGIN}\ud800`), /lone surrogate/],
    ['1 MB of text', `${'a'.repeat(1 << 20)}${note}`, /at most 131072/],
    ['1 MB as bytes', Buffer.alloc(1 << 20, 0x61), /at most 131072/],
    [
      '127 KiB of 4-byte characters (over the byte bound, under it in code units)',
      `${'😀'.repeat(MAX_NOTE_BYTES / 4 - 10)}${note}`,
      /at most 131072/,
    ],
    ['a hyphen for the em dash', note.replace('\u2014 ', '- '), /em dash/],
    ['an en dash for the em dash', note.replace('\u2014 ', '\u2013 '), /em dash/],
    ['two spaces after the em dash', note.replace('\u2014 ', '\u2014  '), /invalid key name/],
    ['no space before the signature', note.replace(`${ORIGIN} `, ORIGIN), /no space between/],
    ['a + in the key name', note.replace(`\u2014 ${ORIGIN}`, '\u2014 a+b'), /invalid key name/],
    ['a no-break space in the key name', note.replace(`\u2014 ${ORIGIN}`, '\u2014 a\u00a0b'), /invalid key name/],
    [
      'base64 garbage in the signature',
      `${text}\n\u2014 ${ORIGIN} %%%%\n`,
      /signature is not canonical standard base64/,
    ],
    ['a trailing space after the signature', note.replace(/\n$/, ' \n'), /not canonical standard base64/],
    ['an empty signature', `${text}\n\u2014 ${ORIGIN} \n`, /4-byte key ID|not canonical/],
    ['a 4-byte signature', `${text}\n\u2014 ${ORIGIN} AAAAAA==\n`, /4-byte key ID/],
    [
      'a blank line between signature lines',
      `${text}\n${sigLine}\n${sigLine}`,
      /line 4 of the note text is empty.*last blank line/,
    ],
    ['null', null, /a note is text/],
    ['a number', 42, /a note is text/],
    ['an object', { toString: () => note }, /a note is text/],
  ];

  for (const [name, input, reason] of cases) {
    it(name, () => {
      const parsed = parseCheckpointNote(input as string);
      expect(parsed.ok, name).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toMatch(reason);
      const verified = verifyCheckpointNote(input as string, [kernel.publicKeyHex]);
      expect(verified.ok, name).toBe(false);
    });
  }

  it('a reason quotes attacker text escaped and truncated: no terminal controls, no bidi overrides, no megabyte echo', () => {
    const hostile = `\u202e${'x'.repeat(5000)}`;
    const parsed = parseCheckpointNote(note.replace(`\u2014 ${ORIGIN}`, `\u2014 a+${hostile}`));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reason).not.toContain('\u202e');
    expect(parsed.reason).toContain('\\u{202e}');
    expect(parsed.reason.length).toBeLessThan(300);
  });

  it('a U+FEFF byte-order mark is part of the origin, not skipped: it no longer names the kernel key', () => {
    const withBom = Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(note)]);
    const parsed = parseCheckpointNote(withBom);
    expect(parsed).toMatchObject({ ok: true, body: { origin: `\ufeff${ORIGIN}` } });
    expect(verifyCheckpointNote(withBom, [kernel.publicKeyHex]).ok).toBe(false);
  });
});

describe('notes made by the Go implementations', () => {
  // golang.org/x/mod@HEAD sumdb/note/note_test.go, transparency-dev/formats@HEAD log/note_test.go:
  // a checkpoint of the Go checksum database signed by sum.golang.org, and witness cosignatures
  // over the same text from the BenchmarkParse cases (the random1/random2 lines are unknown keys
  // reusing the witness signature bytes).
  const SUMDB_VKEY = 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8';
  const SUMDB_NOTE =
    'go.sum database tree\n6476701\nmb8QLQIs0Z0yP5Cstq6guj87oXWeC9gEM8oVikmm9Wk=\n\n\u2014 sum.golang.org Az3grsLX85Gz+s1SiTbgkuqxgItqFq7gsMUEyVnrsa9LM7Us9S+1xbFIGu95949rj4nPRYfvimWEPWL+o3GeoWwOoAw=\n';
  const WITNESSES = [
    [
      'monkeys+db4d9f7e+AULaJMvTtDLHPUcUrjdDad9vDlh/PTfC2VV60JUtCfWT',
      '\u2014 monkeys 202ffh9ve46Mqbhuyb4wnC2Pwdan5EsXQym/tF1ggXJqhjGosU4T5intH4iKMRgDLxrnXuIjRaU2NbvAnaepM6Y+8ww=',
    ],
    [
      'bananas+cf639f13+AaPjhFnPCQnid/Ql32KWhmh+uk72FVRfK+2DLmO3BI3M',
      '\u2014 bananas z2OfE+2bbsBZ7NLgfuslc0v7NFW2QyexJ7fhePpoL2N/P7N/COd5S+JNHbQEAlYzz2C5sg0E+x/MggS1mDR6t3/9rQw=',
    ],
    [
      'witness+f13a86db+AdYV1Ztajd9BvyjP2HgpwrqYL6TjOwIjGMOq8Bu42xbN',
      '\u2014 witness 8TqG25yWGFLdT7WPf/WoyeG3LwqtkXP+8S3yykOVm6EMh4hPgCke6eSVPU4BdtXNMPJBXKF+UpDbGgCdcpR8SVSoqAU=',
    ],
  ] as const;
  const UNKNOWN = [
    '\u2014 random1 8TqG25yWGFLdT7WPf/WoyeG3LwqtkXP+8S3yykOVm6EMh4hPgCke6eSVPU4BdtXNMPJBXKF+UpDbGgCdcpR8SVSoqAU=',
    '\u2014 random2 8TqG25yWGFLdT7WPf/WoyeG3LwqtkXP+8S3yykOVm6EMh4hPgCke6eSVPU4BdtXNMPJBXKF+UpDbGgCdcpR8SVSoqAU=',
  ];
  const cosigned = `${SUMDB_NOTE}${[...WITNESSES.map(([, line]) => line), ...UNKNOWN].join('\n')}\n`;

  it('the key hashes of Go vkeys are the ones Chio computes', () => {
    for (const vkey of [
      SUMDB_VKEY,
      ...WITNESSES.map(([v]) => v),
      'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'Log+2271c621+AemuH5ooBpEPcr+W8onrjA1NfuzBVHdezakU81Ekarvs',
    ]) {
      const { name, hash, key } = parseVkey(vkey);
      expect(toHex(noteKeyHash(name, key)), vkey).toBe(hash);
    }
  });

  it('verifies the sum.golang.org checkpoint under its key, told the key name (the origin has spaces)', () => {
    const { name, key } = parseVkey(SUMDB_VKEY);
    const result = verifyCheckpointNote(SUMDB_NOTE, [toHex(key)], { keyName: name });
    expect(result).toEqual({
      ok: true,
      body: {
        origin: 'go.sum database tree',
        treeSize: 6476701,
        rootHash: new Uint8Array(Buffer.from('mb8QLQIs0Z0yP5Cstq6guj87oXWeC9gEM8oVikmm9Wk=', 'base64')),
      },
      signerKey: toHex(key),
    });
    expect(verifyCheckpointNote(SUMDB_NOTE, [toHex(key)])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('give the expected key name'),
    });
    expect(
      verifyCheckpointNote(SUMDB_NOTE.replace('6476701', '6476702'), [toHex(key)], { keyName: name }),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('does not verify') });
  });

  it('verifies each Go witness cosignature, and ignores the other lines', () => {
    expect(parseCheckpointNote(cosigned)).toMatchObject({ ok: true, signatures: { length: 6 } });
    for (const [vkey] of WITNESSES) {
      const { name, key } = parseVkey(vkey);
      expect(verifyCheckpointNote(cosigned, [toHex(key)], { keyName: name }), vkey).toMatchObject({
        ok: true,
        signerKey: toHex(key),
        body: { treeSize: 6476701 },
      });
    }
  });

  it('a Chio signature under a Go signer key gives the key hash and public key of its Go vkey', () => {
    const signer = signerFromSeed(seedOfSkey('PRIVATE+KEY+Log+2271c621+AdEIq9FLRQni54Wg68T96VJO+iayOaulswav2DUMKgvQ'));
    const { key } = parseVkey('Log+2271c621+AemuH5ooBpEPcr+W8onrjA1NfuzBVHdezakU81Ekarvs');
    expect(signer.publicKeyHex).toBe(toHex(key));
    const note = signCheckpoint({ origin: 'Log', treeSize: 42, rootHash: ROOT }, signer);
    expect(toHex(Buffer.from(note.trimEnd().split(' ').at(-1)!, 'base64').subarray(0, 4))).toBe('2271c621');
    expect(verifyCheckpointNote(note, [toHex(key)]).ok).toBe(true);
  });
});
