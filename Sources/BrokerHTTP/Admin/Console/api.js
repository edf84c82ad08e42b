// The admin API, called with the console session's cookie (sent by the browser, never readable here) and,
// for a change, the session's CSRF token in X-CSRF-Token. The token lives in this module only: never in
// the page's storage or a cookie.

let csrfToken = null;
let unauthenticated = null;

/** Registers what to do when an admin API call says the session has ended (401). */
export function onUnauthenticated(handler) {
  unauthenticated = handler;
}

/** An error answer of the admin API: its status, stable code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls the admin API; resolves to the JSON body (null for 204), rejects with an ApiError. */
export async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', 'The broker could not be reached.');
  }
  if (response.status === 204) return null;
  let json = null;
  try {
    json = await response.json();
  } catch (error) {
    json = null;
  }
  if (!response.ok) {
    const detail = json && json.error ? json.error : {};
    if (response.status === 401 && !path.startsWith('/admin/v1/console/session') && unauthenticated) {
      csrfToken = null;
      unauthenticated();
    }
    throw new ApiError(response.status, detail.code || 'HTTP_' + response.status, detail.message || response.statusText);
  }
  return json;
}

/** Resumes a session after a reload: true when the cookie still names a live session. */
export async function resume() {
  try {
    const session = await call('GET', '/admin/v1/console/session');
    csrfToken = session.csrfToken;
    return true;
  } catch (error) {
    if (error.status === 401) return false;
    throw error;
  }
}

/** Exchanges the admin token for a session cookie; the token itself is not kept. */
export async function signIn(token) {
  const session = await call('POST', '/admin/v1/console/session', { token });
  csrfToken = session.csrfToken;
}

/** Ends the session. */
export async function signOut() {
  try {
    await call('DELETE', '/admin/v1/console/session');
  } finally {
    csrfToken = null;
  }
}

/** A query string of the non-empty values. */
export function query(values) {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text ? '?' + text : '';
}

/** A path segment. */
export function segment(value) {
  return encodeURIComponent(value);
}
