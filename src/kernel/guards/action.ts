/**
 * Classifies a tool call by its name and argument keys (upstream chio-guards action.rs), so each
 * guard knows whether it applies and where the paths, content, command or URLs are. A call that
 * names a known kind of tool but lacks the argument that kind needs is `malformed` and denied:
 * an agent must not escape a guard by spelling an argument oddly.
 * Owns: the name and key tables. Imports only the guard types. Arguments are attacker-controlled.
 */
import type { EgressTarget, ToolAction } from './types.js';

const READ_TOOLS = new Set(['read', 'read_file', 'read_text_file', 'read_media_file', 'read_multiple_files', 'cat', 'view', 'open_file',
  'get_file_contents', 'list_directory', 'list_directory_with_sizes', 'list_dir', 'directory_tree', 'search_files', 'get_file_info', 'ls', 'stat', 'head', 'tail']);
const WRITE_TOOLS = new Set(['write', 'write_file', 'edit', 'edit_file', 'create_file', 'create_directory', 'str_replace', 'move_file',
  'delete_file', 'remove_file', 'append_file', 'fs_write', 'raw_file_write']);
const FS_TOOLS = new Set(['fs', 'filesystem']);
const PATCH_TOOLS = new Set(['apply_patch', 'patch']);
const SHELL_TOOLS = new Set(['bash', 'shell', 'sh', 'exec', 'execute', 'execute_command', 'run_command', 'run_shell_command', 'terminal', 'command']);
const EGRESS_TOOLS = new Set(['fetch', 'fetch_url', 'web_fetch', 'http_request', 'http_get', 'http_post', 'curl', 'wget', 'browse', 'navigate']);

const PATH_KEYS = ['path', 'paths', 'file', 'file_path', 'filepath', 'filename', 'source', 'destination'];
const CONTENT_KEYS = new Set(['content', 'contents', 'text', 'data', 'new_str', 'new_string', 'newtext', 'new_text', 'edits']);
const DIFF_KEYS = ['diff', 'patch', 'input'];
const COMMAND_KEYS = ['command', 'cmd', 'input', 'script'];
const URL_KEYS = ['url', 'uri', 'href', 'urls'];

type Args = Record<string, unknown>;

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

function pathsOf(args: Args): string[] {
  return PATH_KEYS.flatMap((k) => strings(args[k]));
}

/** Every string under a content-like key, at any depth (edits arrays carry their new text deep inside). */
function contentOf(value: unknown, underContentKey = false, depth = 0): string[] {
  if (depth > 32) return [];
  if (typeof value === 'string') return underContentKey ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => contentOf(v, underContentKey, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => contentOf(v, underContentKey || CONTENT_KEYS.has(k.toLowerCase()), depth + 1));
  }
  return [];
}

export function egressTarget(raw: string): EgressTarget | null {
  const text = raw.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    if (url.hostname === '') return null;
    return { raw, host: url.hostname.toLowerCase().replace(/\.$/, '') };
  } catch {
    return null;
  }
}

function first(args: Args, keys: string[]): string | undefined {
  for (const k of keys) if (typeof args[k] === 'string') return args[k] as string;
  return undefined;
}

export function classifyAction(toolName: string, rawArgs: unknown): ToolAction {
  const name = toolName.toLowerCase();
  const args: Args = rawArgs !== null && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Args) : {};
  const malformed = (what: string): ToolAction => ({ kind: 'malformed', reason: `${toolName} needs ${what}` });

  const isWrite = WRITE_TOOLS.has(name) || (FS_TOOLS.has(name) && (args['action'] === 'write' || 'content' in args));
  if (READ_TOOLS.has(name) || FS_TOOLS.has(name) || isWrite) {
    const paths = pathsOf(args);
    if (paths.length === 0) return malformed(`a path argument (${PATH_KEYS.join(', ')})`);
    return isWrite ? { kind: 'file_write', paths, content: contentOf(args).join('\n') } : { kind: 'file_access', paths };
  }
  if (PATCH_TOOLS.has(name)) {
    const diff = first(args, DIFF_KEYS);
    if (diff === undefined) return malformed(`the patch text (${DIFF_KEYS.join(', ')})`);
    const fromDiff = [...diff.matchAll(/^(?:\+\+\+|---) (?:[ab]\/)?(\S+)/gm)].map((m) => m[1]!).filter((p) => p !== '/dev/null');
    const fromEnvelope = [...diff.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
    return { kind: 'patch', paths: [...pathsOf(args), ...fromDiff, ...fromEnvelope], diff };
  }
  if (SHELL_TOOLS.has(name)) {
    const command = first(args, COMMAND_KEYS) ?? (Array.isArray(args['command']) ? strings(args['command']).join(' ') : undefined);
    if (command === undefined) return malformed(`a command (${COMMAND_KEYS.join(', ')})`);
    return { kind: 'shell', command, cwd: typeof args['cwd'] === 'string' ? args['cwd'] : undefined };
  }
  if (EGRESS_TOOLS.has(name)) {
    const raw = [...URL_KEYS.flatMap((k) => strings(args[k])), ...strings(args['host']).map((h) => (typeof args['port'] === 'number' ? `${h}:${args['port']}` : h))];
    const targets = raw.map(egressTarget);
    if (raw.length === 0) return malformed(`a URL (${URL_KEYS.join(', ')}) or host`);
    if (targets.some((t) => t === null)) return malformed('URLs that parse');
    return { kind: 'egress', targets: targets as EgressTarget[] };
  }
  return { kind: 'mcp_tool' };
}
