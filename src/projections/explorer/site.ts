/**
 * Serves the web explorer (DESIGN §12): the page at `/` and its files under `/explorer/`, all read
 * once from the build's `dist/explorer/` (the page, its compiled scripts, the bundled uPlot). The
 * page holds no data: it asks the audit API with the token its user types, and checks every
 * receipt's signature itself. Nothing is loaded from elsewhere, and the Content-Security-Policy
 * says so to the browser (receipts carry attacker-chosen text; a script they smuggled in would
 * not run).
 * Owns: the explorer's files and their headers. Must not import the ledger.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChioError } from '../../errors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Only the page's own origin, for everything; no inline script or style element, no framing. */
const HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** dist/explorer beside the compiled code (dist/src/projections/explorer → dist/explorer), or, from the sources, the build's. */
function explorerDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [join(here, '../../../explorer'), join(here, '../../../dist/explorer')];
  const found = candidates.find((d) => existsSync(join(d, 'index.html')));
  if (found === undefined)
    throw new ChioError(
      'CHIO-CLI-SERVICE-OPTIONS',
      `the web explorer's files are missing (looked in ${candidates.join(', ')}): run npm run build`,
    );
  return found;
}

/** Every file of the explorer by its URL path, read now: the request path is only ever a key here, never a file name. */
function loadFiles(dir: string): Map<string, { type: string; body: Buffer }> {
  const files = new Map<string, { type: string; body: Buffer }>();
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub === '' ? name : `${sub}/${name}`;
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else if (TYPES[extname(name)] !== undefined && !name.endsWith('.map'))
        files.set(`/explorer/${rel}`, { type: TYPES[extname(name)]!, body: readFileSync(join(dir, rel)) });
    }
  };
  walk('');
  const page = files.get('/explorer/index.html');
  if (page !== undefined) files.set('/', page);
  return files;
}

/** A request handler for the explorer's paths; answers false (untouched) for any other path. */
export function explorerSite(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = loadFiles(explorerDir());
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/' && !path.startsWith('/explorer/')) return false;
    const file = files.get(path);
    if (file === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const status = file === undefined ? 404 : 405;
      res.writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        ...HEADERS,
        ...(status === 405 ? { allow: 'GET, HEAD' } : {}),
      });
      res.end(status === 404 ? 'not found\n' : 'the explorer is read-only\n');
      return true;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length), ...HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
