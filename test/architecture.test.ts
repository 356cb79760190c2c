// DESIGN §3 dependency direction: crypto ← receipt ← ledger ← … ← cli, and third-party packages stay in their area.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every import specifier of a file, internal ones resolved to a repo-relative path. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+'([^']+)'/gm)].map((m) => {
    const spec = m[1]!;
    return spec.startsWith('.') ? relative('.', normalize(join(dirname(file), spec))) : spec;
  });
}

/** Area of a repo path: src/crypto, src/receipt, src/ledger, src (root files), cli, … */
function area(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  return parts.length > 2 ? `src/${parts[1]}` : 'src';
}

const ALLOWED: Record<string, { internal: string[]; external: RegExp }> = {
  'src/crypto': { internal: ['src/crypto', 'src'], external: /^(node:|@noble\/)/ },
  'src/receipt': { internal: ['src/receipt', 'src/crypto', 'src'], external: /^(node:|zod$)/ },
  'src/capability': { internal: ['src/capability', 'src/crypto', 'src'], external: /^(node:|zod$)/ },
  // guard parsing (DESIGN §2): mvdan-sh for shell commands, picomatch for globs, ipaddr.js for addresses
  'src/kernel': {
    internal: ['src/kernel', 'src/ledger', 'src/capability', 'src/receipt', 'src/crypto', 'src'],
    external: /^(node:|zod$|yaml$|picomatch$|ipaddr\.js$|mvdan-sh$)/,
  },
  'src/wire': { internal: ['src/wire'], external: /^(node:|zod$)/ },
  'src/edges': {
    internal: [
      'src/edges',
      'src/wire',
      'src/kernel',
      'src/ledger',
      'src/capability',
      'src/receipt',
      'src/crypto',
      'src',
    ],
    external: /^(node:|zod$|@modelcontextprotocol\/sdk\/)/,
  },
  'src/proxy': {
    internal: [
      'src/proxy',
      'src/wire',
      'src/kernel',
      'src/ledger',
      'src/capability',
      'src/receipt',
      'src/crypto',
      'src',
    ],
    external: /^(node:|zod$)/,
  },
  // the SDK: a client of the edge (over the MCP SDK's client) and of the audit API; never the ledger or the kernel
  'src/sdk': { internal: ['src/sdk', 'src'], external: /^(node:|zod$|@modelcontextprotocol\/sdk\/)/ },
  'src/projections': {
    internal: ['src/projections', 'src/ledger', 'src/receipt', 'src/crypto', 'src'],
    external: /^(node:|zod$)/,
  },
  // the PostgreSQL ledger (src/ledger/pg): the pg driver, and zod for its URL
  'src/ledger': {
    internal: ['src/ledger', 'src/receipt', 'src/crypto', 'src'],
    external: /^(node:|better-sqlite3$|drizzle-orm(\/|$)|pg$|zod$)/,
  },
};

describe('architecture', () => {
  const srcFiles = files('src');

  it('the import scanner sees multi-line and type imports (so the rules below cannot pass vacuously)', () => {
    expect(imports('src/ledger/append.ts')).toEqual(
      expect.arrayContaining(['src/receipt/index.js', 'better-sqlite3', 'src/ledger/open.js']),
    );
    expect(imports('src/index.ts').length).toBeGreaterThan(5);
  });

  for (const [name, rule] of Object.entries(ALLOWED)) {
    it(`${name} imports only what DESIGN §3 allows`, () => {
      const offending: string[] = [];
      const inArea = srcFiles.filter((f) => area(f) === name);
      expect(inArea.length).toBeGreaterThan(2);
      for (const f of inArea) {
        for (const spec of imports(f)) {
          const ok = spec.startsWith('src/') ? rule.internal.includes(area(spec)) : rule.external.test(spec);
          if (!ok) offending.push(`${f} → ${spec}`);
        }
      }
      expect(offending).toEqual([]);
    });
  }

  it('the web explorer (browser code) imports only its own modules: no package, no node:, nothing of the server', () => {
    const web = srcFiles.filter((f) => f.startsWith('src/projections/explorer/web/'));
    expect(web.length).toBeGreaterThan(5);
    const offending = web.flatMap((f) =>
      imports(f)
        .filter((s) => !s.startsWith('src/projections/explorer/web/'))
        .map((s) => `${f} → ${s}`),
    );
    expect(offending).toEqual([]);
    // and the server side never imports the browser code
    const server = srcFiles.filter((f) => !f.startsWith('src/projections/explorer/web/'));
    expect(server.flatMap((f) => imports(f).filter((s) => s.startsWith('src/projections/explorer/web/')))).toEqual([]);
  });

  it('src/errors.ts and the root files import no area below them, and nothing in src imports cli/', () => {
    expect(imports('src/errors.ts')).toEqual([]);
    const toCli = srcFiles.flatMap((f) =>
      imports(f)
        .filter((s) => s.startsWith('cli/'))
        .map((s) => `${f} → ${s}`),
    );
    expect(toCli).toEqual([]);
  });

  it("@noble/* is imported only in src/crypto, and canonicalize (a dev dependency: the tests' JCS reference) nowhere", () => {
    const all = [...srcFiles, ...files('cli')];
    const offending = all.flatMap((f) =>
      imports(f)
        .filter((s) => (/^@noble\//.test(s) && area(f) !== 'src/crypto') || s === 'canonicalize')
        .map((s) => `${f} → ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('no module of src/ or cli/ is imported for its side effects alone (the CLI bundle drops unused modules)', () => {
    // scripts/bundle-cli.mjs marks our compiled modules free of side effects, so a command's chunks
    // leave out every module whose exports it does not use: `import './x.js'` would be dropped.
    const bare = [...srcFiles, ...files('cli')].filter((f) =>
      /^\s*import\s*['"]\.[^'"]*['"]/m.test(readFileSync(f, 'utf8')),
    );
    expect(bare).toEqual([]);
  });

  it('projections never import the append path, on either ledger', () => {
    const offending = srcFiles
      .filter((f) => area(f) === 'src/projections')
      .flatMap((f) =>
        imports(f).filter((s) =>
          /src\/ledger\/(pg\/(append|writer|reservations|copy|any|index)|append|writer|reservations|write-ops)/.test(s),
        ),
      );
    expect(offending).toEqual([]);
  });

  it("drizzle-orm is loaded at run time only through the ledger's two doors, which the build bundles", () => {
    // Node 22 and 24 re-read drizzle-orm's 179 KB exports map for every module loaded from it (src/ledger/drizzle.ts).
    const runtime =
      /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'drizzle-orm[^']*'|\bimport\(\s*'drizzle-orm[^']*'/m;
    const importers = [...srcFiles, ...files('cli')].filter((f) => runtime.test(readFileSync(f, 'utf8')));
    expect(importers.sort()).toEqual(['src/ledger/drizzle.ts', 'src/ledger/pg/drizzle.ts']);
    // Nothing built imports drizzle-orm at run time: the doors hold its code (a shared chunk beside them).
    const jsFiles = (d: string): string[] =>
      readdirSync(d).flatMap((n) => {
        const p = join(d, n);
        return statSync(p).isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : [];
      });
    const importsDrizzle = /^(?:import|export|\})[^\n]*from\s*["']drizzle-orm|\bimport\(\s*["']drizzle-orm/m;
    const builtFiles = [...jsFiles('dist/src'), ...jsFiles('dist/cli')];
    expect(builtFiles.length).toBeGreaterThan(100);
    expect(builtFiles.filter((f) => importsDrizzle.test(readFileSync(f, 'utf8')))).toEqual([]);
    const built = ['dist/src/ledger/drizzle.js', 'dist/src/ledger/pg/drizzle.js'].map((f) => readFileSync(f, 'utf8'));
    for (const text of built) expect(text).toMatch(/from\s*["']\.\.?\/(\.\.\/)?drizzle-core-\w+\.js["']/);
    expect(built[0]).toContain('BetterSQLiteSession');
    expect(built[1]).toContain('NodePgSession');
  });

  it('every module opens with a comment saying what it owns', () => {
    const missing = [...srcFiles, ...files('cli')].filter((f) => !/^(#!.*\n)?\/\*\*/.test(readFileSync(f, 'utf8')));
    expect(missing).toEqual([]);
  });
});

describe('no import circles', () => {
  /** Static, type and dynamic imports of a file, internal ones only, as repo paths of .ts files. */
  function edges(file: string): string[] {
    const text = readFileSync(file, 'utf8');
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    ];
    return specs
      .filter((s) => s.startsWith('.'))
      .map((s) => relative('.', normalize(join(dirname(file), s))).replace(/\.js$/, '.ts'));
  }

  /** Every cycle of a graph (file → the files it imports), found by a depth-first walk, each from where it was entered. */
  function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
    const roots = [...graph.keys()];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const found: string[][] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const t of graph.get(f) ?? []) {
        if (state.get(t) === 'open') found.push([...stack.slice(stack.indexOf(t)), t]);
        else if (state.get(t) === undefined) visit(t);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of roots) if (state.get(f) === undefined) visit(f);
    return found;
  }

  const graphOf = (list: string[]) => new Map(list.map((f) => [f, edges(f).filter((t) => list.includes(t))]));

  it('the scanner sees lazy imports and the walk finds circles (so the rule below cannot pass vacuously)', () => {
    expect(edges('cli/main.ts')).toEqual(expect.arrayContaining(['cli/options.ts', 'cli/commands/ledger.ts']));
    const circle = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(cycles(circle)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('src/ and cli/ import no circle, counting type-only and lazy imports', () => {
    const all = [...files('src'), ...files('cli')].filter((f) => !f.startsWith('src/projections/explorer/web/'));
    expect(cycles(graphOf(all)).map((c) => c.join(' → '))).toEqual([]);
  });
});
