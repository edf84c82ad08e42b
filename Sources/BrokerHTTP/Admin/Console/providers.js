// The OpenID Connect providers: the config file's (read-only) and those managed at run time, which can be
// added, disabled or enabled, and deleted (each change confirmed first, and audited by the broker).
import { call, segment } from './api.js';
import { h, show, state, errorState, table, field } from './dom.js';
import { confirmAction } from './confirm.js';

/** A provider's row: its id, issuer, client id, state and the actions a run-time provider has. */
function providerRow(provider, reload, status) {
  const actions = h('div', { class: 'actions' });
  if (provider.readOnly) {
    actions.append(h('span', { class: 'muted' }, 'config file'));
  } else {
    const toggle = provider.enabled ? 'Disable' : 'Enable';
    actions.append(
      h('button', {
        type: 'button', class: 'quiet', 'data-provider-toggle': provider.id,
        onclick: async () => {
          const text = provider.enabled
            ? 'Nobody signs in with ' + provider.id + ' until it is enabled again, on every instance.'
            : provider.id + ' signs users in again.';
          if (!(await confirmAction(toggle + ' ' + provider.id + '?', text, toggle))) return;
          await change(() => call('PATCH', '/admin/v1/providers/' + segment(provider.id), { enabled: !provider.enabled }), reload, status);
        },
      }, toggle),
      h('button', {
        type: 'button', class: 'danger', 'data-provider-delete': provider.id,
        onclick: async () => {
          const text = 'Nobody signs in with ' + provider.id + ' any more; its users keep their accounts.';
          if (!(await confirmAction('Delete ' + provider.id + '?', text, 'Delete'))) return;
          await change(() => call('DELETE', '/admin/v1/providers/' + segment(provider.id)), reload, status);
        },
      }, 'Delete'),
    );
  }
  return [
    h('span', { class: 'mono' }, provider.id),
    provider.displayName || '—',
    h('span', { class: 'mono' }, provider.issuer),
    h('span', { class: 'mono' }, provider.clientId),
    h('span', { class: provider.enabled ? 'badge on' : 'badge off' }, provider.enabled ? 'enabled' : 'disabled'),
    actions,
  ];
}

/** Runs a change, then shows the list again, or the refusal. */
async function change(request, reload, status) {
  try {
    await request();
    await reload();
  } catch (error) {
    if (error.status === 401) throw error;
    status.replaceChildren(errorState(error));
  }
}

/** Shows the providers page. */
export async function providersPage() {
  const results = h('section', { id: 'providers-results', 'aria-live': 'polite' });
  const status = h('div', { id: 'providers-status' });
  async function load() {
    results.replaceChildren(state('Loading providers…'));
    const answer = await call('GET', '/admin/v1/providers');
    results.replaceChildren(
      answer.providers.length === 0
        ? state('No OpenID Connect provider.', 'empty')
        : table('OpenID Connect providers', ['Id', 'Name', 'Issuer', 'Client id', 'State', ''],
          answer.providers.map((provider) => providerRow(provider, load, status))),
    );
  }
  const inputs = {
    id: field('Id', { name: 'id', id: 'provider-id', required: true, autocomplete: 'off', pattern: '[a-z][a-z0-9\\-]{0,31}' }),
    displayName: field('Name', { name: 'displayName', id: 'provider-name', autocomplete: 'off' }),
    issuer: field('Issuer', { name: 'issuer', id: 'provider-issuer', required: true, type: 'url', autocomplete: 'off' }),
    clientId: field('Client id (the audience)', { name: 'clientId', id: 'provider-client-id', required: true, autocomplete: 'off' }),
  };
  const form = h('form', {
    class: 'search', id: 'provider-form',
    onsubmit: async (event) => {
      event.preventDefault();
      const value = (name) => inputs[name].querySelector('input').value.trim();
      const body = { id: value('id'), issuer: value('issuer'), clientId: value('clientId'), enabled: true };
      if (value('displayName')) body.displayName = value('displayName');
      const text = body.id + ' (' + body.issuer + ') will sign users in on every instance, as /v1/signin/' + body.id + '.';
      if (!(await confirmAction('Add ' + body.id + '?', text, 'Add'))) return;
      status.replaceChildren();
      await change(async () => {
        await call('POST', '/admin/v1/providers', body);
        for (const input of form.querySelectorAll('input')) input.value = '';
      }, load, status);
    },
  },
    inputs.id, inputs.displayName, inputs.issuer, inputs.clientId,
    h('button', { type: 'submit', id: 'provider-add' }, 'Add provider'),
  );
  show(
    h('h1', {}, 'Providers'),
    h('p', { class: 'hint' }, 'OpenID Connect providers. Those of the config file are changed there; the others are kept in the database and apply to every instance at once.'),
    form, status, results,
  );
  await load();
}
