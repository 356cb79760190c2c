/**
 * Finds what the arguments of a call are, whatever the tool is called: every path, every command
 * (shell text or an argv array) and every URL or host, at any depth. A key says what a value is
 * (`file_path`, `cmd`, `callback_url`), and so does a value's own shape (`/etc/passwd`,
 * `https://…`, `rm -rf /`); either is enough. Text a tool writes into a file is not read as paths
 * or commands (the content guards judge it); prose sent anywhere else is, when the whole value has
 * the shape of one.
 * Owns: the key vocabulary and the shape rules. Imports only guard types and the program list.
 * Every value here is attacker-controlled.
 */
import { isKnownProgram } from './shell/programs.js';
import type { CommandArgument, EgressTarget } from './types.js';

/** Keys whose strings are content or prose (judged by secret-leak / patch-integrity, never as paths or commands). */
const CONTENT_KEYS = new Set([
  'content',
  'contents',
  'text',
  'data',
  'newstr',
  'newstring',
  'newtext',
  'oldstr',
  'oldstring',
  'oldtext',
  'edits',
  'filetext',
  'newcontent',
  'newcontents',
  'filecontent',
  'filecontents',
  'code',
  'sourcecode',
  'replacement',
  'insert',
  'insertion',
  'lines',
  'body',
  'message',
  'messages',
  'description',
  'title',
  'summary',
  'comment',
  'prompt',
  'query',
  'diff',
  'patch',
  'input',
]);
const PATH_WORDS = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filename',
  'filenames',
  'dir',
  'dirs',
  'directory',
  'directories',
  'folder',
  'folders',
  'cwd',
]);
const PATH_KEYS = new Set([
  'source',
  'sources',
  'destination',
  'destinations',
  'src',
  'dst',
  'dest',
  'workdir',
  'workingdir',
  'wd',
]);
const CWD_KEYS = new Set(['cwd', 'workdir', 'workingdir', 'workingdirectory', 'wd']);
const COMMAND_KEYS = new Set([
  'command',
  'commands',
  'cmd',
  'cmds',
  'cmdline',
  'commandline',
  'shellcommand',
  'script',
  'bash',
  'sh',
  'shell',
  'exec',
  'execute',
  'run',
  'runcommand',
]);
const ARGV_KEYS = new Set(['args', 'argv', 'arguments']);
const URL_WORDS = new Set([
  'url',
  'urls',
  'uri',
  'uris',
  'href',
  'endpoint',
  'endpoints',
  'link',
  'links',
  'website',
  'webhook',
]);
const HOST_WORDS = new Set(['host', 'hosts', 'hostname', 'hostnames', 'domain', 'domains']);
/** Keys that often hold a host (`ip`, `server`, `address`), but also other things: a host only if the value is shaped like one. */
const MAYBE_HOST_KEYS = new Set([
  'ip',
  'ips',
  'ipaddress',
  'ipaddr',
  'addr',
  'address',
  'server',
  'servers',
  'remote',
  'peer',
  'ipv4',
  'ipv6',
]);
/** Keys that may name the program of an argv (`{program: "rm", args: [...]}`). */
const PROGRAM_KEYS = new Set([
  'program',
  'executable',
  'exe',
  'binary',
  'bin',
  'file',
  'path',
  'name',
  'tool',
  'process',
]);
const ARGV_LIKE_KEYS = new Set(['args', 'argv', 'arguments', 'options', 'params', 'parameters', 'flags']);

/** Deeper nesting than this is refused: an agent must not hide an argument below where we look. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Longest string judged by its shape as a path or a command (longer ones are prose or data). */
const MAX_SHAPED_LENGTH = 8192;

/** The words of a key: `workingDirectory`, `working_directory` and `working-directory` are the same. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '');
}

export type KeyRole = 'content' | 'path' | 'cwd' | 'command' | 'argv' | 'url' | 'host' | 'maybe-host' | 'other';

export function keyRole(key: string): KeyRole {
  const words = keyWords(key);
  const joined = words.join('');
  const last = words.at(-1) ?? '';
  if (CONTENT_KEYS.has(joined)) return 'content';
  if (CWD_KEYS.has(joined)) return 'cwd';
  if (COMMAND_KEYS.has(joined)) return 'command';
  if (ARGV_KEYS.has(joined)) return 'argv';
  if (URL_WORDS.has(last)) return 'url';
  if (HOST_WORDS.has(last)) return 'host';
  if (MAYBE_HOST_KEYS.has(joined) || MAYBE_HOST_KEYS.has(last)) return 'maybe-host';
  if (PATH_KEYS.has(joined) || PATH_WORDS.has(last)) return 'path';
  return 'other';
}

export interface ArgumentFacts {
  paths: string[];
  commands: CommandArgument[];
  /** URL texts and host texts, with where they were found. */
  urls: Array<{ raw: string; source: EgressTarget['source'] }>;
  /** Strings under content keys, in order (what a write would put in a file). */
  content: string[];
  /**
   * Bare names that may be paths (`.env`, `cfg/credentials` under a key that says nothing): judged
   * against the forbidden patterns, but not refused for being relative with no base.
   */
  softPaths: string[];
  cwd: string | undefined;
  /** Set when the arguments nest deeper than MAX_ARGUMENT_DEPTH. */
  tooDeep: boolean;
}

const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

function looksLikePath(s: string): boolean {
  return (
    !s.includes('\n') &&
    (s.startsWith('/') || s === '~' || s.startsWith('~/') || s.startsWith('./') || s.startsWith('../'))
  );
}

/** `file:///x` names a path, not a network target. */
function fileUrlPath(s: string): string | undefined {
  if (!/^file:/i.test(s)) return undefined;
  try {
    return decodeURIComponent(new URL(s).pathname);
  } catch {
    return s.slice(5);
  }
}

/**
 * Schemes whose authority is a network host a client reaches (what curl, browsers, git and database
 * drivers dial). A URI under a url/uri key with any other scheme (`demo://resource/x`, `note://1`:
 * an MCP server's own resource namespace) names something inside the server, not a host: it is
 * judged as a soft path (forbidden patterns), not as egress.
 */
const NETWORK_SCHEMES = new Set([
  'http',
  'https',
  'ws',
  'wss',
  'ftp',
  'ftps',
  'sftp',
  'scp',
  'ssh',
  'git',
  'svn',
  'gopher',
  'dict',
  'ldap',
  'ldaps',
  'smb',
  'smbs',
  'tftp',
  'telnet',
  'imap',
  'imaps',
  'pop3',
  'pop3s',
  'smtp',
  'smtps',
  'rtsp',
  'rtmp',
  'mqtt',
  'mqtts',
  'nfs',
  'rsync',
  'redis',
  'rediss',
  'postgres',
  'postgresql',
  'mysql',
  'mariadb',
  'mongodb',
  'mongodb+srv',
  'amqp',
  'amqps',
  'kafka',
  'nats',
  'grpc',
  'grpcs',
  'ipp',
  'irc',
  'ircs',
  'xmpp',
  'sip',
  'sips',
  'vnc',
  'rdp',
  'docker',
  'unix',
  'jdbc',
  'odbc',
  'nntp',
  // object stores and remote filesystems a client dials by bucket or account host
  's3',
  's3a',
  's3n',
  'gs',
  'gcs',
  'az',
  'abfs',
  'abfss',
  'wasb',
  'wasbs',
  'adl',
  'hdfs',
  'webdav',
  'webdavs',
  'dav',
  'davs',
  'afp',
  'coap',
  'coaps',
  'news',
  'snews',
]);

/** The `authority/path` of a URI whose scheme reaches no network (attacker-controlled); undefined for network schemes and non-URIs. */
function opaqueUriName(s: string): string | undefined {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(\S*)$/i.exec(s);
  if (m === null || NETWORK_SCHEMES.has(m[1]!.toLowerCase())) return undefined;
  return m[2]!;
}

/** A known program first, or after a shell control operator (`true && rm -rf /`, `echo hi; curl …`). */
function looksLikeCommand(s: string): boolean {
  for (const m of s.matchAll(/(?:^|&&|\|\||[;|\n`]|\$\()\s*([^\s;&|`()]+)/g)) if (isKnownProgram(m[1]!)) return true;
  return false;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$/;
const IPV6 = /^\[?[0-9a-fA-F:]*:[0-9a-fA-F:.]*\]?(?::\d+)?$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)*[A-Za-z0-9-]{1,63}\.?(?::\d+)?$/;

/** A bare name that may be a path: one word, a dot file or a name with a slash. */
function looksLikeSoftPath(s: string): boolean {
  return s.length <= 256 && !/\s/.test(s) && (s.startsWith('.') || s.includes('/'));
}

/**
 * @param judgeProse  also read content-keyed strings by their shape: for a tool that writes files
 *                    they are the file's text (only the content guards judge it); for any other
 *                    tool a value that *is* a command, a path or a URL is one, whatever its key
 *                    (`{input: "rm -rf /"}` to a terminal tool with a name we do not know)
 */
export function extractArguments(args: unknown, judgeProse = true): ArgumentFacts {
  const facts: ArgumentFacts = {
    paths: [],
    commands: [],
    urls: [],
    content: [],
    softPaths: [],
    cwd: undefined,
    tooDeep: false,
  };

  const shaped = (s: string, key: string, role: KeyRole): void => {
    if (s.length > MAX_SHAPED_LENGTH) return;
    const text = s.trim();
    const filePath = fileUrlPath(text);
    if (filePath !== undefined) facts.paths.push(filePath);
    else if (URL_SHAPE.test(text)) facts.urls.push({ raw: text, source: role === 'url' ? 'argument' : 'embedded' });
    else if (looksLikePath(text)) facts.paths.push(text);
    else if (looksLikeCommand(text)) facts.commands.push({ form: 'text', text: s, key });
    else if (IPV4.test(text) || (IPV6.test(text) && text.includes('::')))
      facts.urls.push({
        raw: text.includes(':') && !text.startsWith('[') && !IPV4.test(text) ? `[${text}]` : text,
        source: 'embedded',
      });
    else if (looksLikeSoftPath(text)) facts.softPaths.push(text);
  };

  const visit = (value: unknown, key: string, role: KeyRole, depth: number): void => {
    if (depth > MAX_ARGUMENT_DEPTH) {
      facts.tooDeep = true;
      return;
    }
    if (typeof value === 'string') {
      switch (role) {
        case 'content':
          facts.content.push(value);
          if (judgeProse) shaped(value, key, role);
          return;
        case 'path':
          facts.paths.push(fileUrlPath(value.trim()) ?? value);
          return;
        case 'cwd':
          facts.paths.push(value);
          facts.cwd ??= value;
          return;
        case 'command':
          facts.commands.push({ form: 'text', text: value, key });
          return;
        case 'maybe-host': {
          const t = value.trim();
          if (IPV4.test(t) || HOSTNAME.test(t)) facts.urls.push({ raw: t, source: 'argument' });
          else if (IPV6.test(t)) facts.urls.push({ raw: t.startsWith('[') ? t : `[${t}]`, source: 'argument' });
          else shaped(value, key, 'other');
          return;
        }
        case 'url':
        case 'host':
          if (fileUrlPath(value.trim()) !== undefined) facts.paths.push(fileUrlPath(value.trim())!);
          else if (role === 'url' && opaqueUriName(value.trim()) !== undefined)
            facts.softPaths.push(decodeURIComponent(opaqueUriName(value.trim())!.replace(/%(?![0-9a-f]{2})/gi, '%25')));
          else facts.urls.push({ raw: value, source: 'argument' });
          return;
        default:
          shaped(value, key, role);
      }
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) visit(v, key, role, depth + 1);
      return;
    }
    if (value !== null && typeof value === 'object') {
      const obj = value as Record<string, unknown>;
      const argvCommand = argvOf(obj);
      if (argvCommand !== undefined) facts.commands.push(argvCommand);
      for (const [k, v] of Object.entries(obj)) {
        const own = keyRole(k);
        // Inside content (an edits array), everything stays content.
        const r = role === 'content' ? 'content' : own;
        // Already judged as one argv: the program's arguments, and a command given as an array.
        if (argvCommand !== undefined && (r === 'argv' || (r === 'command' && Array.isArray(v)))) continue;
        if (r === 'host' && typeof v === 'string' && typeof obj.port === 'number') {
          facts.urls.push({ raw: `${v}:${obj.port}`, source: 'argument' });
          continue;
        }
        visit(v, k, r === 'argv' ? 'other' : r, depth + 1);
      }
    }
  };

  visit(args, '', 'other', 0);
  return facts;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * `{command: "rm", args: ["-rf", "/"]}`, `{command: ["rm", "-rf", "/"]}` or `{argv: [...]}`: a
 * program and its arguments, executed without a shell.
 */
function argvOf(obj: Record<string, unknown>): CommandArgument | undefined {
  const entries = Object.entries(obj);
  const command = entries.find(([k]) => keyRole(k) === 'command');
  const args =
    entries.find(([k]) => keyRole(k) === 'argv') ??
    entries.find(([k, v]) => ARGV_LIKE_KEYS.has(keyWords(k).join('')) && isStringArray(v));
  if (command !== undefined && isStringArray(command[1]) && command[1].length > 0) {
    return {
      form: 'argv',
      argv: [...command[1], ...(args !== undefined && isStringArray(args[1]) ? args[1] : [])],
      key: command[0],
    };
  }
  if (command !== undefined && typeof command[1] === 'string' && args !== undefined && isStringArray(args[1])) {
    return { form: 'argv', argv: [command[1], ...args[1]], key: command[0] };
  }
  if (
    command === undefined &&
    args !== undefined &&
    args[0].toLowerCase() === 'argv' &&
    isStringArray(args[1]) &&
    args[1].length > 0
  ) {
    return { form: 'argv', argv: args[1], key: args[0] };
  }
  if (command !== undefined && typeof command[1] === 'string' && args !== undefined && typeof args[1] === 'string') {
    return { form: 'argv', argv: [command[1], ...args[1].split(/\s+/).filter((w) => w !== '')], key: command[0] };
  }
  // {program: "rm", args: [...]}, {file: "/bin/rm", options: [...]}, {args: ["sh", "-c", "id"]}
  const argvLike = entries.find(([k, v]) => ARGV_LIKE_KEYS.has(keyWords(k).join('')) && isStringArray(v));
  const program = entries.find(
    ([k, v]) => PROGRAM_KEYS.has(keyWords(k).join('')) && typeof v === 'string' && isKnownProgram(v),
  );
  if (command === undefined && program !== undefined) {
    return {
      form: 'argv',
      argv: [program[1] as string, ...(argvLike === undefined ? [] : (argvLike[1] as string[]))],
      key: program[0],
    };
  }
  if (
    command === undefined &&
    argvLike !== undefined &&
    (argvLike[1] as string[]).length > 0 &&
    isKnownProgram((argvLike[1] as string[])[0]!)
  ) {
    return { form: 'argv', argv: argvLike[1] as string[], key: argvLike[0] };
  }
  return undefined;
}
