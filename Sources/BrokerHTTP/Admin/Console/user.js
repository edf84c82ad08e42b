// One user: profile, identities, passkeys, second factors, sessions, custom claims, origin and audit trail, and the
// admin actions, each behind a confirmation.
import { call, query, segment } from './api.js';
import { h, show, state, errorState, table, time, valueText } from './dom.js';
import { confirmAction } from './confirm.js';
import { auditRows, auditHeaders } from './audit.js';
import { sessionEnded } from './app.js';

const timeFields = new Set(['createdAt', 'lastSignInAt', 'importedAt', 'linkedAt']);
const shownElsewhere = new Set(['identities', 'passkeys', 'customClaims', 'mfaFactors', 'recoveryCodesLeft']);

/** A definition list of every field the API gives (unknown ones included), times in the viewer's zone. */
function details(object, skip = shownElsewhere) {
  const list = h('dl', { class: 'details' });
  for (const [name, value] of Object.entries(object)) {
    if (skip.has(name)) continue;
    let shown;
    if (timeFields.has(name) || /At$/.test(name)) shown = time(value);
    else if (value !== null && typeof value === 'object') shown = h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
    else shown = valueText(value);
    list.append(h('dt', {}, name), h('dd', { 'data-field': name }, shown));
  }
  return list;
}

/** Shows the page of user `uid`. */
export async function userPage(uid) {
  show(state('Loading the user…'));
  const path = '/admin/v1/users/' + segment(uid);
  let user;
  try {
    user = await call('GET', path);
  } catch (error) {
    if (error.status === 404) return show(h('h1', {}, 'User'), state('No user has the uid ' + uid + '.', 'empty'));
    throw error;
  }
  const message = h('p', { class: 'state', role: 'status', id: 'action-status' });
  const refresh = () => userPage(uid);

  /** Runs a confirmed change, then reloads the page and says what happened. */
  async function act(title, text, label, change, done) {
    if (!(await confirmAction(title, text, label))) return;
    try {
      const result = await change();
      await refresh();
      const status = document.getElementById('action-status');
      if (status) {
        status.textContent = done;
        status.className = 'state ok';
      }
      return result;
    } catch (error) {
      if (error.status === 401) return sessionEnded();
      message.textContent = error.message + (error.code ? ' (' + error.code + ')' : '');
      message.className = 'state error';
    }
  }

  const name = user.displayName || user.email || user.uid;
  const identities = user.identities || [];
  const identityRows = identities.map((identity) => [
    identity.provider,
    h('span', { class: 'mono' }, identity.subject),
    identity.email || '—',
    time(identity.linkedAt),
    h('button', {
      type: 'button',
      class: 'danger small',
      'data-unlink': identity.provider,
      onclick: () => act('Unlink ' + identity.provider + '?', 'The user will no longer sign in with ' + identity.provider +
        '. The broker refuses to remove the last way to sign in.', 'Unlink',
        () => call('DELETE', path + '/identities/' + segment(identity.provider)), 'Unlinked ' + identity.provider + '.'),
    }, 'Unlink'),
  ]);

  // Passkeys (never a key nor the user handle): removal is for a lost or stolen device, behind a confirmation.
  const passkeys = user.passkeys || [];
  const passkeyRows = passkeys.map((passkey) => [
    passkey.name || '—',
    h('span', { class: 'mono' }, passkey.id),
    time(passkey.createdAt),
    passkey.lastUsedAt ? time(passkey.lastUsedAt) : 'never',
    passkey.backedUp ? 'yes' : 'no',
    h('button', {
      type: 'button',
      class: 'danger small',
      'data-delete-passkey': passkey.id,
      onclick: () => act('Delete this passkey?', 'The user will no longer sign in with it (a lost or stolen device). ' +
        'This cannot be undone; the user can register another.', 'Delete',
        () => call('DELETE', path + '/passkeys/' + segment(passkey.id)), 'Passkey deleted.'),
    }, 'Delete'),
  ]);
  const passkeyList = h('div', { id: 'passkeys' },
    passkeys.length ? table('Passkeys', ['Name', 'Id', 'Registered', 'Last used', 'Synced', ''], passkeyRows) : state('No passkey.', 'empty'));

  // Second factors (never a secret): removal is for a lost phone, behind a confirmation.
  const factors = user.mfaFactors || [];
  const factorRows = factors.map((factor) => [
    factor.type,
    factor.displayName || '—',
    h('span', { class: 'mono' }, factor.factorId),
    time(factor.enrolledAt),
    h('button', {
      type: 'button',
      class: 'danger small',
      'data-unenroll': factor.factorId,
      onclick: () => act('Remove this second factor?', 'The user signs in without it (a lost phone). With the last ' +
        'factor the recovery codes go too. The user can enrol again.', 'Remove',
        () => call('DELETE', path + '/mfa/' + segment(factor.factorId)), 'Second factor removed.'),
    }, 'Remove'),
  ]);
  const secondFactors = h('div', { id: 'second-factors' },
    factors.length ? table('Second factors', ['Type', 'Name', 'Id', 'Enrolled', ''], factorRows) : state('No second factor.', 'empty'),
    h('p', { class: 'hint', id: 'recovery-codes-left' }, 'Recovery codes left: ' + (user.recoveryCodesLeft ?? 0)));

  const sessions = h('div', { id: 'sessions' }, state('Loading sessions…'));
  const trail = h('div', { id: 'trail' }, state('Loading the audit trail…'));
  const claims = h('textarea', { id: 'claims', rows: 6, spellcheck: 'false', 'aria-describedby': 'claims-status' });
  claims.value = user.customClaims ? JSON.stringify(user.customClaims, null, 2) : '';
  const claimsStatus = h('p', { class: 'hint', id: 'claims-status' }, 'A JSON object, or empty for none.');
  const tokenOut = h('div', { id: 'custom-token' });

  const actions = h('div', { class: 'actions' },
    user.disabled
      ? h('button', { type: 'button', id: 'enable', onclick: () => act('Enable ' + name + '?', 'The user can sign in again.', 'Enable', () => call('PATCH', path, { disabled: false }), 'Enabled.') }, 'Enable')
      : h('button', { type: 'button', id: 'disable', class: 'danger', onclick: () => act('Disable ' + name + '?', 'Sign-ins and refreshes of this user are refused with USER_DISABLED until enabled.', 'Disable', () => call('PATCH', path, { disabled: true }), 'Disabled.') }, 'Disable'),
    h('button', { type: 'button', id: 'revoke', class: 'danger', onclick: () => act('Revoke every session?', 'Every refresh token of the user stops working, and ID tokens issued before now.', 'Revoke', () => call('POST', path + '/revoke-sessions'), 'Sessions revoked.') }, 'Revoke sessions'),
    h('button', { type: 'button', id: 'mint', onclick: async () => {
      const token = await act('Mint a custom token?', 'A custom token for this user, shown once here.', 'Mint', () => call('POST', '/admin/v1/custom-tokens', { uid: user.uid }), 'Custom token minted: copy it now, it is not shown again.');
      if (token && token.customToken) showToken(token.customToken);
    } }, 'Mint custom token'),
    h('button', { type: 'button', id: 'delete', class: 'danger', onclick: async () => {
      if (!(await confirmAction('Delete ' + name + '?', 'The user, their identities and sessions are deleted. This cannot be undone.', 'Delete'))) return;
      try {
        await call('DELETE', path);
        location.hash = '#/users';
      } catch (error) {
        if (error.status === 401) return sessionEnded();
        message.textContent = error.message + ' (' + error.code + ')';
        message.className = 'state error';
      }
    } }, 'Delete user'),
  );

  function showToken(token) {
    const box = document.getElementById('custom-token');
    if (!box) return;
    const output = h('textarea', { readonly: true, rows: 4, id: 'custom-token-value', 'aria-label': 'Custom token' });
    output.value = token;
    const copied = h('span', { class: 'hint', role: 'status' });
    box.replaceChildren(output, h('button', { type: 'button', class: 'quiet', onclick: async () => {
      try {
        await navigator.clipboard.writeText(token);
        copied.textContent = 'Copied.';
      } catch (error) {
        output.select();
        copied.textContent = 'Select the text and copy it.';
      }
    } }, 'Copy'), copied);
  }

  const claimsForm = h('form', { onsubmit: (event) => {
    event.preventDefault();
    const text = claims.value.trim();
    let value = null;
    if (text) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        claimsStatus.textContent = 'Not valid JSON: ' + error.message;
        claimsStatus.className = 'hint error';
        return;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        claimsStatus.textContent = 'Custom claims must be a JSON object.';
        claimsStatus.className = 'hint error';
        return;
      }
    }
    act('Save custom claims?', value ? 'They appear in the user’s next ID tokens.' : 'The user’s custom claims are removed.', 'Save',
      () => call('PATCH', path, { customClaims: value }), 'Custom claims saved.');
  } },
    h('label', { for: 'claims' }, 'Custom claims'), claims, claimsStatus,
    h('button', { type: 'submit', id: 'save-claims' }, 'Save claims'),
  );

  show(
    h('p', {}, h('a', { href: '#/users' }, '← Users')),
    h('h1', { id: 'user-name' }, name),
    user.isAnonymous ? h('p', { id: 'guest' }, h('span', { class: 'badge' }, 'guest'), ' A guest: no email and no provider until the app upgrades it in place; deleted after the configured days without a sign-in or refresh.') : '',
    message,
    h('section', { class: 'card' }, h('h2', {}, 'Actions'), actions, tokenOut),
    h('section', { class: 'card' }, h('h2', {}, 'Profile and origin'), details(user)),
    h('section', { class: 'card' }, h('h2', {}, 'Identities'),
      identities.length ? table('Linked providers', ['Provider', 'Subject', 'Email', 'Linked', ''], identityRows) : state('No provider is linked.', 'empty')),
    h('section', { class: 'card' }, h('h2', {}, 'Passkeys'), passkeyList),
    h('section', { class: 'card' }, h('h2', {}, 'Second factors'), secondFactors),
    h('section', { class: 'card' }, h('h2', {}, 'Sessions'), sessions),
    h('section', { class: 'card' }, h('h2', {}, 'Custom claims'), claimsForm),
    h('section', { class: 'card' }, h('h2', {}, 'Audit trail'), trail),
  );

  try {
    const summary = await call('GET', path + '/sessions');
    sessions.replaceChildren(details(summary, new Set()));
  } catch (error) {
    if (error.status === 401) throw error;
    sessions.replaceChildren(errorState(error));
  }
  try {
    const answer = await call('GET', '/admin/v1/audit' + query({ uid: user.uid, limit: 50 }));
    trail.replaceChildren(answer.events.length ? table('Events of this user', auditHeaders, auditRows(answer.events)) : state('No event yet.', 'empty'));
  } catch (error) {
    if (error.status === 401) throw error;
    trail.replaceChildren(errorState(error));
  }
}
