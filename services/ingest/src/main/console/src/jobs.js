// The jobs list: filters, paging, search by id, and rows that change as the jobs do.
import { follow, getWithHeaders } from './api.js';
import { $, badge, throttle, esc, setLive, showError } from './dom.js';
import { FINAL_JOB_STATES, formatDuration, formatTime, jobDuration, jobsQuery, newerJob, progress } from './model.js';

const PAGE = 50;
const STATES = ['', 'ACCEPTED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

export function jobsPage(view) {
  const filters = { owner: '', state: '', name: '', since: '', until: '' };
  let offset = 0;
  let shown = new Map();
  let liveWhileLoading = null; // while a list read is on its way: the jobs' live events, which may be newer than it
  view.innerHTML = `
    <h1>Jobs</h1>
    <form id="filters" class="filters">
      <input name="search" placeholder="job id → open" title="a job id: opens the job">
      <input name="name" placeholder="name starts with">
      <input name="owner" placeholder="owner">
      <select name="state">${STATES.map((s) => `<option value="${s}">${s || 'any state'}</option>`).join('')}</select>
      <label>from <input name="since" type="datetime-local"></label>
      <label>to <input name="until" type="datetime-local"></label>
      <button>Filter</button>
    </form>
    <div id="jobs-table"></div>
    <div class="pager"><button id="prev">‹ newer</button> <span id="count"></span> <button id="next">older ›</button></div>`;

  const render = (listed, total) => {
    const jobs = listed.map((j) => newerJob(liveWhileLoading?.get(j.jobId), j));
    shown = new Map(jobs.map((j) => [j.jobId, j]));
    $('#count').textContent = total === 0 ? 'no jobs' : `${offset + 1}–${offset + jobs.length} of ${total}`;
    $('#prev').disabled = offset === 0;
    $('#next').disabled = offset + jobs.length >= total;
    $('#jobs-table').innerHTML = jobs.length === 0 ? '<p class="muted">No job matches. Submit one: <code>bin/flash submit examples/hello.yaml</code></p>' : `
      <table class="jobs"><thead><tr><th>Job</th><th>Name</th><th>State</th><th>Owner</th><th>Queue</th><th>Prio</th>
      <th>Progress</th><th>Submitted</th><th>Started</th><th>Finished</th><th>Duration</th></tr></thead>
      <tbody>${jobs.map(row).join('')}</tbody></table>`;
  };

  const load = async () => {
    try {
      const q = { ...filters };
      q.since = filters.since ? new Date(filters.since).getTime() : '';
      q.until = filters.until ? new Date(filters.until).getTime() : '';
      liveWhileLoading = new Map();
      const { body, headers } = await getWithHeaders(`/jobs?${jobsQuery(q, offset, PAGE)}`);
      render(body, Number(headers.get('X-Total-Count') || body.length));
    } catch (e) {
      showError($('#jobs-table'), e);
    } finally {
      liveWhileLoading = null;
    }
  };
  const reload = throttle(load, 400);

  $('#filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const form = new FormData(ev.target);
    const search = String(form.get('search') || '').trim();
    if (search) {
      window.location.hash = `#/jobs/${encodeURIComponent(search)}`;
      return;
    }
    for (const k of Object.keys(filters)) filters[k] = String(form.get(k) || '').trim();
    offset = 0;
    load();
  });
  $('#prev').addEventListener('click', () => { offset = Math.max(0, offset - PAGE); load(); });
  $('#next').addEventListener('click', () => { offset += PAGE; load(); });

  load();
  const stop = follow('/events', (ev) => {
    if (ev.kind !== 'job') return;
    const job = newerJob(shown.get(ev.job.jobId), ev.job);
    liveWhileLoading?.set(job.jobId, job);
    const tr = document.querySelector(`tr[data-job="${CSS.escape(job.jobId)}"]`);
    if (tr) {
      tr.outerHTML = row(job);
      shown.set(job.jobId, job);
    } else if (offset === 0) {
      reload(); // a job new to this page: its place depends on the filters and order
    }
  }, setLive);
  const tick = setInterval(() => { // running durations move on
    for (const j of shown.values()) {
      if (FINAL_JOB_STATES.has(j.state)) continue;
      const cell = document.querySelector(`tr[data-job="${CSS.escape(j.jobId)}"] .duration`);
      if (cell) cell.textContent = formatDuration(jobDuration(j, Date.now()));
    }
  }, 1000);
  return () => { stop(); clearInterval(tick); };
}

function row(j) {
  const p = progress(j);
  return `<tr data-job="${esc(j.jobId)}" data-state="${esc(j.state)}">
    <td><a href="#/jobs/${encodeURIComponent(j.jobId)}" class="mono">${esc(j.jobId)}</a></td>
    <td>${esc(j.name)}</td><td>${badge(j.state)}</td><td>${esc(j.owner || '–')}</td><td>${esc(j.queue || '–')}</td>
    <td>${esc(j.priority)}</td>
    <td><div class="progress" title="${esc(p.text)} units succeeded">
      <span class="ok" style="width:${p.succeeded}%"></span><span class="run" style="width:${p.running}%"></span><span class="bad" style="width:${p.failed}%"></span>
    </div><span class="muted small">${esc(p.text)}</span></td>
    <td>${formatTime(j.acceptedAt)}</td><td>${formatTime(j.startedAt)}</td><td>${formatTime(j.finishedAt)}</td>
    <td class="duration">${formatDuration(jobDuration(j, Date.now()))}</td></tr>`;
}
