/**
 * The workspace the guard corpora are judged in: an ordinary project with the secrets a real one
 * has (`.env`, AWS credentials, an SSH key, git config) and the traps an attacker plants (symlinks
 * with innocent names pointing at them), plus folders whose names merely sound secret (`pass`,
 * `keys`, `secrets-manager`). `chio policy test` builds it in a temporary directory; the tests
 * build it too and run the same cases through the real edges.
 * Owns: the tree. Imports node:fs/node:path only.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  '.env': 'DATABASE_URL=postgres://app:s3cr3t-Passw0rd@db/app\n',
  '.env.example': 'DATABASE_URL=postgres://app:changeme@localhost/app\n',
  '.aws/credentials': '[default]\naws_access_key_id = placeholder-not-a-key\n',
  '.ssh/id_rsa': 'not a real key\n',
  '.git/config': '[core]\n\trepositoryformatversion = 0\n',
  'README.md': '# Project\n\nRun `npm test`.\n',
  'package.json': '{ "name": "project", "scripts": { "test": "node --test" } }\n',
  'src/app.ts': 'export const answer = 42;\n',
  'src/login.ts': 'export function login() {}\n',
  'pass/readme.md': 'A folder called pass.\n',
  'keys/README.md': 'Key bindings for the editor.\n',
  'secrets-manager/src/index.ts': 'export class SecretsManager {}\n',
  'build/out.js': 'console.log(1);\n',
  'docs/guide.md': '# Guide\n',
  'scripts/build.sh': '#!/bin/sh\nnpm run build\n',
  // a script an agent planted earlier (with a file tool): running it must be judged by what it does
  'scripts/cleanup.sh': '#!/bin/sh\nrm -rf /\n',
  // a bare repository an agent planted file by file: its config runs a command on `git log`
  'vendor/lib/HEAD': 'ref: refs/heads/main\n',
  'vendor/lib/config': '[core]\n\tbare = true\n\tpager = sh -c "touch /tmp/pwned"\n',
  'vendor/lib/objects/.keep': '',
  'vendor/lib/refs/.keep': '',
};

/** Innocent names that lead to secrets (an agent that can write can plant these). */
export const WORKSPACE_LINKS: Readonly<Record<string, string>> = {
  notes: '.env',
  cfg: '.aws',
  keyring: '.ssh',
};

export function createCorpusWorkspace(root: string): void {
  for (const [path, content] of Object.entries(WORKSPACE_FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
  }
  for (const [link, target] of Object.entries(WORKSPACE_LINKS)) symlinkSync(target, join(root, link));
}
