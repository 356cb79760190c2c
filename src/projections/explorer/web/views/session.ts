/**
 * `#/session/{id}`: one session's timeline, every call in ledger order — time, tool, verdict by
 * colour and word, and the guard and reason of each denial — its denials by guard, and its
 * compliance certificate to download (signed by the service's key, when it has one).
 * Owns: the timeline. Imports the API and DOM helpers, the chart and verdict badges.
 */
import { ApiError, getJson, getText, q } from '../api.js';
import { el, isoTime, routeLink, short } from '../dom.js';
import { denialChart } from './denials.js';
import { checkReceipt, pinnedKeys } from '../verify.js';
import { badge, verdictOf } from './verdict.js';
import type { ReceiptLike } from './verdict.js';

interface ReceiptPage {
  receipts: ReceiptLike[];
  totalCount: number;
  nextCursor: number | null;
}

const PAGE = 500;

/**
 * Checks a row's receipt here in the browser, as the receipt page does, and marks it: ✓ (verified,
 * by a pinned key when keys are pinned) or ✗ with the reason in the cell's title.
 */
async function mark(cell: HTMLElement, r: ReceiptLike): Promise<void> {
  const checks = await checkReceipt(r);
  const pins = pinnedKeys.all();
  const [ok, why] =
    checks.unavailable !== undefined
      ? [null, checks.unavailable]
      : !checks.ok
        ? [
            false,
            [checks.id, checks.signature, checks.semantics, checks.parameterHash].find((c) => c !== undefined && !c.ok)
              ?.detail ?? 'invalid',
          ]
        : pins.length > 0 && !pins.includes(checks.kernelKey ?? '')
          ? [false, 'signed by a key you have not pinned']
          : [true, 'signature verified in this browser'];
  cell.textContent = ok === null ? '?' : ok ? '✓' : '✗';
  cell.className = ok === null ? 'checked' : ok ? 'checked pass' : 'checked fail';
  cell.title = why;
  cell.setAttribute('aria-label', why);
}

function row(r: ReceiptLike, n: number): HTMLTableRowElement {
  const verdict = verdictOf(r);
  const checked = el('td', { class: 'checked' }, '…');
  void mark(checked, r);
  return el(
    'tr',
    { class: `row-${verdict}` },
    el('td', { class: 'num' }, n),
    el('td', {}, el('time', { datetime: isoTime(r.timestamp) }, isoTime(r.timestamp))),
    el('td', {}, el('code', {}, `${r.tool_server} / ${r.tool_name}`)),
    el('td', {}, badge(verdict)),
    el('td', {}, r.decision?.guard ?? ''),
    el('td', { class: 'reason' }, r.decision?.reason ?? ''),
    el('td', {}, routeLink('receipt', r.id, short(r.id))),
    checked,
  );
}

function certificateButton(sessionId: string): HTMLElement {
  const status = el('p', { class: 'status', role: 'status' });
  const button = el('button', { type: 'button' }, 'Download certificate');
  button.addEventListener('click', async () => {
    status.textContent = 'Generating…';
    try {
      const text = await getText(`/v1/sessions/${encodeURIComponent(sessionId)}/certificate`);
      const a = el('a', {
        href: URL.createObjectURL(new Blob([text], { type: 'application/json' })),
        download: `certificate-${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`,
      });
      a.click();
      URL.revokeObjectURL(a.href);
      status.textContent = 'Certificate downloaded: check it with chio cert verify.';
    } catch (e) {
      status.textContent = `No certificate: ${e instanceof ApiError ? `${e.code} ` : ''}${(e as Error).message}`;
      status.className = 'status error';
    }
  });
  return el('div', { class: 'actions' }, button, status);
}

export async function sessionView(sessionId: string): Promise<HTMLElement> {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}/receipts`;
  const first = await getJson<ReceiptPage>(`${path}${q({ limit: PAGE })}`);
  let shown = 0;
  const body = el('tbody', {}, ...first.receipts.map((r) => row(r, ++shown)));
  const more = el('button', { type: 'button', class: 'more' }, 'Show more calls');
  let cursor = first.nextCursor;
  more.hidden = cursor === null;
  more.addEventListener('click', async () => {
    const page = await getJson<ReceiptPage>(`${path}${q({ limit: PAGE, cursor })}`);
    body.append(...page.receipts.map((r) => row(r, ++shown)));
    cursor = page.nextCursor;
    more.hidden = cursor === null;
  });
  return el(
    'section',
    {},
    el('p', { class: 'crumbs' }, el('a', { href: '#/' }, 'Sessions'), ' / session'),
    el('h1', { tabindex: '-1' }, 'Session ', el('code', {}, sessionId)),
    el(
      'p',
      {},
      `${first.totalCount} calls and observations, in ledger order; each receipt's signature is checked in this browser (Signed: ✓ or ✗).`,
    ),
    certificateButton(sessionId),
    await denialChart({ sessionId }),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'timeline' },
        el('caption', {}, 'Timeline'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['#', 'Time (UTC)', 'Tool', 'Verdict', 'Guard', 'Reason', 'Receipt', 'Signed'].map((h) =>
              el('th', { scope: 'col' }, h),
            ),
          ),
        ),
        body,
      ),
    ),
    more,
  );
}
