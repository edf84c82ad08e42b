// Building the page: every piece of data becomes a text node (textContent), never markup.

/** An element with attributes (`on…` functions become listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** An SVG element. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the main area's content and moves the focus there (for keyboards and screen readers). */
export function show(...children) {
  const main = document.getElementById('main');
  main.replaceChildren(...children.flat().filter(Boolean));
  main.focus({ preventScroll: true });
}

/** A loading, empty or error line. */
export function state(text, kind = '') {
  return h('p', { class: 'state ' + kind, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** An error as a readable line. */
export function errorState(error) {
  if (error && error.status === 0) return state(error.message, 'error');
  const code = error && error.code ? ' (' + error.code + ')' : '';
  return state((error && error.message ? error.message : 'Something went wrong.') + code, 'error');
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
});

/** An RFC 3339 time in the viewer's time zone, in a <time> element. */
export function time(iso) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return h('span', {}, String(iso));
  return h('time', { datetime: iso, title: iso }, timeFormat.format(date));
}

/** A table with a header row; `rows` are arrays of cells (nodes or text). */
export function table(caption, headers, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, headers.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell, index) => h('td', { 'data-label': headers[index] }, cell))))),
    ),
  );
}

/** A labelled input. */
export function field(label, attributes) {
  return h('label', { class: 'field' }, h('span', {}, label), h('input', attributes));
}

/** Any JSON value as text. */
export function valueText(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
