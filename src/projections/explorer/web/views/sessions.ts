/**
 * `#/`: the ledger's head, the chart of denials by guard, and every session with its counts by
 * verdict, a page at a time.
 * Owns: the sessions table. Imports the API and DOM helpers and the chart.
 */
import { getJson, q } from '../api.js';
import { el, isoTime, routeLink, short } from '../dom.js';
import { denialChart } from './denials.js';

interface SessionSummary {
  sessionId: string;
  entries: number;
  allowed: number;
  denied: number;
  cancelled: number;
  incomplete: number;
  observations: number;
  firstSeq: number;
  lastSeq: number;
  firstTimestamp: number;
  lastTimestamp: number;
}
interface SessionPage {
  sessions: SessionSummary[];
  totalCount: number;
  nextCursor: number | null;
}
interface Head {
  entries: number;
  head: { seq: number; entryHash: string } | null;
}

const count = (n: number, cls: string) => el('td', { class: `num ${n > 0 ? cls : ''}` }, n);

function row(s: SessionSummary): HTMLTableRowElement {
  return el(
    'tr',
    {},
    el('th', { scope: 'row' }, routeLink('session', s.sessionId, s.sessionId)),
    el('td', { class: 'num' }, s.entries),
    count(s.allowed, 'v-allow'),
    count(s.denied, 'v-deny'),
    count(s.observations, 'v-observation'),
    count(s.cancelled + s.incomplete, 'v-incomplete'),
    el('td', {}, el('time', { datetime: isoTime(s.firstTimestamp) }, isoTime(s.firstTimestamp))),
    el('td', {}, el('time', { datetime: isoTime(s.lastTimestamp) }, isoTime(s.lastTimestamp))),
  );
}

export async function sessionsView(): Promise<HTMLElement> {
  const [head, first] = await Promise.all([
    getJson<Head>('/v1/ledger/head'),
    getJson<SessionPage>(`/v1/sessions${q({ limit: 100 })}`),
  ]);
  const body = el('tbody', {}, ...first.sessions.map(row));
  const more = el('button', { type: 'button', class: 'more' }, 'Show more sessions');
  let cursor = first.nextCursor;
  more.hidden = cursor === null;
  more.addEventListener('click', async () => {
    const page = await getJson<SessionPage>(`/v1/sessions${q({ limit: 100, cursor })}`);
    body.append(...page.sessions.map(row));
    cursor = page.nextCursor;
    more.hidden = cursor === null;
    (body.lastElementChild?.querySelector('a') as HTMLElement | null)?.focus();
  });
  return el(
    'section',
    {},
    el('h1', { tabindex: '-1' }, 'Sessions'),
    el(
      'p',
      { class: 'head' },
      `${head.entries} ledger entries`,
      head.head === null ? '' : ' · head ',
      head.head === null ? null : short(head.head.entryHash, 16),
      ` · ${first.totalCount} sessions`,
    ),
    await denialChart({}),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'sessions' },
        el('caption', {}, 'Sessions in the order they began'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'Session'),
            el('th', { scope: 'col', class: 'num' }, 'Entries'),
            el('th', { scope: 'col', class: 'num' }, 'Allowed'),
            el('th', { scope: 'col', class: 'num' }, 'Denied'),
            el('th', { scope: 'col', class: 'num' }, 'Observed'),
            el('th', { scope: 'col', class: 'num' }, 'Cancelled / incomplete'),
            el('th', { scope: 'col' }, 'First'),
            el('th', { scope: 'col' }, 'Last'),
          ),
        ),
        body,
      ),
    ),
    first.totalCount === 0 ? el('p', {}, 'No sessions in this ledger yet.') : null,
    more,
  );
}
