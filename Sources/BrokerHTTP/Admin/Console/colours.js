// The colours of the dashboard's series: a fixed palette first, then hues a golden angle apart at three lightnesses,
// so that no two series share a colour however many provider · outcome pairs there are. No DOM: a test runs it.

const palette = ['#2b6cb0', '#2f855a', '#c05621', '#6b46c1', '#b7791f', '#c53030', '#319795', '#4a5568', '#d53f8c', '#718096'];

/** The colour of the series at `index` (0-based): a different one for every index. */
export function seriesColour(index) {
  if (index < palette.length) return palette[index];
  const step = index - palette.length;
  const hue = Math.round((step * 137.508 + 15) % 360);
  return 'hsl(' + hue + ', 60%, ' + (38 + (step % 3) * 8) + '%)';
}
