// Users: search by email prefix, uid, provider and provider subject, page by page.
import { call, query, segment, ApiError } from './api.js';
import { h, show, state, errorState, table, field, time } from './dom.js';

// The last search, kept while the console is open so that "back" from a user returns to it.
const search = { emailPrefix: '', uid: '', provider: '', subject: '' };
let cursors = [null];

function userLink(user) {
  return h('a', { href: '#/users/' + segment(user.uid), class: 'mono' }, user.uid);
}

function rows(users) {
  return users.map((user) => [
    userLink(user),
    user.email || '—',
    user.displayName || '—',
    // How the user signs in, `password` included, as `broker admin users list` shows it.
    user.isAnonymous ? h('span', { class: 'badge' }, 'guest') : (user.signInMethods || []).join(', ') || '—',
    time(user.createdAt),
    user.disabled ? h('span', { class: 'badge off' }, 'disabled') : h('span', { class: 'badge on' }, 'active'),
  ]);
}

const headers = ['uid', 'Email', 'Display name', 'Providers', 'Created', 'State'];

/** Shows the users page with its results. */
export async function usersPage() {
  const inputs = {
    emailPrefix: field('Email starts with', { name: 'emailPrefix', id: 'search-email', type: 'search', value: search.emailPrefix, autocomplete: 'off' }),
    uid: field('uid', { name: 'uid', id: 'search-uid', type: 'search', value: search.uid, autocomplete: 'off' }),
    provider: field('Provider', { name: 'provider', id: 'search-provider', type: 'search', value: search.provider, autocomplete: 'off', placeholder: 'id, or password' }),
    subject: field('Provider subject', { name: 'subject', id: 'search-subject', type: 'search', value: search.subject, autocomplete: 'off' }),
  };
  const results = h('section', { id: 'results', 'aria-live': 'polite' }, state('Loading users…'));
  const form = h('form', {
    class: 'search',
    role: 'search',
    onsubmit: (event) => {
      event.preventDefault();
      for (const name of Object.keys(search)) search[name] = inputs[name].querySelector('input').value.trim();
      cursors = [null];
      load(results);
    },
  },
    Object.values(inputs),
    h('button', { type: 'submit', id: 'search-button' }, 'Search'),
  );
  show(h('h1', {}, 'Users'), form, results);
  await load(results);
}

async function load(results, page = cursors.length - 1) {
  results.replaceChildren(state('Loading users…'));
  try {
    let users;
    let next = null;
    if (search.uid) {
      users = [await call('GET', '/admin/v1/users/' + segment(search.uid))];
    } else if (search.subject) {
      if (!search.provider) {
        results.replaceChildren(state('A provider subject needs its provider.', 'error'));
        return;
      }
      users = [await call('GET', '/admin/v1/identities/' + segment(search.provider) + '/' + segment(search.subject))];
    } else {
      const answer = await call('GET', '/admin/v1/users' + query({
        emailPrefix: search.emailPrefix, provider: search.provider, limit: 25, cursor: cursors[page],
      }));
      users = answer.users;
      next = answer.nextCursor;
    }
    const children = [];
    if (users.length === 0) children.push(state('No user matches.', 'empty'));
    else children.push(table('Users found', headers, rows(users)));
    const pager = h('div', { class: 'pager' });
    if (page > 0) {
      pager.append(h('button', { type: 'button', class: 'quiet', onclick: () => { cursors.pop(); load(results); } }, 'Previous page'));
    }
    if (next) {
      pager.append(h('button', { type: 'button', class: 'quiet', id: 'next-page', onclick: () => { cursors.push(next); load(results); } }, 'Next page'));
    }
    children.push(pager);
    results.replaceChildren(...children);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      results.replaceChildren(state('No user matches.', 'empty'));
    } else if (error instanceof ApiError && error.status === 401) {
      throw error;
    } else {
      results.replaceChildren(errorState(error));
    }
  }
}
