// Sign-ins per provider and outcome over time: a stacked bar chart drawn as SVG, with the same numbers as a
// table for screen readers and small screens.
import { call, query } from './api.js';
import { h, svg, show, state, errorState, table } from './dom.js';
import { seriesColour } from './colours.js';

const ranges = {
  hour: { bucket: 'minute', buckets: 60, label: 'Last hour, per minute' },
  day: { bucket: 'hour', buckets: 24, label: 'Last 24 hours, per hour' },
  week: { bucket: 'hour', buckets: 168, label: 'Last 7 days, per hour' },
  month: { bucket: 'day', buckets: 30, label: 'Last 30 days, per day' },
};
let chosen = 'day';

/** Shows the dashboard. */
export async function dashboardPage() {
  const select = h('select', { id: 'range' }, Object.entries(ranges).map(([key, range]) => h('option', { value: key, selected: key === chosen }, range.label)));
  const body = h('section', { id: 'chart-area', 'aria-live': 'polite' }, state('Loading sign-ins…'));
  select.addEventListener('change', () => {
    chosen = select.value;
    load(body).catch(() => {});
  });
  show(h('h1', {}, 'Sign-ins'), h('label', { class: 'field inline' }, h('span', {}, 'Range'), select), body);
  await load(body);
}

async function load(body) {
  body.replaceChildren(state('Loading sign-ins…'));
  const range = ranges[chosen];
  let series;
  try {
    series = await call('GET', '/admin/v1/stats/sign-ins' + query({ bucket: range.bucket, buckets: range.buckets }));
  } catch (error) {
    if (error.status === 401) throw error;
    body.replaceChildren(errorState(error));
    return;
  }
  const size = { minute: 60e3, hour: 3600e3, day: 86400e3 }[series.bucket];
  const start = Date.parse(series.start);
  const count = Math.round((Date.parse(series.end) - start) / size);
  const keys = [...new Set(series.counts.map((entry) => (entry.provider || '?') + ' · ' + entry.outcome))].sort();
  if (keys.length === 0) {
    body.replaceChildren(state('No sign-in in this range.', 'empty'));
    return;
  }
  const totals = Array.from({ length: count }, () => new Map());
  for (const entry of series.counts) {
    const index = Math.floor((Date.parse(entry.start) - start) / size);
    if (index >= 0 && index < count) totals[index].set((entry.provider || '?') + ' · ' + entry.outcome, entry.count);
  }
  const maximum = Math.max(1, ...totals.map((bucket) => [...bucket.values()].reduce((a, b) => a + b, 0)));
  const width = 720;
  const height = 260;
  const left = 40;
  const bottom = 24;
  const barWidth = (width - left) / count;
  const chart = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, class: 'chart', role: 'img', 'aria-labelledby': 'chart-title' },
    svg('title', { id: 'chart-title' }, 'Sign-ins per provider and outcome, ' + range.label.toLowerCase()));
  const plot = height - bottom - 8;
  for (const fraction of [0, 0.5, 1]) {
    const y = 8 + plot * (1 - fraction);
    chart.append(svg('line', { x1: left, x2: width, y1: y, y2: y, class: 'grid' }));
    chart.append(svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, String(Math.round(maximum * fraction))));
  }
  const format = new Intl.DateTimeFormat(undefined, series.bucket === 'day' ? { month: 'short', day: 'numeric' } : { hour: '2-digit', minute: '2-digit' });
  totals.forEach((bucket, index) => {
    let y = 8 + plot;
    keys.forEach((key, keyIndex) => {
      const value = bucket.get(key) || 0;
      if (!value) return;
      const barHeight = (value / maximum) * plot;
      y -= barHeight;
      chart.append(svg('rect', {
        x: left + index * barWidth + 0.5, y, width: Math.max(1, barWidth - 1), height: barHeight, fill: seriesColour(keyIndex),
      }, svg('title', {}, key + ': ' + value + ' at ' + format.format(new Date(start + index * size)))));
    });
    if (index % Math.max(1, Math.ceil(count / 6)) === 0) {
      chart.append(svg('text', { x: left + index * barWidth, y: height - 6, class: 'axis' }, format.format(new Date(start + index * size))));
    }
  });
  const legend = h('ul', { class: 'legend' }, keys.map((key, index) =>
    h('li', {}, svg('svg', { width: 12, height: 12, 'aria-hidden': 'true' }, svg('rect', { width: 12, height: 12, fill: seriesColour(index) })), ' ' + key)));
  const sums = new Map();
  for (const entry of series.counts) {
    const key = (entry.provider || '?') + ' · ' + entry.outcome;
    sums.set(key, (sums.get(key) || 0) + entry.count);
  }
  body.replaceChildren(
    h('figure', { class: 'card' }, chart, h('figcaption', {}, legend)),
    table('Totals in the range', ['Provider · outcome', 'Sign-ins'], keys.map((key) => [key, String(sums.get(key))])),
  );
}
