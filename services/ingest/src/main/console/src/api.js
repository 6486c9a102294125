// The ingest service's HTTP API, as the CLI uses it; errors carry the API's own words.
import { fetchEventSource } from '@microsoft/fetch-event-source';
import { authHeaders } from './session.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path) {
  const r = await fetch(path, { method, headers: { Accept: 'application/json', ...(await authHeaders()) } });
  const text = await r.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = { error: text }; }
  if (!r.ok) throw new ApiError(r.status, (body && body.error) || `${method} ${path}: HTTP ${r.status}`);
  return { body, headers: r.headers };
}

export async function get(path) {
  return (await call('GET', path)).body;
}

export async function getWithHeaders(path) {
  return call('GET', path);
}

export async function post(path) {
  return (await call('POST', path)).body;
}

/**
 * Follows /events (all of the caller's jobs, or one job and its tasks). Reconnects after a drop;
 * `onState` hears 'live' or 'reconnecting'. Returns a function that stops it.
 */
export function follow(path, onEvent, onState) {
  const stop = new AbortController();
  const open = async () => {
    try {
      await fetchEventSource(path, {
        signal: stop.signal,
        openWhenHidden: true,
        headers: await authHeaders(),
        async onopen(r) {
          if (!r.ok) {
            let said = '';
            try { said = (await r.json()).error; } catch { said = `HTTP ${r.status}`; }
            throw new ApiError(r.status, said);
          }
          onState('live');
        },
        onmessage(m) {
          if (m.data) onEvent(JSON.parse(m.data));
        },
        onclose() {
          throw new Error('closed');
        },
        onerror(e) {
          if (e instanceof ApiError && e.status === 404) { // a job just submitted is not accepted yet
            onState(`waiting: ${e.message}`);
            return 1000;
          }
          onState('reconnecting');
          if (e instanceof ApiError && e.status >= 400 && e.status < 500) throw e; // refused: no retry
          return 2000;
        },
      });
    } catch (e) {
      if (!stop.signal.aborted) onState(`stopped: ${e.message}`);
    }
  };
  open();
  return () => stop.abort();
}
