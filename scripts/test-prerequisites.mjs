// What the tests need beyond npm packages, before `npm test` runs them: Debian's Chromium for the
// web explorer's page tests. Missing and run as root on Debian (CI, a fresh machine): installed
// with apt-get. Missing otherwise: stop with the command to run. CHIO_CHROMIUM names another binary.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHIO_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `test prerequisites: no Chromium at ${chromium}. Install Debian's package (sudo apt-get install chromium) or set CHIO_CHROMIUM to a Chromium binary.`,
    );
    process.exit(1);
  }
  console.error("test prerequisites: installing Debian's chromium (apt-get) for the explorer's page tests");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
}
