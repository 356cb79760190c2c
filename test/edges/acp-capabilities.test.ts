// What the ACP edge publishes, as pure functions: category inference, bridge fidelity and its caveats, withheld capabilities, requiresPermission.
import { describe, expect, it } from 'vitest';
import {
  buildCapabilityTable,
  CAVEATS,
  inferCategory,
  rateFidelity,
  UNSUPPORTED_REASONS,
} from '../../src/edges/acp/index.js';
import type { AcpCategory } from '../../src/edges/acp/index.js';
import type { ToolManifest } from '../../src/kernel/index.js';

type Tool = ToolManifest['tools'][number];
const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `${name} tool`,
  input_schema: { type: 'object' },
  has_side_effects: false,
  ...extra,
});
const manifest = (serverId: string, tools: Tool[]): ToolManifest => ({
  schema: 'chio.manifest.v1',
  server_id: serverId,
  name: serverId,
  version: '1.0.0',
  tools,
});
const table = (
  manifests: ToolManifest[],
  executors = manifests.map((m) => m.server_id),
  options: { requirePermission?: boolean; defaultCategory?: AcpCategory } = {},
) =>
  buildCapabilityTable(manifests, new Set(executors), {
    requirePermission: options.requirePermission ?? true,
    defaultCategory: options.defaultCategory ?? 'tool',
  });

describe('category inference (first match wins, name compared case-insensitively)', () => {
  const cases: Array<[string, AcpCategory]> = [
    ['read_file', 'filesystem'],
    ['write_file', 'filesystem'],
    ['list_dir', 'filesystem'],
    ['list_directory', 'filesystem'],
    ['read_text_file', 'tool'], // neither read_file nor a fs_ prefix
    ['fs_stat', 'filesystem'],
    ['FS_Move', 'filesystem'],
    ['my_fs_tool', 'tool'], // fs_ counts only as a prefix
    ['READ_FILE', 'filesystem'],
    ['open_terminal', 'terminal'],
    ['exec', 'terminal'],
    ['run_Shell', 'terminal'],
    ['COMMAND', 'terminal'],
    ['exec_command', 'terminal'],
    ['browser_open', 'browser'],
    ['Navigate', 'browser'],
    ['take_screenshot', 'browser'],
    ['search', 'tool'],
    ['hello_tool', 'tool'],
    ['read_file_then_exec', 'filesystem'], // filesystem is checked before terminal
    ['exec_in_browser', 'terminal'], // terminal before browser
    ['shell_screenshot', 'terminal'],
  ];
  it.each(cases)('%s → %s', (name, category) => {
    expect(inferCategory(name)).toBe(category);
  });

  it('an unmatched name falls back to the configured default category; a matched one ignores it', () => {
    expect(inferCategory('search', 'filesystem')).toBe('filesystem');
    expect(inferCategory('read_file', 'terminal')).toBe('filesystem');
    const t = table([manifest('srv', [tool('search'), tool('exec_command')])], ['srv'], {
      defaultCategory: 'terminal',
    });
    expect(t.published.get('search')!.capability.category).toBe('terminal');
    expect(t.published.get('exec_command')!.capability.category).toBe('terminal');
  });
});

describe('bridge fidelity', () => {
  it('the caveat texts are upstream chio-acp-edge’s, word for word', () => {
    expect(CAVEATS).toEqual({
      approval: 'permission preview is advisory only; enforcement happens at invoke time with Chio capability checks',
      streaming:
        'stream-capable tools execute through deferred `tool/stream` tasks and surface output when resumed via `tool/resume` rather than as incremental push updates',
      partialOutput:
        'partial output is preserved only inside the resumed terminal payload, not incremental ACP updates',
      cancellation:
        'cancellation is available on deferred `tool/stream` tasks via `tool/cancel`; blocking `tool/invoke` remains terminal',
      genericTool: "generic Chio tools are exposed through ACP's tool category rather than a native ACP primitive",
    });
  });

  it('a filesystem or terminal tool without hints is native with no caveats, even with side effects', () => {
    expect(rateFidelity(tool('read_file'), 'filesystem', true, 'srv')).toEqual({ kind: 'native', caveats: [] });
    expect(rateFidelity(tool('write_file', { has_side_effects: true }), 'filesystem', true, 'srv')).toEqual({
      kind: 'native',
      caveats: [],
    });
    expect(rateFidelity(tool('exec', { has_side_effects: true }), 'terminal', true, 'srv')).toEqual({
      kind: 'native',
      caveats: [],
    });
  });

  it('the generic tool category adds exactly its one caveat', () => {
    expect(rateFidelity(tool('search'), 'tool', true, 'srv')).toEqual({
      kind: 'adapted',
      caveats: [CAVEATS.genericTool],
    });
  });

  it('each hint adds its own caveat; partial output defaults to the streaming hint', () => {
    const fs = (hints: Record<string, boolean>) =>
      rateFidelity(tool('read_file', { hints }), 'filesystem', true, 'srv');
    expect(fs({ 'x-chio-streaming': true, 'x-chio-partial-output': false })).toEqual({
      kind: 'adapted',
      caveats: [CAVEATS.streaming],
    });
    expect(fs({ 'x-chio-streaming': true })).toEqual({
      kind: 'adapted',
      caveats: [CAVEATS.streaming, CAVEATS.partialOutput],
    });
    expect(fs({ 'x-chio-partial-output': true })).toEqual({ kind: 'adapted', caveats: [CAVEATS.partialOutput] });
    expect(fs({ 'x-chio-cancellation': true })).toEqual({ kind: 'adapted', caveats: [CAVEATS.cancellation] });
    expect(fs({ 'x-chio-approval-required': true })).toEqual({ kind: 'adapted', caveats: [CAVEATS.approval] });
    expect(
      fs({
        'x-chio-streaming': false,
        'x-chio-partial-output': false,
        'x-chio-cancellation': false,
        'x-chio-approval-required': false,
        'x-chio-publish': true,
      }),
    ).toEqual({ kind: 'native', caveats: [] });
  });

  it('caveats come in upstream’s order whatever order the hints are written in', () => {
    const hints = {
      'x-chio-cancellation': true,
      'x-chio-partial-output': true,
      'x-chio-approval-required': true,
      'x-chio-streaming': true,
    };
    expect(rateFidelity(tool('search', { hints }), 'tool', true, 'srv')).toEqual({
      kind: 'adapted',
      caveats: [CAVEATS.approval, CAVEATS.streaming, CAVEATS.partialOutput, CAVEATS.cancellation, CAVEATS.genericTool],
    });
  });

  it('hints are read from the `hints` field, else the input schema’s x-chio-* keys, else the output schema’s', () => {
    const streaming = [CAVEATS.streaming, CAVEATS.partialOutput];
    const fromHints = tool('read_file', { hints: { 'x-chio-streaming': true } });
    const fromInput = tool('read_file', { input_schema: { type: 'object', 'x-chio-streaming': true } });
    const fromOutput = tool('read_file', { output_schema: { type: 'object', 'x-chio-streaming': true } });
    for (const t of [fromHints, fromInput, fromOutput])
      expect(rateFidelity(t, 'filesystem', true, 'srv')).toEqual({ kind: 'adapted', caveats: streaming });
    const overridden = tool('read_file', {
      hints: { 'x-chio-streaming': false },
      input_schema: { type: 'object', 'x-chio-streaming': true },
    });
    expect(rateFidelity(overridden, 'filesystem', true, 'srv')).toEqual({ kind: 'native', caveats: [] });
    const publishOff = tool('read_file', { input_schema: { type: 'object', 'x-chio-publish': false } });
    expect(rateFidelity(publishOff, 'filesystem', true, 'srv')).toEqual({
      kind: 'unsupported',
      reason: UNSUPPORTED_REASONS.unpublished,
    });
  });

  it('unsupported, checked in order: publication off → no executor → browser → side-effectful generic tool', () => {
    expect(rateFidelity(tool('browser_go', { hints: { 'x-chio-publish': false } }), 'browser', false, 'srv')).toEqual({
      kind: 'unsupported',
      reason: 'publication disabled by x-chio-publish=false',
    });
    expect(rateFidelity(tool('browser_go'), 'browser', false, 'srv')).toEqual({
      kind: 'unsupported',
      reason: UNSUPPORTED_REASONS.noExecutor('srv'),
    });
    expect(rateFidelity(tool('browser_go'), 'browser', true, 'srv')).toEqual({
      kind: 'unsupported',
      reason: 'browser/session automation semantics are not yet truthfully projected on the ACP edge',
    });
    expect(rateFidelity(tool('send_mail', { has_side_effects: true }), 'tool', true, 'srv')).toEqual({
      kind: 'unsupported',
      reason: 'generic side-effectful tools do not map honestly to ACP capability classes on this edge',
    });
  });
});

describe('the capability table', () => {
  it('publishes exactly the six camelCase fields, sorted by id, name = the tool name', () => {
    const t = table([manifest('srv', [tool('zeta'), tool('read_file'), tool('alpha')])]);
    expect([...t.published.keys()]).toEqual(['alpha', 'read_file', 'zeta']);
    const cap = t.published.get('read_file')!;
    expect(cap.capability).toEqual({
      id: 'read_file',
      name: 'read_file',
      description: 'read_file tool',
      category: 'filesystem',
      requiresPermission: true,
      bridgeFidelity: { kind: 'native', caveats: [] },
    });
    expect(Object.keys(cap.capability).sort()).toEqual([
      'bridgeFidelity',
      'category',
      'description',
      'id',
      'name',
      'requiresPermission',
    ]);
    expect(cap).toMatchObject({ serverId: 'srv', toolName: 'read_file' });
    expect(t.withheld.size).toBe(0);
  });

  it('withholds browser tools, side-effectful generic tools, unpublished tools and tools of a server with no executor — with their reasons', () => {
    const t = table(
      [
        manifest('srv', [
          tool('browser_navigate'),
          tool('send_mail', { has_side_effects: true }),
          tool('quiet', { hints: { 'x-chio-publish': false } }),
          tool('search'),
          tool('write_file', { has_side_effects: true }),
        ]),
        manifest('ghost', [tool('haunt')]),
      ],
      ['srv'],
    );
    expect([...t.published.keys()]).toEqual(['search', 'write_file']);
    expect(Object.fromEntries(t.withheld)).toEqual({
      browser_navigate: UNSUPPORTED_REASONS.browser,
      send_mail: UNSUPPORTED_REASONS.sideEffects,
      quiet: UNSUPPORTED_REASONS.unpublished,
      haunt: UNSUPPORTED_REASONS.noExecutor('ghost'),
    });
  });

  it('one tool name in two manifests is withheld as ambiguous (sources sorted); the same server listed twice is deduplicated', () => {
    const t = table([manifest('srv-b', [tool('lookup'), tool('only_b')]), manifest('srv-a', [tool('lookup')])]);
    expect([...t.published.keys()]).toEqual(['only_b']);
    expect(t.withheld.get('lookup')).toBe(
      'ACP capability `lookup` is withheld from discovery because multiple manifests map it to different upstream bindings: srv-a/lookup, srv-b/lookup',
    );
    const dup = table([manifest('srv', [tool('lookup')]), manifest('srv', [tool('lookup')])]);
    expect([...dup.published.keys()]).toEqual(['lookup']);
    expect(dup.withheld.size).toBe(0);
  });

  it('requiresPermission: true by default; requirePermission:false honoured except for side-effectful tools', () => {
    const tools = [
      tool('search'),
      tool('read_file'),
      tool('write_file', { has_side_effects: true }),
      tool('exec_command', { has_side_effects: true }),
    ];
    const strict = table([manifest('srv', tools)]);
    expect([...strict.published.values()].map((b) => b.capability.requiresPermission)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const relaxed = table([manifest('srv', tools)], ['srv'], { requirePermission: false });
    const perm = Object.fromEntries(
      [...relaxed.published.values()].map((b) => [b.capability.id, b.capability.requiresPermission]),
    );
    expect(perm).toEqual({ exec_command: true, read_file: false, search: false, write_file: true });
  });
});
