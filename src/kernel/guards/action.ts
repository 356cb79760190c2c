/**
 * Classifies a tool call twice (upstream chio-guards action.rs, extended): by its name, which says
 * what kind of tool it is (a file read or write, a patch, a shell, a fetch, or something else),
 * and by its arguments, which say what it touches — every path, command and URL, under any key
 * (arguments.ts). The guards judge the second whatever the first says, so a tool named
 * `puppeteer_navigate` or `run_terminal_cmd` gets the network and shell guards all the same.
 * A call that names a known kind of tool but lacks the argument that kind needs, a URL that does
 * not parse, or arguments nested beyond reach, is refused as malformed: an agent must not escape a
 * guard by spelling an argument oddly.
 * Owns: the name tables and the assembly of a ToolAction. Imports guard helpers. Arguments are attacker-controlled.
 */
import { extractArguments, MAX_ARGUMENT_DEPTH } from './arguments.js';
import { commandArgumentTargets } from './shell-command.js';
import type { ActionKind, Classification, EgressTarget, ToolAction } from './types.js';

const READ_TOOLS = new Set([
  'read',
  'read_file',
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  'cat',
  'view',
  'open_file',
  'get_file_contents',
  'list_directory',
  'list_directory_with_sizes',
  'list_dir',
  'directory_tree',
  'search_files',
  'get_file_info',
  'ls',
  'stat',
  'head',
  'tail',
]);
const WRITE_TOOLS = new Set([
  'write',
  'write_file',
  'edit',
  'edit_file',
  'create_file',
  'create_directory',
  'str_replace',
  'move_file',
  'delete_file',
  'remove_file',
  'append_file',
  'fs_write',
  'raw_file_write',
  'write_to_file',
  'create_or_update_file',
  'update_file',
  'save_file',
  'put_file',
  'overwrite_file',
  'replace_in_file',
  'append_to_file',
  'modify_file',
  'write_new_file',
  'edit_block',
  'str_replace_editor',
  'insert_code',
]);
const FS_TOOLS = new Set(['fs', 'filesystem']);
const PATCH_TOOLS = new Set(['apply_patch', 'patch']);
const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'sh',
  'exec',
  'execute',
  'execute_command',
  'run_command',
  'run_shell_command',
  'terminal',
  'command',
]);
const EGRESS_TOOLS = new Set([
  'fetch',
  'fetch_url',
  'web_fetch',
  'http_request',
  'http_get',
  'http_post',
  'curl',
  'wget',
  'browse',
  'navigate',
]);
const DIFF_KEYS = ['diff', 'patch', 'input'];

type Args = Record<string, unknown>;

/** The host a URL or host text names, as the WHATWG URL parser canonicalises it; null if it does not parse. */
export function egressTarget(raw: string, source: EgressTarget['source'] = 'argument'): EgressTarget | null {
  const text = raw.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    const host = url.hostname.toLowerCase().replace(/\.+$/, '');
    if (host === '') return null;
    return { raw, host, source };
  } catch {
    return null;
  }
}

/**
 * Every path a patch touches, in every dialect an agent tool may apply: unified diff headers
 * (`--- a/x`, `+++ b/x`, any whitespace after the marker), git extended headers (`diff --git a/x
 * b/y`, `rename from|to`, `copy from|to`), and the apply_patch envelope (`*** Add|Update|Delete
 * File:`, `*** Move to:`), with or without a space after the colon.
 */
export function patchPaths(diff: string): string[] {
  const strip = (p: string) =>
    p
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/^[ab]\//, '');
  const out: string[] = [];
  for (const m of diff.matchAll(/^(?:\+\+\+|---)[ \t]+(\S+)/gm)) out.push(strip(m[1]!));
  for (const m of diff.matchAll(/^diff --git[ \t]+(\S+)[ \t]+(\S+)/gm)) out.push(strip(m[1]!), strip(m[2]!));
  for (const m of diff.matchAll(/^(?:rename|copy)[ \t]+(?:from|to)[ \t]+(.+)$/gm)) out.push(m[1]!.trim());
  for (const m of diff.matchAll(/^\*\*\*[ \t]*(?:(?:Add|Update|Delete)[ \t]+File|Move[ \t]+to)[ \t]*:[ \t]*(.+)$/gm))
    out.push(m[1]!.trim());
  return out.filter((p) => p !== '/dev/null' && p !== '');
}

function kindOf(name: string, args: Args): ActionKind {
  if (WRITE_TOOLS.has(name) || (FS_TOOLS.has(name) && (args.action === 'write' || 'content' in args)))
    return 'file_write';
  if (READ_TOOLS.has(name) || FS_TOOLS.has(name)) return 'file_access';
  if (PATCH_TOOLS.has(name)) return 'patch';
  if (SHELL_TOOLS.has(name)) return 'shell';
  if (EGRESS_TOOLS.has(name)) return 'egress';
  return 'mcp_tool';
}

export function classifyAction(toolName: string, rawArgs: unknown): Classification {
  const name = toolName.toLowerCase();
  const args: Args =
    rawArgs !== null && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Args) : {};
  const malformed = (what: string): Classification => ({ ok: false, reason: `${toolName} needs ${what}` });
  let kind = kindOf(name, args);
  const facts = extractArguments(rawArgs, kind !== 'file_write' && kind !== 'patch');
  // A tool we do not know that takes a path and content writes that content somewhere (a file, a
  // message with an attachment): the content guards judge it as a write.
  if (kind === 'mcp_tool' && facts.paths.length > 0 && facts.content.some((c) => c.length > 0)) kind = 'file_write';
  if (facts.tooDeep) return { ok: false, reason: `arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels` };

  const action: ToolAction = {
    kind,
    paths: facts.paths,
    softPaths: facts.softPaths,
    commands: facts.commands,
    targets: [],
    content: '',
    diff: '',
    cwd: facts.cwd,
  };
  switch (kind) {
    case 'file_access':
    case 'file_write':
      if (action.paths.length === 0)
        return malformed('a path argument (path, file, file_path, source, destination, …)');
      if (kind === 'file_write') action.content = facts.content.join('\n');
      break;
    case 'patch': {
      const diff = DIFF_KEYS.map((k) => args[k]).find((v): v is string => typeof v === 'string');
      if (diff === undefined) return malformed(`the patch text (${DIFF_KEYS.join(', ')})`);
      action.diff = diff;
      action.paths.push(...patchPaths(diff));
      break;
    }
    case 'shell':
      // upstream's shell tools also take the command under `input`
      if (action.commands.length === 0 && typeof args.input === 'string')
        action.commands.push({ form: 'text', text: args.input, key: 'input' });
      if (action.commands.length === 0) return malformed('a command (command, cmd, script, input, or an argv array)');
      break;
    case 'egress':
      if (facts.urls.length === 0) return malformed('a URL (url, uri, href, …) or host');
      break;
    case 'mcp_tool':
      break;
  }
  for (const u of facts.urls) {
    const t = egressTarget(u.raw, kind === 'egress' ? 'argument' : u.source);
    if (t === null) return malformed(`URLs that parse (${u.raw.slice(0, 200)})`);
    action.targets.push(t);
  }
  for (const c of action.commands) {
    for (const raw of commandArgumentTargets(c)) {
      const t = egressTarget(raw, 'embedded');
      if (t !== null) action.targets.push(t);
    }
  }
  return { ok: true, action };
}
