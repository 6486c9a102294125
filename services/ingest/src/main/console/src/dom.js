// Small DOM helpers: escaped text into templates, and element lookup.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function badge(state) {
  return `<span class="badge state-${esc(state)}">${esc(state)}</span>`;
}

/** Runs `fn` `ms` after the first of a burst of calls, and once more if calls came meanwhile: a steady stream of calls still runs it every `ms`. */
export function throttle(fn, ms) {
  let timer = null;
  let again = false;
  const fire = async () => {
    again = false;
    try { await fn(); } finally {
      timer = again ? setTimeout(fire, ms) : null;
    }
  };
  return () => {
    if (timer) again = true;
    else timer = setTimeout(fire, ms);
  };
}

export function showError(where, e) {
  where.innerHTML = `<div class="error">${esc(e.message || e)}</div>`;
}

/** The header's indicator of the page's live-update stream. */
export function setLive(state) {
  const live = $('#live');
  if (!live) return;
  live.textContent = state === 'live' ? '● live' : state;
  live.className = `live ${state === 'live' ? 'on' : 'off'}`;
}
