/**
 * The chart of denials by guard over time (uPlot, bundled with the explorer), from
 * /v1/denials; a table of the same numbers sits beside it for keyboards and screen readers.
 * Owns: the chart. Imports the API and DOM helpers; uPlot is the global its script defines.
 */
import { getJson, q } from '../api.js';
import { el, isoTime } from '../dom.js';

interface DenialSeries {
  from: number;
  bucketSeconds: number;
  starts: number[];
  guards: Array<{ guard: string; total: number; counts: number[] }>;
  totalCount: number;
}

/** An axis tick in UTC: the time of day (with seconds for short buckets), and the date where it changes. */
function timeLabel(t: number, previous: number | undefined, bucketSeconds: number): string {
  const iso = isoTime(t);
  const time = bucketSeconds < 60 ? iso.slice(11, 19) : iso.slice(11, 16);
  return previous === undefined || isoTime(previous).slice(0, 10) !== iso.slice(0, 10)
    ? `${time}\n${iso.slice(0, 10)}`
    : time;
}

/** Distinct hues, dark enough on white; guards beyond them reuse them (the legend names each). */
const COLOURS = ['#c0392b', '#8e44ad', '#d35400', '#2c3e50', '#16a085', '#7f8c8d', '#b7950b', '#1f618d'];

export async function denialChart(filter: { sessionId?: string }): Promise<HTMLElement> {
  const data = await getJson<DenialSeries>(`/v1/denials${q({ sessionId: filter.sessionId, buckets: 60 })}`);
  const title = el('h2', { id: 'denials-title' }, `Denials by guard (${data.totalCount})`);
  if (data.totalCount === 0)
    return el('section', { class: 'denials', 'aria-labelledby': 'denials-title' }, title, el('p', {}, 'No denials.'));
  const plot = el('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Denials by guard over time: ${data.guards.map((g) => `${g.guard} ${g.total}`).join(', ')}`,
  });
  const table = el(
    'details',
    {},
    el('summary', {}, 'The numbers as a table'),
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el('tr', {}, el('th', { scope: 'col' }, 'Guard'), el('th', { scope: 'col', class: 'num' }, 'Denials')),
      ),
      el(
        'tbody',
        {},
        ...data.guards.map((g) =>
          el('tr', { class: 'guard-row' }, el('th', { scope: 'row' }, g.guard), el('td', { class: 'num' }, g.total)),
        ),
      ),
    ),
  );
  const section = el(
    'section',
    { class: 'denials', 'aria-labelledby': 'denials-title' },
    title,
    el('p', { class: 'small' }, `${isoTime(data.from)} onwards, ${data.bucketSeconds} s per bucket`),
    plot,
    table,
  );
  if (data.starts.length < 3) {
    // Two buckets or one draw no trend: the numbers say it better.
    plot.replaceChildren(
      el(
        'p',
        { class: 'small' },
        `All ${data.totalCount} denials fall within ${data.starts.length * data.bucketSeconds} s: see the table.`,
      ),
    );
    table.open = true;
  } else if (typeof uPlot === 'function') {
    const width = () => Math.max(280, Math.min(1100, section.clientWidth || 800));
    const chart = new uPlot(
      {
        width: width(),
        height: 220,
        // Times in UTC, as everywhere else on the page.
        tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        // The whole queried span, even when it is a single bucket (uPlot cannot scale a span of zero).
        scales: {
          x: {
            time: true,
            range: (): uPlot.Range.MinMax => [data.from, data.from + data.starts.length * data.bucketSeconds],
          },
        },
        legend: { live: false },
        axes: [
          {
            values: (_u: uPlot, splits: number[]) =>
              splits.map((t, i) => timeLabel(t, i === 0 ? undefined : splits[i - 1], data.bucketSeconds)),
            size: 50,
          },
          { label: 'denials', size: 50 },
        ],
        series: [
          { label: 'time' },
          ...data.guards.map((g, i) => ({
            label: g.guard,
            stroke: COLOURS[i % COLOURS.length]!,
            width: 2,
            points: { show: true, size: 6 },
          })),
        ],
      },
      [data.starts, ...data.guards.map((g) => g.counts)],
      plot,
    );
    const resize = () =>
      section.isConnected ? chart.setSize({ width: width(), height: 220 }) : removeEventListener('resize', resize);
    addEventListener('resize', resize);
    // The chart draws when attached; until then its width is a guess from the window.
    requestAnimationFrame(() => chart.setSize({ width: width(), height: 220 }));
  } else {
    plot.replaceChildren(
      el('p', { class: 'error' }, 'The chart script did not load; the table below has the numbers.'),
    );
  }
  return section;
}
