// The console's HTTP API, by relative URL: the console works under whatever path it is mounted at.

let me = null;

/** An error answer of the API: {status, error, field, message}. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : 'HTTP ' + status);
    this.status = status;
    this.error = body && body.error;
    this.field = body && body.field;
  }
}

/** Absolute URL of an API path, without any user:password the page's own URL may carry (fetch refuses those). */
function url(path, params) {
  const u = new URL(path, document.baseURI);
  u.username = '';
  u.password = '';
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== null && v !== undefined && v !== '') u.searchParams.set(k, v);
  }
  return u.toString();
}

async function send(method, path, params, body) {
  const headers = {'Accept': 'application/json'};
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    headers['X-Postbox-Csrf'] = (await session()).csrfToken;
  }
  const res = await fetch(url(path, params), {
    method, headers, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  let json = null;
  try { json = await res.json(); } catch (e) { json = null; }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

export function get(path, params) { return send('GET', path, params); }
export function post(path, body) { return send('POST', path, undefined, body); }

/** GET api/me once: {name, permissions, readOnly, csrfToken}. */
export async function session() {
  if (!me) me = await send('GET', 'api/me');
  return me;
}

/** Whether the operator may use `permission` on this console (a read-only console changes nothing). */
export function may(permission) {
  if (!me) return false;
  if (me.readOnly && permission !== 'VIEW' && permission !== 'REVEAL_PAYLOAD') return false;
  return me.permissions.includes(permission);
}

/** The path segment of a value (event numbers may hold '/', spaces, any character). */
export function seg(value) { return encodeURIComponent(value); }
