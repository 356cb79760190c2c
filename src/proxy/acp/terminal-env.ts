/**
 * Environment variables `terminal/create` may not set (ACP `env: [{name, value}]`): those that load
 * code into a program, name a program to run instead of or besides the one asked for, or move
 * where a tool reads its configuration (a config file can name programs too). Names compare
 * case-sensitively, as the kernel does; `npm_config_` and `pnpm_config_` compare case-insensitively,
 * as npm (and pnpm) read them. A name that is not a portable identifier (`[A-Za-z_][A-Za-z0-9_]*`)
 * is refused too: it cannot be a real shell variable, and `BASH_FUNC_x%%` (an exported bash
 * function that replaces a command inside every bash child) has that shape. `--allow-env NAME`
 * opens exactly one name. Sources: each entry's man page (section 1 unless noted) or manual.
 * Owns: the table and the name matcher. Imports nothing. Names are attacker-controlled.
 */

export interface EnvRule {
  /** An exact name, or a prefix that every name starting with it matches. */
  name?: string;
  prefix?: string;
  /** Compare case-insensitively (npm reads its config variables so). */
  caseInsensitive?: boolean;
  /** Names under the prefix that stay allowed (they only set identity, colour, counts or a target directory). */
  except?: readonly string[];
  why: string;
}

const names = (list: string, why: string): EnvRule[] =>
  list
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => ({ name, why }));

export const ENV_RULES: readonly EnvRule[] = [
  // ld.so(8), dyld(1) (macOS), iconv(3) GCONV_PATH, glibc tunables(7).
  { prefix: 'LD_', why: 'the dynamic loader loads or audits libraries it names (ld.so(8))' },
  { prefix: 'DYLD_', why: 'the macOS loader loads libraries it names (dyld(1))' },
  ...names(
    'GCONV_PATH GLIBC_TUNABLES',
    'glibc loads iconv modules from it / changes loader behaviour (iconv(3), tunables(7))',
  ),
  // node(1) ENVIRONMENT; npm-config(7) "Environment Variables"; pnpm config; yarn rc (YARN_*); corepack.
  ...names(
    'NODE_OPTIONS NODE_PATH NODE_REPL_EXTERNAL_MODULE ELECTRON_RUN_AS_NODE',
    'node loads modules or options from it (node(1))',
  ),
  {
    prefix: 'npm_config_',
    caseInsensitive: true,
    why: 'npm reads any config key from it: script-shell, node-options, git, userconfig… (npm-config(7))',
  },
  { prefix: 'pnpm_config_', caseInsensitive: true, why: 'pnpm reads any config key from it (pnpm config)' },
  ...names(
    'npm_execpath npm_node_execpath',
    'npm and the tools it runs start this program as npm/node (npm-run-script(1))',
  ),
  { prefix: 'YARN_', why: 'yarn reads any rc setting from it, yarnPath (a script it runs) included (yarnrc)' },
  ...names(
    'COREPACK_HOME COREPACK_NPM_REGISTRY',
    'corepack runs the package manager it finds or downloads there (corepack)',
  ),
  // python(1) ENVIRONMENT VARIABLES.
  ...names(
    'PYTHONSTARTUP PYTHONPATH PYTHONHOME PYTHONUSERBASE PYTHONEXECUTABLE PYTHONBREAKPOINT PYTHONPYCACHEPREFIX PYTHONPLATLIBDIR PYTHONWARNINGS',
    'python imports or runs code it names (python(1): PYTHONWARNINGS imports the category module)',
  ),
  // perlrun(1) ENVIRONMENT; ruby(1) ENVIRONMENT; bundler(1); gem env.
  ...names('PERL5OPT PERL5LIB PERLLIB PERL5DB', 'perl loads modules or runs code it names (perlrun(1))'),
  ...names(
    'RUBYOPT RUBYLIB GEM_HOME GEM_PATH BUNDLE_GEMFILE IRBRC',
    'ruby loads libraries or a Gemfile (Ruby code) it names (ruby(1), bundle-config(1))',
  ),
  // java(1) "JDK_JAVA_OPTIONS", JVM TI JAVA_TOOL_OPTIONS; mvn, gradle, ant, sbt launch scripts.
  ...names(
    'JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS JAVA_OPTS CLASSPATH JAVA_HOME MAVEN_OPTS MAVEN_ARGS GRADLE_OPTS GRADLE_USER_HOME ANT_OPTS SBT_OPTS',
    'the JVM (or its launcher) loads agents, classes or a different java from it (java(1))',
  ),
  // bash(1) INVOCATION and Shell Variables; dash(1) ENV; zsh(1) STARTUP FILES.
  ...names(
    'BASH_ENV ENV PROMPT_COMMAND PS4 SHELLOPTS BASHOPTS IFS ZDOTDIR FPATH SHELL',
    'a shell runs startup code, traces with command substitution, or word-splits differently (bash(1), zsh(1))',
  ),
  { prefix: 'BASH_FUNC_', why: 'an exported bash function replaces a command in every bash child (bash(1))' },
  // git(1) ENVIRONMENT VARIABLES: GIT_CONFIG_*, GIT_SSH*, GIT_EXEC_PATH, GIT_ASKPASS, GIT_EDITOR,
  // GIT_PAGER, GIT_EXTERNAL_DIFF, GIT_PROXY_COMMAND, GIT_TEMPLATE_DIR, GIT_DIR, GIT_ALLOW_PROTOCOL,
  // GIT_TRACE* (writes to a file it names) … all of them, except identity and prompt settings.
  {
    prefix: 'GIT_',
    except: [
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_AUTHOR_DATE',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'GIT_COMMITTER_DATE',
      'GIT_TERMINAL_PROMPT',
      'GIT_MERGE_AUTOEDIT',
      'GIT_OPTIONAL_LOCKS',
      'GIT_FLUSH',
    ],
    why: 'git reads configuration, programs to run (ssh, askpass, editor, pager, diff, proxy), its exec path, templates or repository location from it (git(1))',
  },
  ...names(
    'SSH_ASKPASS SSH_ASKPASS_REQUIRE SUDO_ASKPASS SUDO_EDITOR',
    'ssh/sudo run the program it names (ssh(1), sudo(8))',
  ),
  ...names(
    'EDITOR VISUAL PAGER MANPAGER MANOPT BROWSER',
    'tools run the editor, pager or browser it names (git-var(1), man(1))',
  ),
  ...names(
    'LESS LESSOPEN LESSCLOSE LESSKEY LESSKEYIN LESSEDIT',
    'less runs the preprocessor or commands it names (less(1))',
  ),
  // rustup(1), cargo "Environment variables": CARGO_* mirrors every config key (build.rustc-wrapper,
  // target.<triple>.runner/linker, registry credential providers, doc.browser, aliases…).
  ...names(
    'RUSTC RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER RUSTDOC RUSTFLAGS RUSTDOCFLAGS',
    'cargo runs the compiler, wrapper or linker flags it names (cargo: Environment variables)',
  ),
  {
    prefix: 'CARGO_',
    except: [
      'CARGO_TARGET_DIR',
      'CARGO_BUILD_TARGET_DIR',
      'CARGO_BUILD_JOBS',
      'CARGO_INCREMENTAL',
      'CARGO_TERM_COLOR',
      'CARGO_TERM_VERBOSE',
      'CARGO_TERM_QUIET',
      'CARGO_TERM_PROGRESS_WHEN',
      'CARGO_TERM_PROGRESS_WIDTH',
      'CARGO_NET_OFFLINE',
      'CARGO_NET_RETRY',
      'CARGO_LOG',
    ],
    why: 'cargo reads any config key from it, programs (rustc wrappers, runners, linkers, credential providers) included (cargo: Environment variables)',
  },
  {
    prefix: 'RUSTUP_',
    why: 'rustup picks (or downloads) the toolchain that runs from it (rustup: Environment variables)',
  },
  // go help environment: GOFLAGS (-toolexec), GOTOOLCHAIN, GOROOT, caches and proxies, GOAUTH.
  ...names(
    'GOFLAGS GOROOT GOPATH GOTOOLCHAIN GOENV GOCACHE GOMODCACHE GOPROXY GOSUMDB GONOSUMDB GONOSUMCHECK GONOPROXY GOPRIVATE GOINSECURE GOVCS GOAUTH',
    'go runs toolchains, tools or cached builds it names (go help environment)',
  ),
  { prefix: 'CGO_', why: 'go passes its flags to the C compiler (-fplugin, -B …) (go help environment)' },
  // make(1) (MAKEFLAGS, MAKEFILES), gcc(1) ENVIRONMENT (GCC_EXEC_PREFIX, COMPILER_PATH), ccache(1).
  ...names(
    'MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEFILES MAKE MAKESHELL',
    'make reads options, extra makefiles or the make program from it (make(1))',
  ),
  ...names(
    'CC CXX CPP LD AR AS CFLAGS CXXFLAGS CPPFLAGS LDFLAGS GCC_EXEC_PREFIX COMPILER_PATH',
    'build tools run the compiler or pass the flags it names (-B, -fplugin, -wrapper) (gcc(1), make(1))',
  ),
  { prefix: 'CCACHE_', why: 'ccache runs a prefix command or reads a cache/config it names (ccache(1))' },
  // Archivers and transports: tar(1) TAR_OPTIONS, zip(1) ZIPOPT, rsync(1), cvs, svn.
  ...names(
    'TAR_OPTIONS ZIPOPT RSYNC_RSH RSYNC_CONNECT_PROG CVS_RSH SVN_SSH SVN_EDITOR HGRCPATH HGEDITOR',
    'the archiver or transport takes options (--to-command, -TT) or a program to run from it (tar(1), zip(1), rsync(1))',
  ),
  { name: 'RIPGREP_CONFIG_PATH', why: 'rg reads options (--pre COMMAND) from that file (rg(1))' },
  // Editors and interpreters that run startup code: vim(1), nvim(1), emacs, lua(1), php(1), R.
  ...names(
    'VIMINIT EXINIT VIMRUNTIME VIM MYVIMRC NVIM_APPNAME EMACSLOADPATH',
    'the editor runs startup commands or scripts from it (vim(1), nvim(1))',
  ),
  { prefix: 'LUA_INIT', why: 'lua runs the code (or file) it holds (lua(1))' },
  { prefix: 'LUA_PATH', why: 'lua loads modules from it (lua(1))' },
  { prefix: 'LUA_CPATH', why: 'lua loads native modules from it (lua(1))' },
  ...names(
    'PHPRC PHP_INI_SCAN_DIR R_PROFILE R_PROFILE_USER R_ENVIRON R_ENVIRON_USER TCLLIBPATH',
    'the interpreter reads an ini/profile that runs code (php(1), R(1))',
  ),
  // .NET runtime configuration, OpenSSL(7) environment, kubectl / AWS config (exec credential plugins).
  ...names(
    'DOTNET_STARTUP_HOOKS DOTNET_ADDITIONAL_DEPS DOTNET_ROOT COR_ENABLE_PROFILING COR_PROFILER COR_PROFILER_PATH',
    '.NET loads the assembly or profiler it names',
  ),
  { prefix: 'CORECLR_', why: '.NET Core loads the profiler it names' },
  ...names(
    'OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES',
    'OpenSSL loads engines or providers (shared objects) from it (openssl-env(7))',
  ),
  ...names('KUBECONFIG AWS_CONFIG_FILE', 'the client runs exec / credential_process commands from that file'),
  // Where tools read their configuration from (a config file can name programs): HOME, XDG dirs, PATH.
  ...names(
    'PATH HOME XDG_CONFIG_HOME XDG_CONFIG_DIRS XDG_DATA_HOME XDG_DATA_DIRS XDG_CACHE_HOME CURL_HOME WGETRC PIP_CONFIG_FILE',
    'it moves where programs are found or where tools read their configuration and plugins from',
  ),
];

export const PORTABLE_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The rule refusing `name`, or undefined when it may be set. `allowed` holds `--allow-env` names (exact). */
export function envRefusal(
  name: string,
  allowed: ReadonlySet<string> = new Set(),
): { rule: string; why: string } | undefined {
  if (!PORTABLE_ENV_NAME.test(name))
    return { rule: 'a portable name', why: 'not a portable environment variable name ([A-Za-z_][A-Za-z0-9_]*)' };
  if (allowed.has(name)) return undefined;
  for (const r of ENV_RULES) {
    if (r.name !== undefined && r.name === name) return { rule: r.name, why: r.why };
    if (r.prefix === undefined) continue;
    const hit = r.caseInsensitive ? name.toLowerCase().startsWith(r.prefix.toLowerCase()) : name.startsWith(r.prefix);
    if (hit && !(r.except ?? []).includes(name)) return { rule: `${r.prefix}*`, why: r.why };
  }
  return undefined;
}
