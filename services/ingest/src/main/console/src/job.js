// One job: header and cancel, its DAG, the Gantt of its attempts, why what waits waits, its tasks,
// and per task its attempts, memory and log. Live: the job's and its tasks' events move it on.
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';
import { follow, get, post } from './api.js';
import { $, badge, throttle, esc, setLive, showError } from './dom.js';
import { ganttChart, memoryChart } from './charts.js';
import {
  ACTIVE_UNIT_STATES, dagElements, dagTasks, FINAL_JOB_STATES, formatBytes, formatCost, formatDuration, formatTime, ganttBars,
  jobDuration,
  shardOf, shownState, unitLabel,
} from './model.js';

cytoscape.use(dagre);

/** What tests and the benchmark read: the drawn DAG, the Gantt's bars, and each live update's delay. */
const probe = (window.flashConsole = window.flashConsole || { liveDelays: [] });

const GANTT_ROWS_BY_UNIT_UP_TO = 150;

export function jobPage(view, jobId) {
  const state = { job: null, units: new Map(), graph: null, attempts: [], selected: null, rowsBy: null, acceptedAt: 0 };
  let cy = null;
  let gantt = null;
  let memory = null;
  let logTimer = null;
  let stopped = false;
  let whyTimer = null; // what waits is read again while it waits: positions and heartbeats move without a task event
  let rendered = false;

  view.innerHTML = `
    <div id="job-header"><p class="muted">loading ${esc(jobId)}…</p></div>
    <section><h2>Tasks</h2><div id="dag" class="dag"></div></section>
    <section><h2>Attempts over time <select id="rows-by"><option value="unit">a row per task</option><option value="node">a row per node</option></select>
      <span id="gantt-caption" class="muted small"></span></h2>
      <div class="gantt-box"><div id="gantt" class="gantt"><canvas></canvas></div></div></section>
    <section id="why-section"><h2>Why waiting</h2><div id="why"></div></section>
    <section><h2>Task list</h2><div id="tasks"></div></section>
    <section id="task-detail"></section>`;

  const header = () => {
    const j = state.job;
    const final = FINAL_JOB_STATES.has(j.state);
    $('#job-header').innerHTML = `
      <h1>${esc(j.name)} ${badge(j.state)}</h1>
      <div class="facts">
        <span class="mono">${esc(j.jobId)}</span><span>owner <b>${esc(j.owner || '–')}</b></span>
        <span>queue <b>${esc(j.queue || '–')}</b>, priority <b>${esc(j.priority)}</b></span>
        <span>${j.tasksSucceeded}/${j.tasksTotal} units succeeded, ${j.tasksRunning} active, ${j.tasksFailed} failed</span>
        <span>submitted ${formatTime(j.acceptedAt)}</span><span>started ${formatTime(j.startedAt)}</span>
        <span>finished ${formatTime(j.finishedAt)}</span><span>took ${formatDuration(jobDuration(j, Date.now()))}</span>
        <span class="cost" title="docs/cost.md: the user pays for what the tasks did, the platform for what it lost">cost
          <b>${formatCost(j.userCost)}</b> user, <b>${formatCost(j.platformCost)}</b> platform</span>
      </div>
      ${j.message ? `<p class="message">${esc(j.message)}</p>` : ''}
      ${final ? '' : '<button id="cancel" class="danger">Cancel job</button> <span id="cancel-said" class="muted"></span>'}`;
    const cancel = $('#cancel');
    if (cancel) {
      cancel.addEventListener('click', async () => {
        if (cancel.dataset.confirm !== 'yes') {
          cancel.dataset.confirm = 'yes';
          cancel.textContent = 'Really cancel? Click again';
          return;
        }
        cancel.disabled = true;
        try {
          await post(`/jobs/${encodeURIComponent(jobId)}/cancel?reason=${encodeURIComponent('cancelled from the console')}`);
          $('#cancel-said').textContent = 'cancel requested: running attempts are being stopped';
        } catch (e) {
          $('#cancel-said').textContent = e.message;
          cancel.disabled = false;
        }
      });
    }
  };

  const drawDag = () => {
    const tasks = dagTasks(jobId, state.graph, state.units);
    if (!cy) {
      cy = cytoscape({
        container: $('#dag'),
        elements: dagElements(tasks),
        style: [
          { selector: 'node', style: { shape: 'round-rectangle', width: 150, height: 42, label: 'data(label)', 'text-wrap': 'wrap',
            'text-valign': 'center', 'font-size': 12, 'background-color': 'data(colour)', color: '#102a43', 'border-width': 1, 'border-color': '#486581' } },
          { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#102a43' } },
          { selector: 'edge', style: { width: 1.5, 'line-color': '#829ab1', 'target-arrow-color': '#829ab1', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier' } },
        ],
        layout: { name: 'dagre', rankDir: 'LR', nodeSep: 16, rankSep: 50 },
        wheelSensitivity: 0.3,
        maxZoom: 1.3, // a small DAG is not blown up to fill the box
      });
      cy.on('tap', 'node', (ev) => select(ev.target.id()));
      probe.cy = cy;
      probe.jobId = jobId;
    } else {
      for (const el of dagElements(tasks)) {
        if (!el.data.source) cy.getElementById(el.data.id).data({ state: el.data.state, colour: el.data.colour, label: el.data.label });
      }
    }
    return tasks;
  };

  const drawTasks = (tasks) => {
    $('#tasks').innerHTML = `<table class="tasks"><thead><tr><th>Task</th><th>State</th><th>Units</th><th>Where</th><th>Last word</th></tr></thead><tbody>
      ${tasks.map((t) => {
    const one = t.shards <= 1 ? state.units.get(`${jobId}.${t.name}`) : null;
    const where = one && one.nodeId ? `${one.frameworkId ?? ''}/${one.nodeId}` : (one && one.frameworkId) || '';
    const words = one ? (one.reason || (one.cachedFrom ? `from the cache: the outputs of ${one.cachedFrom}` : '')) : Object.entries(t.counts).map(([s, n]) => `${n} ${s.toLowerCase()}`).join(', ');
    return `<tr data-task="${esc(t.name)}" data-state="${esc(t.state)}" class="${state.selected === t.name ? 'selected' : ''}">
          <td><a href="javascript:void 0" class="task-link">${esc(t.name)}</a></td><td>${badge(t.state)}</td>
          <td>${t.shards > 1 ? `${t.succeeded}/${t.shards} shards` : '1'}</td><td>${esc(where)}</td><td>${esc(words)}</td></tr>`;
  }).join('')}</tbody></table>`;
    document.querySelectorAll('#tasks .task-link').forEach((a) => a.addEventListener('click', () => select(a.closest('tr').dataset.task)));
  };

  const drawGantt = () => {
    const bars = ganttBars(state.attempts, state.acceptedAt, state.rowsBy, Date.now());
    if (gantt) gantt.destroy();
    const box = $('#gantt');
    box.innerHTML = '<canvas></canvas>';
    gantt = ganttChart($('#gantt canvas'), bars);
    box.dataset.bars = String(bars.length);
    const retried = state.attempts.filter((a) => a.number > 1).length;
    $('#gantt-caption').textContent = `${bars.length} attempt${bars.length === 1 ? '' : 's'} ran${retried ? `, ${retried} of them retries` : ''}`;
    probe.gantt = gantt;
  };

  const drawWhy = async () => {
    try {
      const why = await get(`/jobs/${encodeURIComponent(jobId)}/why`);
      $('#why-section').style.display = why.waiting.length ? '' : 'none';
      const shown = why.waiting.slice(0, 50);
      $('#why').innerHTML = `<ul class="why">${shown.map((w) => `<li data-unit="${esc(w.unitId)}"><b>${esc(w.name)}</b> ${badge(w.state)}
        <span class="reason">${esc(w.why)}</span>${w.frameworks.length ? `<ul>${w.frameworks.map((f) => `<li class="muted">${esc(f)}</li>`).join('')}</ul>` : ''}</li>`).join('')}</ul>
        ${why.waiting.length > shown.length ? `<p class="muted">and ${why.waiting.length - shown.length} more waiting</p>` : ''}`;
      clearTimeout(whyTimer);
      if (why.waiting.length && !stopped) whyTimer = setTimeout(drawWhy, 5000);
    } catch (e) {
      showError($('#why'), e);
    }
  };

  const loadAttempts = async () => {
    try {
      const a = await get(`/jobs/${encodeURIComponent(jobId)}/attempts`);
      state.attempts = a.attempts;
      drawGantt();
      if (state.selected) drawDetail();
    } catch (e) {
      showError($('#gantt'), e);
    }
  };
  const refreshAttempts = throttle(loadAttempts, 1500);
  const refreshWhy = throttle(drawWhy, 1500);

  const select = (name) => {
    state.selected = name;
    if (cy) { cy.$(':selected').unselect(); cy.getElementById(name).select(); }
    document.querySelectorAll('#tasks tr').forEach((tr) => tr.classList.toggle('selected', tr.dataset.task === name));
    drawDetail();
    loadLog();
  };

  const unitsOf = (name) => [...state.units.values()].filter((u) => u.taskId === `${jobId}.${name}` || u.taskId.startsWith(`${jobId}.${name}.`));
  const taskActive = (name) => unitsOf(name).some((u) => ACTIVE_UNIT_STATES.has(u.state));

  const drawDetail = () => {
    const name = state.selected;
    const attempts = state.attempts.filter((a) => a.task === name);
    const def = state.graph.tasks.find((t) => t.name === name) || {};
    const units = unitsOf(name);
    const outputs = units.flatMap((u) => u.outputs || []);
    const detail = $('#task-detail');
    const keepLog = $('#log') ? $('#log').innerHTML : '';
    const shards = units.map((u) => shardOf(u.taskId)).filter((s) => s != null).sort((a, b) => a - b);
    detail.innerHTML = `<h2>Task ${esc(name)}</h2>
      <p class="facts"><span>image <code>${esc(def.image || '?')}</code></span><span>asks ${esc(def.cpu ?? '?')} cpu, ${formatBytes(def.memoryBytes)}</span>
      ${def.dependsOn && def.dependsOn.length ? `<span>after ${def.dependsOn.map(esc).join(', ')}</span>` : ''}</p>
      <table class="attempts"><thead><tr><th>Attempt</th><th>Where</th><th>Started</th><th>Ran</th><th>Outcome</th><th>Exit</th><th>Class</th><th>Reason</th><th>Peak memory</th><th>cpu s</th></tr></thead>
      <tbody>${attempts.slice(0, 300).map((a) => `<tr data-attempt="${esc(a.attemptId)}"><td>${esc(unitLabel(a.task, a.shard))} #${a.number}</td>
        <td>${esc(a.frameworkId ?? '')}/${esc(a.nodeId ?? '')}</td><td>${formatTime(a.startedAt)}</td>
        <td>${a.startedAt ? formatDuration((a.endedAt ?? Date.now()) - a.startedAt) : '–'}</td><td>${badge(shownState(a.outcome, a.cachedFrom))}</td>
        <td>${a.exitCode ?? ''}</td><td>${esc(a.failureClass ?? '')}</td><td>${esc(a.reason ?? (a.cachedFrom ? `from the cache: the outputs of ${a.cachedFrom}` : ''))}</td>
        <td>${formatBytes(a.peakMemoryBytes)}</td><td>${a.cpuSeconds != null ? a.cpuSeconds.toFixed(1) : ''}</td></tr>`).join('')}</tbody></table>
      ${attempts.length > 300 ? `<p class="muted">first 300 of ${attempts.length} attempts</p>` : ''}
      <div class="memory-box"><canvas id="memory"></canvas></div>
      ${outputs.length ? `<h3>Outputs</h3><ul class="outputs">${outputs.slice(0, 100).map((o) => `<li><code>${esc(o)}</code></li>`).join('')}</ul>` : ''}
      <h3>Log ${shards.length ? `<select id="log-shard">${shards.map((s) => `<option value="${s}">shard ${s}</option>`).join('')}</select>` : ''}
        <span id="log-state" class="muted small"></span></h3>
      <div id="log" class="log">${keepLog}</div>`;
    if (memory) memory.destroy();
    const requested = (a) => {
      const u = state.units.get(a.unitId);
      return (u && u.memoryBytes) || def.memoryBytes || 0;
    };
    memory = memoryChart($('#memory'), attempts.filter((a) => a.startedAt != null).slice(-40), requested);
    const shardSelect = $('#log-shard');
    if (shardSelect) {
      if (state.logShard != null) shardSelect.value = String(state.logShard);
      shardSelect.addEventListener('change', () => { state.logShard = Number(shardSelect.value); loadLog(); });
    }
  };

  const loadLog = async () => {
    clearTimeout(logTimer);
    const name = state.selected;
    if (!name) return;
    const shardSelect = $('#log-shard');
    const shard = shardSelect ? Number(shardSelect.value) : null;
    const q = `task=${encodeURIComponent(name)}${shard != null ? `&shard=${shard}` : ''}`;
    try {
      const logs = await get(`/jobs/${encodeURIComponent(jobId)}/logs?${q}`);
      if (state.selected !== name) return;
      $('#log').innerHTML = logs.attempts.length === 0 ? '<p class="muted">no output yet</p>'
        : logs.attempts.map((a) => `<div class="log-attempt" data-attempt="${esc(a.attemptId)}"><div class="log-head">${esc(a.attemptId)} on ${esc(a.nodeId)}${a.complete ? '' : ' (still writing)'}</div><pre>${esc(a.text)}</pre></div>`).join('');
      const live = taskActive(name);
      $('#log-state').textContent = live ? 'following the running attempt…' : 'as kept on flash.tasks.logs';
      if (live) logTimer = setTimeout(loadLog, 2000);
    } catch (e) {
      showError($('#log'), e);
    }
  };

  /** The first full render, once the stream's snapshot gave the job and its tasks: the rest is read once here. */
  const firstRender = async () => {
    performance.mark('flash:snapshot');
    try {
      const [graph, attempts] = await Promise.all([
        get(`/jobs/${encodeURIComponent(jobId)}/graph`),
        get(`/jobs/${encodeURIComponent(jobId)}/attempts`),
      ]);
      performance.mark('flash:read');
      state.graph = graph;
      state.acceptedAt = attempts.acceptedAt;
      state.attempts = attempts.attempts;
      state.rowsBy = state.units.size <= GANTT_ROWS_BY_UNIT_UP_TO ? 'unit' : 'node';
      $('#rows-by').value = state.rowsBy;
      $('#rows-by').addEventListener('change', (ev) => { state.rowsBy = ev.target.value; drawGantt(); });
      header();
      drawTasks(drawDag());
      drawGantt();
      await drawWhy();
      rendered = true;
      performance.mark('flash:job-rendered');
    } catch (e) {
      showError($('#job-header'), e);
    }
  };

  let rendering = null;
  const stop = follow(`/events?job=${encodeURIComponent(jobId)}`, (ev) => {
    if (ev.kind === 'snapshot') { // first, and again after a reconnect: the whole job as it is
      state.job = ev.job;
      state.units = new Map(ev.tasks.map((t) => [t.taskId, t]));
      if (!rendering) rendering = firstRender();
      else if (rendered) { header(); drawTasks(drawDag()); refreshAttempts(); refreshWhy(); }
    } else if (ev.kind === 'job') {
      state.job = ev.job;
      if (rendered) { header(); refreshAttempts(); }
    } else if (ev.kind === 'task') {
      state.units.set(ev.task.taskId, ev.task);
      if (!rendered) return; // drawn with the rest by the first render
      drawTasks(drawDag());
      const t = ev.task;
      const eventAt = t.state === 'RUNNING' ? t.startedAt : ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(t.state) ? t.finishedAt : null;
      if (eventAt != null) probe.liveDelays.push({ unit: t.taskId, state: t.state, delayMs: Date.now() - eventAt, sentAt: ev.at, eventAt });
      refreshAttempts();
      refreshWhy();
    }
  }, (live) => {
    setLive(live);
    if (!rendering && (live.startsWith('waiting') || live.startsWith('stopped'))) {
      $('#job-header').innerHTML = `<p class="${live.startsWith('stopped') ? 'error' : 'muted'}">${esc(live)}</p>`;
      view.querySelectorAll('section').forEach((s) => { s.style.display = live.startsWith('stopped') ? 'none' : ''; });
    }
  });
  return () => {
    stopped = true;
    stop();
    clearTimeout(logTimer);
    clearTimeout(whyTimer);
    if (cy) cy.destroy();
    if (gantt) gantt.destroy();
    if (memory) memory.destroy();
    Object.assign(probe, { jobId: null, cy: null, gantt: null, liveDelays: [] });
  };
}
