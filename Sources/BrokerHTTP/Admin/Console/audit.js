// The audit log, newest first, with filters.
import { call, query, segment } from './api.js';
import { h, show, state, errorState, table, field, time } from './dom.js';

const actions = [
  '', 'sign_in', 'sign_up', 'link', 'unlink', 'take_over', 'disable', 'enable', 'update', 'delete',
  'revoke_sessions', 'custom_token', 'sign_out', 'console_sign_in', 'console_sign_out', 'provider_config',
];

/** The events as table rows (fields the API adds later are shown in the last column). */
export function auditRows(events) {
  const known = new Set(['time', 'uid', 'action', 'provider', 'actor', 'outcome', 'requestId']);
  return events.map((event) => [
    time(event.time),
    event.uid ? h('a', { href: '#/users/' + segment(event.uid), class: 'mono' }, event.uid) : '—',
    event.action,
    event.provider || '—',
    event.actor,
    h('span', { class: event.outcome === 'success' || event.outcome === 'created' ? 'badge on' : 'badge off' }, event.outcome),
    h('span', { class: 'mono' }, event.requestId),
    Object.entries(event).filter(([name]) => !known.has(name)).map(([name, value]) => name + ': ' + (value === null ? '—' : String(value))).join('; ') || '—',
  ]);
}

export const auditHeaders = ['Time', 'uid', 'Action', 'Provider', 'Actor', 'Outcome', 'Request id', 'Other'];

/** Shows the audit page. */
export async function auditPage() {
  const filter = { uid: '', action: '', provider: '', outcome: '' };
  let cursors = [null];
  const select = h('select', { name: 'action', id: 'audit-action' }, actions.map((action) => h('option', { value: action }, action || 'any')));
  const inputs = {
    uid: field('uid', { name: 'uid', id: 'audit-uid', type: 'search', autocomplete: 'off' }),
    provider: field('Provider', { name: 'provider', id: 'audit-provider', type: 'search', autocomplete: 'off' }),
    outcome: field('Outcome', { name: 'outcome', id: 'audit-outcome', type: 'search', autocomplete: 'off', placeholder: 'success, USER_DISABLED…' }),
  };
  const results = h('section', { id: 'audit-results', 'aria-live': 'polite' });
  async function load() {
    results.replaceChildren(state('Loading events…'));
    try {
      const answer = await call('GET', '/admin/v1/audit' + query({ ...filter, limit: 50, cursor: cursors[cursors.length - 1] }));
      const pager = h('div', { class: 'pager' });
      if (cursors.length > 1) pager.append(h('button', { type: 'button', class: 'quiet', onclick: () => { cursors.pop(); load(); } }, 'Newer'));
      if (answer.nextCursor) pager.append(h('button', { type: 'button', class: 'quiet', onclick: () => { cursors.push(answer.nextCursor); load(); } }, 'Older'));
      results.replaceChildren(
        answer.events.length === 0 ? state('No event matches.', 'empty') : table('Audit events', auditHeaders, auditRows(answer.events)),
        pager,
      );
    } catch (error) {
      if (error.status === 401) throw error;
      results.replaceChildren(errorState(error));
    }
  }
  const form = h('form', {
    class: 'search',
    onsubmit: (event) => {
      event.preventDefault();
      filter.action = select.value;
      for (const name of ['uid', 'provider', 'outcome']) filter[name] = inputs[name].querySelector('input').value.trim();
      cursors = [null];
      load().catch(() => {});
    },
  },
    inputs.uid,
    h('label', { class: 'field' }, h('span', {}, 'Action'), select),
    inputs.provider,
    inputs.outcome,
    h('button', { type: 'submit', id: 'audit-filter' }, 'Filter'),
  );
  show(h('h1', {}, 'Audit log'), form, results);
  await load();
}
