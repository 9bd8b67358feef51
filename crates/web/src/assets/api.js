// The JSON API, with the access token (kept in localStorage) sent as a bearer token.

const TOKEN_KEY = 'dupfinder.token';

export function token() {
  return localStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

// An error answered by the API: its HTTP status, stable code and message.
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// Calls the API. `body` is sent as JSON unless `ndjson` is given (a JSON Lines string) or `form`
// (a FormData, sent as multipart/form-data with the browser's boundary).
export async function api(path, { method = 'GET', body, ndjson, form, signal } = {}) {
  const headers = { Accept: 'application/json' };
  const bearer = token();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  let payload;
  if (form !== undefined) {
    payload = form;
  } else if (ndjson !== undefined) {
    headers['Content-Type'] = 'application/x-ndjson';
    payload = ndjson;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The server cannot be reached.');
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let value = null;
  try {
    value = text ? JSON.parse(text) : null;
  } catch {
    value = null;
  }
  if (!response.ok) {
    const error = value && value.error;
    throw new ApiError(
      response.status,
      error ? error.code : 'http_' + response.status,
      error ? error.message : `The server answered ${response.status}.`,
    );
  }
  return value;
}

// Fetches a file the API serves (a PDF report) with the bearer token and hands it to the
// browser as a download named `name`.
export async function download(path, name) {
  const headers = {};
  const bearer = token();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const response = await fetch(path, { headers });
  if (!response.ok) {
    let message = `The server answered ${response.status}.`;
    try {
      message = (await response.json()).error.message;
    } catch {
      // not a JSON error
    }
    throw new ApiError(response.status, 'http_' + response.status, message);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// Path segments, escaped.
export function path(...segments) {
  return segments.map((s) => encodeURIComponent(s)).join('/');
}
