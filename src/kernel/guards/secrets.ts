/**
 * Recognising a secret by what a secret looks like, not by the words around it:
 *  - known key formats (cloud, forge, registry, chat and payment tokens, PEM private keys), unless
 *    the key is a documented example or a run of one character (`AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx…`);
 *  - a literal assigned to a name that ends in a secret word (`password`, `api_key`, `token`,
 *    `client_secret`, …) — in code only a quoted literal counts (an unquoted value is an
 *    expression: `password = readPasswordFromPrompt()`), in configuration files a bare value does
 *    too — unless the value is a reference (`process.env.X`, `${X}`, `{{ x }}`, `<%= … %>`), a call,
 *    a placeholder (`YOUR_API_KEY_GOES_HERE`, `<token>`, `changeme`, `xxxx`), or too short or too
 *    uniform to be a secret (fewer than 8 characters, Shannon entropy under 2.5 bits a character).
 * Owns: the formats, the placeholder and reference rules, entropy. Imports nothing. Text is attacker-controlled.
 */

export const DEFAULT_SECRET_FORMATS: Record<string, string> = {
  'aws-access-key': String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,
  'github-token': String.raw`\bgh[pousr]_[A-Za-z0-9]{36,}\b`,
  'github-fine-grained-token': String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}\b`,
  'anthropic-key': String.raw`\bsk-ant-(?:api03-|admin01-)?[A-Za-z0-9_-]{20,}`,
  'openai-key': String.raw`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`,
  'private-key': '-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----',
  'npm-token': String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
  'slack-token': String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
  'stripe-key': String.raw`\b(?:sk|rk)_live_[A-Za-z0-9]{20,}`,
  'google-api-key': String.raw`\bAIza[0-9A-Za-z_-]{35}\b`,
  'gcp-service-account': String.raw`"private_key_id"\s*:\s*"[0-9a-f]{40}"`,
  'azure-storage-key': 'AccountKey=[A-Za-z0-9+/]{80,}={0,2}',
  'gitlab-token': String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
  'sendgrid-key': String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`,
  'slack-webhook': String.raw`https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}`,
  'huggingface-token': String.raw`\bhf_[A-Za-z0-9]{30,}\b`,
  'digitalocean-token': String.raw`\bdo[opr]_v1_[a-f0-9]{64}\b`,
  'shopify-token': String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`,
  'pypi-token': String.raw`\bpypi-AgE[A-Za-z0-9_-]{50,}`,
  jwt: String.raw`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,
  'telegram-bot-token': String.raw`\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b`,
  'twilio-key': String.raw`\bSK[0-9a-fA-F]{32}\b`,
  'putty-private-key': String.raw`PuTTY-User-Key-File-\d`,
  'bearer-token': String.raw`(?i)\bauthorization\b["']?\s*[:=]\s*["']?bearer\s+[A-Za-z0-9._~+/=-]{20,}`,
  'url-credentials': String.raw`\b[a-z][a-z0-9+.-]*://[^\s:/@"'<>]+:([^\s/@"'<>]{6,})@[^\s/"'<>]+`,
};

export interface SecretHit {
  kind: string;
  /** The matched text (report it masked). */
  text: string;
}

const SECRET_NAME =
  '(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|token|auth[_-]?token|access[_-]?token|refresh[_-]?token|passw(?:or)?d|passphrase|pwd|db[_-]?pass|[_.-]pass|private[_-]?key|access[_-]?key(?:[_-]?id)?|credentials?)';
// name ["']? (= | : | := | =>) value, the name ending in a secret word; the value a quoted string or a bare run.
const ASSIGNMENT = new RegExp(
  String.raw`(?<![A-Za-z0-9_])([A-Za-z0-9_.-]*${SECRET_NAME})["']?\s*(?::=|=>|[?+!]?=|:)\s*("[^"\n]*"|'[^'\n]*'|\x60[^\x60\n]*\x60|[^\s,;#}\])]+)`,
  'gi',
);

/** Whole values that are placeholders, not secrets (compared in lower case). */
const PLACEHOLDER_WORDS = new Set([
  'password',
  'passwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'secretkey',
  'secret_key',
  'changeme',
  'change_me',
  'replaceme',
  'replace_me',
  'example',
  'sample',
  'dummy',
  'fake',
  'mock',
  'test',
  'testing',
  'placeholder',
  'todo',
  'tbd',
  'fixme',
  'redacted',
  'hidden',
  'none',
  'null',
  'nil',
  'undefined',
  'false',
  'true',
  'default',
  'admin',
  'root',
  'pass',
  'qwerty',
  'letmein',
  'password123',
  'secret123',
  'mysecret',
  'mypassword',
  'yourpassword',
  'your_password',
  'your-password',
  'notasecret',
  'xxx',
]);
/** Values that say they are examples: a placeholder word followed by a separator (`test-key-123`, `dummy_token`). */
const PLACEHOLDER_PREFIX = /^(?:your|example|sample|dummy|fake|mock|test|placeholder|insert|enter|replace)[-_.]/i;
const PLACEHOLDER_INSIDE =
  /your[_-]|[_-]here\b|example|x{4,}|\*{3,}|\.{3}|<[^>]*>|\[[^\]]*\]|changeme|replace[_-]?me|dummy|placeholder/i;
const REFERENCE =
  /^(?:\$|%\(|\{\{|\{%|<%|#\{|@\{|process\.env|import\.meta\.env|os\.environ|os\.getenv|env\(|ENV\[|System\.getenv|Deno\.env|secrets\.|vault:|ref\+|!Ref|!Sub)/;
/** Files where a bare value after `=` or `:` is a literal (configuration, shell, docs), not an expression. */
const CONFIG_EXTENSIONS =
  /\.(?:env|ya?ml|ini|cfg|conf|properties|toml|json|jsonc|txt|md|markdown|rst|tf|tfvars|npmrc|netrc|pgpass|xml|plist|service|sh|bash|zsh|fish|ksh|bashrc|zshrc|profile|bash_profile|envrc|ps1|psm1|bat|cmd|mk|make|dockerfile|cnf|htpasswd)$|(?:^|\/)(?:Dockerfile|Makefile|\.?[a-z]*rc|\.?profile)$/i;

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  const n = [...s].length;
  for (const k of counts.values()) h -= (k / n) * Math.log2(k / n);
  return h;
}

function isPlaceholder(value: string): boolean {
  return (
    PLACEHOLDER_WORDS.has(value.toLowerCase()) ||
    PLACEHOLDER_PREFIX.test(value) ||
    PLACEHOLDER_INSIDE.test(value) ||
    /^(.)\1*$/.test(value)
  );
}

/** A quoted or bare value that could be a secret written in the clear. */
function literalSecret(raw: string, bareCounts: boolean): string | undefined {
  const quoted = /^(["'\x60])(.*)\1$/s.exec(raw);
  if (quoted === null && !bareCounts) return undefined;
  const value = quoted === null ? raw : quoted[2]!;
  if (value.length < 8 || REFERENCE.test(value) || isPlaceholder(value)) return undefined;
  if (quoted === null && /[()]/.test(value)) return undefined; // a call
  if (quoted !== null && /\$\{|\{\{|%\(|#\{/.test(value)) return undefined; // interpolated
  if (shannonEntropy(value) < 2.5) return undefined;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2 || value.length >= 16 ? value : undefined;
}

/**
 * The first secret in `text`, or undefined. `path` (where the text is written) says whether bare
 * values are literals (configuration files) or expressions (code).
 */
export function findSecret(
  text: string,
  formats: ReadonlyArray<[string, RegExp]>,
  path: string | undefined,
  detectAssignments: boolean,
): SecretHit | undefined {
  for (const [kind, re] of formats) {
    re.lastIndex = 0;
    for (const m of text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))) {
      // A documented example (AKIAIOSFODNN7EXAMPLE) or a run of one character (ghp_xxxx…) is not a key.
      // A password inside a URL is judged like an assigned literal (`postgres://app:changeme@…`, `${PASS}` are not secrets).
      if (kind === 'url-credentials') {
        if (literalSecret(decodeURIComponentSafe(m[1] ?? ''), true) !== undefined) return { kind, text: m[0] };
        continue;
      }
      const body = m[0].replace(/^[A-Za-z]+[_-](?:[A-Za-z0-9]+[_-])?/, '');
      if (kind === 'private-key' || !(PLACEHOLDER_INSIDE.test(body) || /^(.)\1*$/.test(body)))
        return { kind, text: m[0] };
    }
  }
  if (!detectAssignments) return undefined;
  const bareCounts =
    path === undefined || CONFIG_EXTENSIONS.test(path) || !/\.[A-Za-z0-9]+$/.test(path.split('/').pop() ?? '');
  for (const m of text.matchAll(ASSIGNMENT)) {
    const value = literalSecret(m[2]!, bareCounts);
    if (value !== undefined) return { kind: 'assigned-secret', text: value };
  }
  return undefined;
}
