/**
 * A progress bar on stderr for long runs, shown only on a TTY and only once a run has lasted
 * long enough to be worth it, so pipes and short runs stay clean.
 * Owns: drawing and clearing. Imports nothing from the project.
 */
const SHOW_AFTER_MS = 400;
const REDRAW_EVERY_MS = 100;
const WIDTH = 30;

export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

export function progressBar(label: string, enabled = process.stderr.isTTY === true): Progress {
  const started = Date.now();
  let lastDraw = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!enabled) return;
      const now = Date.now();
      if (now - started < SHOW_AFTER_MS || now - lastDraw < REDRAW_EVERY_MS) return;
      lastDraw = now;
      drawn = true;
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(fraction * WIDTH);
      const rate = Math.round(done / ((now - started) / 1000));
      process.stderr.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done}/${total} (${rate}/s)`,
      );
    },
    finish() {
      if (drawn) process.stderr.write('\r\u001b[2K');
    },
  };
}
