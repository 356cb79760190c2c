/**
 * `chio policy check <file>`, `chio policy test [--policy]` and `chio check`: validating a policy,
 * attacking it with the hostile and harmless corpora, and dry-running it for one call. Nothing is
 * invoked, signed or written.
 * Owns: presenting policy verdicts. Reads through src/kernel only.
 */
import type { CommandModule } from 'yargs';
import { ChioError, EXIT } from '../../src/errors.js';
import { posix } from 'node:path';
import { checkCall, defaultPolicy, loadPolicy, testPolicy } from '../../src/kernel/index.js';
import type { GlobalArgs } from '../options.js';
import { out, outJson, setExit, table } from '../output.js';

interface PolicyCheckArgs extends GlobalArgs {
  file: string;
}

const policyCheck: CommandModule<GlobalArgs, PolicyCheckArgs> = {
  command: 'check <file>',
  describe: 'Validate a policy file (YAML or JSON); print its policy_hash',
  builder: (y) => y.positional('file', { type: 'string', demandOption: true }),
  handler: (args) => {
    const { policy, policyHash } = loadPolicy(args.file);
    if (args.json) {
      outJson({ ok: true, policy_hash: policyHash, policy });
      return;
    }
    out(`OK: ${args.file} is a valid ${policy.schema} policy`);
    out(
      table([
        ['policy_hash', policyHash],
        [
          'default grants',
          policy.default_grants === undefined
            ? 'every tool of each server, invoke only (secure default)'
            : `${policy.default_grants.length}`,
        ],
        [
          'guards on',
          Object.entries(policy.guards)
            .filter(([, g]) => g.enabled)
            .map(([n]) => n)
            .join(', '),
        ],
        ['redaction', policy.redaction.mode],
      ]).replace(/^/gm, '  '),
    );
  },
};

interface PolicyTestArgs extends GlobalArgs {
  policy?: string;
}

const policyTest: CommandModule<GlobalArgs, PolicyTestArgs> = {
  command: 'test',
  describe:
    'Attack a policy with the hostile and harmless corpora (exit 1 if a hostile call is allowed or a harmless one denied); nothing runs or is written',
  builder: (y) =>
    y.option('policy', { type: 'string', describe: 'policy file (default: the built-in secure defaults)' }),
  handler: (args) => {
    const report = testPolicy(args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy));
    const summary = {
      hostile: report.hostile,
      hostile_denied: report.hostile - report.hostileAllowed,
      hostile_allowed: report.hostileAllowed,
      harmless: report.harmless,
      harmless_allowed: report.harmless - report.harmlessDenied,
      harmless_denied: report.harmlessDenied,
    };
    if (args.json) {
      outJson({ ok: report.ok, policy_hash: report.policyHash, summary, cases: report.results });
    } else {
      const idWidth = Math.max(...report.results.map((r) => r.id.length));
      for (const r of report.results) {
        const mark = r.pass ? 'ok  ' : 'FAIL';
        out(
          `${mark} ${r.corpus.padEnd(8)} ${r.verdict.padEnd(5)} ${(r.guard ?? '-').padEnd(18)} ${r.id.padEnd(idWidth)}  ${r.reason ?? r.about}`,
        );
      }
      out('');
      out(
        `${report.ok ? 'PASS' : 'FAIL'}: hostile ${summary.hostile_denied}/${summary.hostile} denied, harmless ${summary.harmless_allowed}/${summary.harmless} allowed (policy_hash ${report.policyHash})`,
      );
    }
    if (!report.ok) setExit(EXIT.verificationFailed);
  },
};

export const policyCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'policy',
  describe: 'Validate policy files and test them against the attack corpora',
  builder: (y) => y.command(policyCheck).command(policyTest).demandCommand(1, 'name a policy command'),
  handler: () => {},
};

interface CheckArgs extends GlobalArgs {
  policy?: string;
  tool: string;
  params: string;
  server?: string;
  'path-base'?: string[];
}

export const checkCommand: CommandModule<GlobalArgs, CheckArgs> = {
  command: 'check',
  describe: 'Dry-run the policy for one call: decision, guard and reason (exit 0 allow, 1 deny); nothing is called',
  builder: (y) =>
    y
      .option('policy', { type: 'string', describe: 'policy file (default: the built-in secure defaults)' })
      .option('tool', { type: 'string', demandOption: true })
      .option('params', { type: 'string', default: '{}', describe: 'the call arguments as JSON' })
      .option('server', { type: 'string', describe: 'tool server id (default: match grants on the tool name alone)' })
      .option('path-base', {
        type: 'string',
        array: true,
        describe:
          'directory the tool resolves relative paths against (repeatable; without one, relative paths are denied)',
      }),
  handler: (args) => {
    let params: unknown;
    try {
      params = JSON.parse(args.params) as unknown;
    } catch (e) {
      throw new ChioError('CHIO-CLI-BAD-JSON', `--params is not JSON: ${(e as Error).message}`);
    }
    const pathBases = (args['path-base'] ?? []).map(String);
    const relative = pathBases.find((b) => !posix.isAbsolute(b));
    if (relative !== undefined)
      throw new ChioError('CHIO-CLI-USAGE', `--path-base ${relative}: must be an absolute path`);
    const loaded = args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy);
    const result = checkCall(loaded, { serverId: args.server, toolName: args.tool, arguments: params, pathBases });
    if (args.json) outJson(result);
    else {
      out(
        table([
          ['decision', result.verdict],
          ...(result.verdict === 'deny'
            ? ([
                ['guard', result.guard],
                ['reason', result.reason],
              ] as Array<[string, string]>)
            : []),
          ['evidence', result.evidence.map((e) => `${e.guard_name} ${e.verdict ? 'pass' : 'FAIL'}`).join(', ') || '—'],
          ['policy_hash', result.policyHash],
        ]),
      );
    }
    if (result.verdict === 'deny') setExit(EXIT.verificationFailed);
  },
};
