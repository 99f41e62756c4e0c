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
  const response = await fetch(`api/v1/${route}${query}`, { headers });
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

/// Like getJson, but null when the route answers 404 (nothing of that kind stored).
export async function getJsonIfAny(route, params) {
  try {
    return await getJson(route, params);
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
