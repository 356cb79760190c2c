/**
 * `#/receipt/{id}`: one receipt — its verdict, its signature and id checked here in the browser
 * (verify.ts), the key that signed it (pinnable), its chain position with the entry hash
 * recomputed here, and its JSON. What the server says about the receipt is shown apart and never
 * decides what this page says.
 * Owns: the receipt page. Imports the API and DOM helpers, the checks and verdict badges.
 */
import { getJson } from '../api.js';
import { el, isoTime, routeLink } from '../dom.js';
import { checkPosition, checkReceipt, pinnedKeys } from '../verify.js';
import type { Check, Position } from '../verify.js';
import { badge, verdictOf } from './verdict.js';
import type { ReceiptLike } from './verdict.js';

interface ReceiptAnswer {
  receipt: ReceiptLike & Record<string, unknown>;
  position: Position & { producer?: string | null };
  verification: { ok: boolean; signature: string; entryHash: string };
}

const checkItem = (name: string, c: Check | undefined) =>
  c === undefined
    ? null
    : el('li', { class: c.ok ? 'pass' : 'fail' }, el('strong', {}, `${c.ok ? '✓' : '✗'} ${name}: `), c.detail);

/** The signing key, and a button to pin it as trusted in this browser; `changed` runs after a pin or unpin. */
function keyPanel(key: string, changed: () => void): HTMLElement {
  const panel = el('p', { class: 'key' });
  const draw = () => {
    const pins = pinnedKeys.all();
    const pinned = pins.includes(key);
    const button = el('button', { type: 'button' }, pinned ? 'Unpin this key' : 'Pin this key as trusted');
    button.addEventListener('click', () => {
      if (pinned) pinnedKeys.remove(key);
      else pinnedKeys.add(key);
      draw();
      changed();
      (panel.querySelector('button') as HTMLButtonElement).focus();
    });
    const note = pinned
      ? el('span', { class: 'pass' }, ' — pinned in this browser as trusted')
      : pins.length > 0
        ? el(
            'span',
            { class: 'fail' },
            ' — NOT one of the keys you pinned: a valid signature by an unknown key proves nothing',
          )
        : el('span', {}, " — no keys pinned yet: compare it with your kernel's public key file before trusting it");
    panel.replaceChildren('Signed by kernel key ', el('code', { class: 'wrap' }, key), note, ' ', button);
  };
  draw();
  return panel;
}

export async function receiptView(id: string): Promise<HTMLElement> {
  const answer = await getJson<ReceiptAnswer>(`/v1/receipts/${encodeURIComponent(id)}`);
  const r = answer.receipt;
  const p = answer.position;
  const [checks, position] = await Promise.all([checkReceipt(r), checkPosition(r, p)]);
  // The receipt asked for must be the one served: a server answering another (valid) receipt is caught here.
  const asked =
    r.id === id
      ? null
      : el('p', { class: 'fail', role: 'alert' }, `The service answered receipt ${String(r.id)}, not ${id}.`);
  const ok = checks.ok && asked === null;
  const verdict = verdictOf(r);
  const status = el('h2', { role: 'status' });
  // The headline: not checked, invalid, valid but by a key other than the ones pinned here, or verified.
  const drawStatus = () => {
    const pins = pinnedKeys.all();
    const [cls, text] =
      checks.unavailable !== undefined
        ? ['unknown', 'Signature not checked']
        : !ok
          ? ['fail', '✗ Signature invalid']
          : pins.length > 0 && !pins.includes(checks.kernelKey ?? '')
            ? ['fail', '✗ Signed by a key you have not pinned']
            : ['pass', '✓ Signature verified'];
    status.className = `verify ${cls}`;
    status.textContent = text;
  };
  drawStatus();
  const json = JSON.stringify(r, null, 2);
  const download = el(
    'a',
    {
      class: 'button',
      href: URL.createObjectURL(new Blob([JSON.stringify(r)], { type: 'application/json' })),
      download: `receipt-${String(r.id).slice(0, 16)}.json`,
    },
    'Download receipt JSON',
  );
  return el(
    'section',
    {},
    el(
      'p',
      { class: 'crumbs' },
      el('a', { href: '#/' }, 'Sessions'),
      ' / ',
      p.sessionId === null ? null : routeLink('session', p.sessionId, p.sessionId),
      p.sessionId === null ? null : ' / ',
      'receipt',
    ),
    el('h1', { tabindex: '-1' }, 'Receipt ', el('code', { class: 'wrap' }, String(r.id))),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'checks-title' },
      el('span', { id: 'checks-title', class: 'sr-only' }, 'Checked in this browser'),
      status,
      asked,
      position.ok || checks.unavailable !== undefined
        ? null
        : el(
            'p',
            { class: 'fail', role: 'alert' },
            '✗ The chain position the service states does not match this receipt.',
          ),
      checks.unavailable === undefined ? null : el('p', { class: 'error' }, checks.unavailable),
      el(
        'ul',
        { class: 'checks' },
        checkItem('id', checks.id),
        checkItem('signature', checks.signature),
        checkItem('kind', checks.semantics),
        checkItem('parameters', checks.parameterHash),
        checkItem('chain position', position),
      ),
      checks.kernelKey === undefined ? null : keyPanel(checks.kernelKey, drawStatus),
      el(
        'p',
        { class: 'small' },
        `The service says: ${answer.verification.ok ? 'ok' : `${answer.verification.signature}; entry hash ${answer.verification.entryHash}`} (not relied on above).`,
      ),
    ),
    el('h2', {}, 'Decision'),
    el(
      'dl',
      {},
      el('dt', {}, 'Verdict'),
      el('dd', {}, badge(verdict)),
      r.decision?.guard === undefined ? null : el('dt', {}, 'Guard'),
      r.decision?.guard === undefined ? null : el('dd', {}, r.decision.guard),
      r.decision?.reason === undefined ? null : el('dt', {}, 'Reason'),
      r.decision?.reason === undefined ? null : el('dd', {}, r.decision.reason),
      el('dt', {}, 'Tool'),
      el('dd', {}, el('code', {}, `${r.tool_server} / ${r.tool_name}`)),
      el('dt', {}, 'Time'),
      el('dd', {}, el('time', { datetime: isoTime(r.timestamp) }, isoTime(r.timestamp))),
      el('dt', {}, 'Kind'),
      el('dd', {}, r.receipt_kind),
    ),
    el('h2', {}, 'Chain position'),
    el(
      'dl',
      {},
      el('dt', {}, 'Entry'),
      el('dd', {}, `seq ${p.seq}`),
      el('dt', {}, 'Session'),
      el(
        'dd',
        {},
        p.sessionId === null ? 'none' : routeLink('session', p.sessionId, p.sessionId),
        p.sessionPrevSeq === null ? ' (its first entry)' : ` (previous entry of the session: seq ${p.sessionPrevSeq})`,
      ),
      el('dt', {}, 'Previous entry hash'),
      el('dd', {}, el('code', { class: 'wrap' }, p.prevHash)),
      el('dt', {}, 'Entry hash'),
      el('dd', {}, el('code', { class: 'wrap' }, p.entryHash)),
      p.producer === undefined || p.producer === null ? null : el('dt', {}, 'Producer'),
      p.producer === undefined || p.producer === null ? null : el('dd', {}, p.producer),
    ),
    el('h2', {}, 'Receipt JSON'),
    download,
    el('pre', { class: 'json', tabindex: '0', 'aria-label': 'Receipt JSON' }, json),
  );
}
