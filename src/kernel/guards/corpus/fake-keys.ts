/**
 * Key-shaped strings for the corpora: each has the exact format of a real credential and a random
 * body (derived from a label, so the corpus is the same on every run), and none is a real key.
 * They are built at run time so no key-shaped literal sits in the source.
 * Owns: the fake keys. Imports node:crypto only.
 */
import { createHash } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function body(label: string, length: number, alphabet = ALNUM): string {
  let out = '';
  for (let i = 0; out.length < length; i++) {
    for (const byte of createHash('sha256').update(`${label}:${i}`).digest()) {
      if (out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export const FAKE_KEYS = {
  aws: ['AK', 'IA'].join('') + body('aws', 16, UPPER_DIGITS),
  github: ['gh', 'p_'].join('') + body('github', 36),
  openai: ['sk', '-proj-'].join('') + body('openai', 48),
  anthropic: ['sk', '-ant-api03-'].join('') + body('anthropic', 40),
  stripe: ['sk', '_live_'].join('') + body('stripe', 24),
  slack: ['xo', 'xb-'].join('') + body('slack', 24),
  gitlab: ['gl', 'pat-'].join('') + body('gitlab', 20),
  npm: ['np', 'm_'].join('') + body('npm', 36),
  google: ['AI', 'za'].join('') + body('google', 35),
  /** A password-like literal: mixed classes, not a placeholder. */
  password: `${body('password', 6)}#${body('password2', 5)}`,
  clientSecret: body('client-secret', 22),
};
