/**
 * `chio policy check <file>` and `chio check`: validating a policy, and dry-running it for one
 * call. Nothing is invoked, signed or written.
 * Owns: presenting policy verdicts. Reads through src/kernel only.
 */
import type { CommandModule } from 'yargs';
import { ChioError, EXIT } from '../../src/errors.js';
import { checkCall, defaultPolicy, loadPolicy } from '../../src/kernel/index.js';
import type { GlobalArgs } from '../main.js';
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
    out(table([
      ['policy_hash', policyHash],
      ['default grants', policy.default_grants === undefined ? 'every tool of each server, invoke only (secure default)' : `${policy.default_grants.length}`],
      ['guards on', Object.entries(policy.guards).filter(([, g]) => g.enabled).map(([n]) => n).join(', ')],
      ['redaction', policy.redaction.mode],
    ]).replace(/^/gm, '  '));
  },
};

export const policyCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'policy',
  describe: 'Validate policy files',
  builder: (y) => y.command(policyCheck).demandCommand(1, 'name a policy command'),
  handler: () => {},
};

interface CheckArgs extends GlobalArgs {
  policy?: string;
  tool: string;
  params: string;
  server?: string;
}

export const checkCommand: CommandModule<GlobalArgs, CheckArgs> = {
  command: 'check',
  describe: 'Dry-run the policy for one call: decision, guard and reason (exit 0 allow, 1 deny); nothing is called',
  builder: (y) =>
    y
      .option('policy', { type: 'string', describe: 'policy file (default: the built-in secure defaults)' })
      .option('tool', { type: 'string', demandOption: true })
      .option('params', { type: 'string', default: '{}', describe: 'the call arguments as JSON' })
      .option('server', { type: 'string', describe: 'tool server id (default: match grants on the tool name alone)' }),
  handler: (args) => {
    let params: unknown;
    try {
      params = JSON.parse(args.params) as unknown;
    } catch (e) {
      throw new ChioError('CHIO-CLI-BAD-JSON', `--params is not JSON: ${(e as Error).message}`);
    }
    const loaded = args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy);
    const result = checkCall(loaded, { serverId: args.server, toolName: args.tool, arguments: params });
    if (args.json) outJson(result);
    else {
      out(table([
        ['decision', result.verdict],
        ...(result.verdict === 'deny' ? ([['guard', result.guard], ['reason', result.reason]] as Array<[string, string]>) : []),
        ['evidence', result.evidence.map((e) => `${e.guard_name} ${e.verdict ? 'pass' : 'FAIL'}`).join(', ') || '—'],
        ['policy_hash', result.policyHash],
      ]));
    }
    if (result.verdict === 'deny') setExit(EXIT.verificationFailed);
  },
};
