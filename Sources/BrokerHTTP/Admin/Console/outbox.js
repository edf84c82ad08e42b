// Failing deliveries of the outbox (mails, provider calls, events): what failed, where it goes, how often it was
// tried, its last error and its next try, and a retry of one, behind a confirmation. Never a payload: the API
// lists none.
import { call, query, segment } from './api.js';
import { h, show, state, errorState, table, time } from './dom.js';
import { confirmAction } from './confirm.js';
import { sessionEnded } from './app.js';

export const outboxHeaders = ['Kind', 'Target', 'uid', 'State', 'Attempts', 'Last error', 'Next try', 'Queued', ''];

/** Shows the failing deliveries. */
export async function outboxPage() {
  const message = h('p', { class: 'state', role: 'status', id: 'outbox-status' });
  const results = h('section', { id: 'outbox-results', 'aria-live': 'polite' });

  async function retry(job) {
    const where = job.target ? ' to ' + job.target : '';
    const ok = await confirmAction(
      'Retry this delivery?',
      'The ' + job.kind + ' delivery' + where + ' (job ' + job.id + ') is tried again now, as the same message.',
      'Retry now',
    );
    if (!ok) return;
    try {
      const answer = await call('POST', '/admin/v1/outbox/' + segment(job.id) + '/retry', {});
      await load();
      message.textContent = 'Job ' + answer.job.id + ' is scheduled again (next try ' + answer.job.nextAttemptAt + ').';
      message.className = 'state ok';
    } catch (error) {
      if (error.status === 401) return sessionEnded();
      message.textContent = error.message + (error.code ? ' (' + error.code + ')' : '');
      message.className = 'state error';
    }
  }

  function rows(jobs) {
    return jobs.map((job) => [
      job.kind,
      job.target ? h('span', { class: 'mono' }, job.target) : '—',
      job.uid ? h('a', { href: '#/users/' + segment(job.uid), class: 'mono' }, job.uid) : '—',
      h('span', { class: job.state === 'pending' ? 'badge' : 'badge off', 'data-state': job.state }, job.state),
      String(job.attempts),
      job.lastError || '—',
      job.state === 'pending' ? time(job.nextAttemptAt) : '—',
      time(job.createdAt),
      h('button', { type: 'button', class: 'quiet', 'data-retry': job.id, onclick: () => retry(job) }, 'Retry'),
    ]);
  }

  async function load() {
    results.replaceChildren(state('Loading deliveries…'));
    try {
      const answer = await call('GET', '/admin/v1/outbox' + query({ failing: 'true' }));
      results.replaceChildren(
        answer.jobs.length === 0
          ? state('No failing delivery.', 'empty')
          : table('Failing deliveries', outboxHeaders, rows(answer.jobs)),
      );
    } catch (error) {
      if (error.status === 401) throw error;
      results.replaceChildren(errorState(error));
    }
  }

  show(
    h('h1', {}, 'Failing deliveries'),
    h('p', { class: 'hint' },
      'Refused, given up, or waiting after a failed attempt. A retry sends the same message again now ' +
      '(an event keeps its webhook-id).'),
    h('button', { type: 'button', class: 'quiet', id: 'outbox-reload', onclick: () => load().catch(() => {}) }, 'Reload'),
    message,
    results,
  );
  await load();
}
