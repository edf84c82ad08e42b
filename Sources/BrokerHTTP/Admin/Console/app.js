// The console's entry: the HTTPS check, the session, and the pages by location hash
// (#/users, #/users/<uid>, #/providers, #/audit, #/dashboard, #/outbox).
import { resume, signIn, signOut, onUnauthenticated } from './api.js';
import { h, show, state, errorState } from './dom.js';
import { usersPage } from './users.js';
import { userPage } from './user.js';
import { auditPage } from './audit.js';
import { dashboardPage } from './dashboard.js';
import { outboxPage } from './outbox.js';
import { providersPage } from './providers.js';

let signedIn = false;

/** Whether the page came over a connection where a Secure cookie can be set. */
function secureContext() {
  if (location.protocol === 'https:') return true;
  const host = location.hostname;
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function needsHTTPS() {
  document.getElementById('bar').hidden = true;
  show(
    h('section', { class: 'card narrow', id: 'needs-https' },
      h('h1', {}, 'This console needs HTTPS'),
      h('p', {}, 'It was opened over plain HTTP from ' + location.host + ', where the browser refuses its secure session cookie. ' +
        'Open it through HTTPS (a TLS-terminating proxy in front of the broker), or over loopback (127.0.0.1) on the broker’s machine.')),
  );
}

function signInPage(message) {
  document.getElementById('bar').hidden = true;
  const input = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = h('p', { class: 'state', role: 'status', id: 'sign-in-status' }, message || '');
  const button = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  const form = h('form', {
    class: 'card narrow',
    id: 'sign-in-form',
    onsubmit: async (event) => {
      event.preventDefault();
      button.disabled = true;
      status.textContent = 'Signing in…';
      status.className = 'state';
      try {
        await signIn(input.value);
        input.value = '';
        signedIn = true;
        if (!location.hash || location.hash === '#/' || location.hash === '#/sign-in') location.hash = '#/users';
        else route();
      } catch (error) {
        status.textContent = error.status === 401 ? 'That is not the admin token.' : error.message + (error.code ? ' (' + error.code + ')' : '');
        status.className = 'state error';
        button.disabled = false;
        input.focus();
      }
    },
  },
    h('h1', {}, 'Broker admin console'),
    h('label', { class: 'field', for: 'token' }, h('span', {}, 'Admin token (BROKER_ADMIN_TOKEN)')),
    input,
    h('p', { class: 'hint' }, 'The token is exchanged for a session cookie and not kept by the page. The session lasts 8 hours.'),
    button,
    status,
  );
  show(form);
  input.focus();
}

/** Shows the page the hash names. */
async function route() {
  if (!signedIn) return signInPage();
  document.getElementById('bar').hidden = false;
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  const page = parts[0] || 'users';
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    if (page === 'users' && parts.length > 1 && parts[1]) await userPage(decodeURIComponent(parts.slice(1).join('/')));
    else if (page === 'users') await usersPage(new URLSearchParams(location.hash.split('?')[1] || ''));
    else if (page === 'providers') await providersPage();
    else if (page === 'audit') await auditPage();
    else if (page === 'dashboard') await dashboardPage();
    else if (page === 'outbox') await outboxPage();
    else show(state('No such page.', 'empty'));
  } catch (error) {
    if (error.status === 401) {
      signedIn = false;
      return signInPage('Your console session has ended; sign in again.');
    }
    show(errorState(error));
  }
}

/** Called by pages when an API call says the session has ended. */
export function sessionEnded() {
  signedIn = false;
  signInPage('Your console session has ended; sign in again.');
}

async function start() {
  if (!secureContext()) return needsHTTPS();
  document.getElementById('sign-out').addEventListener('click', async () => {
    try {
      await signOut();
    } catch (error) {
      // The session is gone either way.
    }
    signedIn = false;
    history.replaceState(null, '', '#/sign-in');
    signInPage('Signed out.');
  });
  window.addEventListener('hashchange', route);
  onUnauthenticated(() => {
    if (signedIn) sessionEnded();
  });
  try {
    signedIn = await resume();
  } catch (error) {
    show(errorState(error));
    return;
  }
  route();
}

start();
