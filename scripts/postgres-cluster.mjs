// A throwaway PostgreSQL server for tests and benches: Debian's binaries (installed with apt-get
// when missing and run as root), a cluster in a temporary directory, started on 127.0.0.1 on a
// free port, owned by a non-root user (as root: Debian's `postgres`, or a system user made for it; PostgreSQL refuses root), and
// removed on stop. As a command: `node scripts/postgres-cluster.mjs -- <command …>` runs the
// command with CHIO_TEST_PG_URL set, then stops the server.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.getuid?.() === 0;

function binDir() {
  const find = () => {
    if (!existsSync('/usr/lib/postgresql')) return undefined;
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
      .sort((a, b) => Number(b) - Number(a));
    return versions.length === 0 ? undefined : `/usr/lib/postgresql/${versions[0]}/bin`;
  };
  let dir = find();
  if (dir === undefined) {
    if (!root || !existsSync('/usr/bin/apt-get'))
      throw new Error(
        'PostgreSQL is not installed: sudo apt-get install postgresql (Debian), or set CHIO_TEST_PG_URL to a server you run',
      );
    process.stderr.write("postgres-cluster: installing Debian's postgresql (apt-get)\n");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'], {
        stdio: 'inherit',
        env,
      });
    } catch (e) {
      // In a container without an init system the package's own cluster may fail to start in its
      // post-install step; the binaries are installed all the same, and are all this needs.
      process.stderr.write(
        `postgres-cluster: apt-get reported a failure (${e.message.split('\n')[0]}); using the binaries if they are there\n`,
      );
    }
    dir = find();
  }
  if (dir === undefined) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql after installing');
  return dir;
}

/** The non-root user that owns the cluster when we run as root: Debian's `postgres`, else one made for it. */
let owner;
function ownerName() {
  if (owner !== undefined) return owner;
  if (spawnSync('id', ['-u', 'postgres']).status === 0) owner = 'postgres';
  else {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'chio-postgres']);
    owner = 'chio-postgres';
  }
  return owner;
}

/** Runs a PostgreSQL binary as the cluster's owner (never root). */
function asOwner(bin, args, options = {}) {
  const [file, argv] = root ? ['runuser', ['-u', ownerName(), '--', bin, ...args]] : [bin, args];
  const r = spawnSync(file, argv, { encoding: 'utf8', ...options });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a cluster; resolves { url, stop }. The superuser `chio` connects without a password, on 127.0.0.1 only. */
export async function startCluster() {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'chio-pg-'));
  chmodSync(dir, 0o777); // the owner (postgres) writes here when we are root
  const data = join(dir, 'data');
  asOwner(join(bin, 'initdb'), ['-D', data, '-U', 'chio', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const port = await freePort();
  asOwner(
    join(bin, 'pg_ctl'),
    [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200`,
      'start',
    ],
    { stdio: 'ignore' },
  );
  asOwner(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'chio', 'chio']);
  return {
    url: `postgres://chio@127.0.0.1:${port}/chio`,
    port,
    dir,
    restart: () =>
      asOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-m', 'immediate', 'restart'], {
        stdio: 'ignore',
      }),
    stop() {
      try {
        asOwner(join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'fast', 'stop'], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--');
  const command = at < 0 ? [] : process.argv.slice(at + 1);
  const cluster = await startCluster();
  process.stderr.write(`postgres-cluster: ${cluster.url} (data in ${cluster.dir})\n`);
  let status = 0;
  try {
    if (command.length === 0) {
      process.stderr.write('postgres-cluster: running until Ctrl-C\n');
      await new Promise((r) => process.once('SIGINT', r));
    } else {
      status =
        spawnSync(command[0], command.slice(1), {
          stdio: 'inherit',
          env: { ...process.env, CHIO_TEST_PG_URL: cluster.url },
        }).status ?? 1;
    }
  } finally {
    cluster.stop();
  }
  process.exit(status);
}
