// The dashboard's JSON API (v1), read relative to the page so a reverse proxy's prefix works.

let token = '';

/// Sends `t` (the page's `token` parameter) as a bearer token with every request.
export function setToken(t) {
  token = t || '';
}

/// The parsed JSON of `GET api/v1/<route>?<params>`; throws an Error with the API's message.
export async function getJson(route, params) {
  const query = params && params.toString() ? `?${params}` : '';
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return readJson(route, fetch(`api/v1/${route}${query}`, { headers }));
}

/// The parsed JSON of a reply to a request for `route` already sent (`reply`: fetch's promise), with
/// getJson's errors.
export async function readJson(route, reply) {
  const response = await reply;
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const e = body && body.error;
    const field = e && e.field ? ` (${e.field})` : '';
    throw new Error(`${route}: ${response.status}${field} ${e && e.message ? e.message : response.statusText}`);
  }
  return body;
}

/// Like readJson, but null when the route answers 404 (nothing of that kind stored).
export async function readJsonIfAny(route, reply) {
  try {
    return await readJson(route, reply);
  } catch (e) {
    if (/: 404\b/.test(e.message)) return null;
    throw e;
  }
}

/// The address of the CSV export of the points the filters select.
export function csvUrl(params) {
  const p = new URLSearchParams(params);
  if (token) p.set('token', token);
  const query = p.toString();
  return `api/v1/export.csv${query ? `?${query}` : ''}`;
}
