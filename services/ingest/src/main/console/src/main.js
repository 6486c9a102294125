// The console's shell: signs in (secure mode), routes #/jobs, #/jobs/ID and #/frameworks.
import './style.css';
import { startSession, signOut } from './session.js';
import { $, esc } from './dom.js';
import { jobsPage } from './jobs.js';
import { jobPage } from './job.js';
import { frameworksPage } from './frameworks.js';

let leave = () => {};

function route() {
  leave();
  const view = $('#view');
  const hash = window.location.hash || '#/jobs';
  const job = /^#\/jobs\/([^/?]+)/.exec(hash);
  document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', hash.startsWith(a.getAttribute('href'))));
  if (job) leave = jobPage(view, decodeURIComponent(job[1]));
  else if (hash.startsWith('#/frameworks')) leave = frameworksPage(view);
  else leave = jobsPage(view);
}

async function start() {
  performance.mark('flash:script');
  try {
    const session = await startSession();
    $('#mode').innerHTML = session.secure
      ? ''
      : '<div class="banner">Open mode: no sign-in, everyone who reaches this port sees and cancels every job (<code>bin/flash up --secure</code> for users).</div>';
    $('#who').innerHTML = session.secure
      ? `${esc(session.user)}${session.admin ? ' (admin: all jobs)' : ''} <button id="signout" class="link">sign out</button>` : '';
    if (session.secure) $('#signout').addEventListener('click', signOut);
  } catch (e) {
    $('#view').innerHTML = `<div class="error">could not sign in: ${esc(e.message)}</div>`;
    return;
  }
  window.addEventListener('hashchange', route);
  // A page left for another keeps no event stream open: browsers allow six connections per host.
  window.addEventListener('pagehide', () => { leave(); leave = () => {}; });
  route();
}

start();
