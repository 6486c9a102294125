// Frameworks (level 1's view: each shard's heartbeat), Flash's own nodes, and utilisation over time.
import { get } from './api.js';
import { $, esc, setLive, showError } from './dom.js';
import { utilisationChart } from './charts.js';
import { formatBytes, health } from './model.js';

const REFRESH_MS = 5000; // heartbeats come every few seconds; they are not on the status topics' stream

function resources(r) {
  return r ? `${r.cpu.toFixed(1)} cpu, ${formatBytes(r.memoryBytes)}${r.gpus ? `, ${r.gpus} gpu` : ''}` : '–';
}

function age(ms) {
  return `<span class="health-${health(ms)}">${(ms / 1000).toFixed(1)} s ago</span>`;
}

export function frameworksPage(view) {
  let chart = null;
  view.innerHTML = `<h1>Frameworks</h1><div id="frameworks"></div>
    <h2>Utilisation, last hour</h2><div class="util-box"><canvas id="utilisation"></canvas></div>
    <h2>Nodes</h2><div id="nodes"></div>`;
  setLive('refreshing every 5 s');

  const load = async () => {
    try {
      const [shards, nodes, util] = await Promise.all([get('/frameworks'), get('/nodes'), get('/frameworks/utilisation?minutes=60')]);
      $('#frameworks').innerHTML = shards.length === 0 ? '<p class="muted">No framework has reported yet: is a framework service running?</p>' : `
        <table class="frameworks"><thead><tr><th>Framework</th><th>Shard</th><th>Heard</th><th>Nodes</th><th>Total</th><th>Free</th>
        <th>Largest node free</th><th>Queued</th><th>Queued demand</th><th>Accepts up to</th><th>Disks</th><th>Network</th><th>Labels</th></tr></thead>
        <tbody>${shards.map((s) => `<tr data-framework="${esc(s.frameworkId)}" data-shard="${s.shard}"><td><b>${esc(s.frameworkId)}</b></td><td>${s.shard}</td>
          <td>${age(s.heartbeatAgeMs)}${s.leaving ? ' · leaving' : ''}</td><td>${s.nodes}</td><td>${resources(s.total)}</td><td>${resources(s.free)}</td>
          <td>${resources(s.largestNodeFree)}</td><td>${s.queued}</td><td>${resources(s.queuedDemand)}</td><td>${s.acceptLimit}</td>
          <td>${esc(s.diskTypes.join(', '))}</td><td>${s.network ? 'yes' : 'no'}</td><td>${esc(s.nodeLabels.join(', '))}</td></tr>`).join('')}</tbody></table>`;
      $('#nodes').innerHTML = nodes.length === 0 ? '<p class="muted">No node of Flash\'s own has reported (a batch cluster\'s nodes are the cluster\'s).</p>' : `
        <table class="nodes"><thead><tr><th>Framework</th><th>Node</th><th>Heard</th><th>Total</th><th>Free</th><th>Running</th><th>Disk</th>
        <th>Network</th><th>Labels</th><th>Health</th></tr></thead>
        <tbody>${nodes.map((n) => `<tr data-node="${esc(n.nodeId)}"><td>${esc(n.frameworkId)}</td><td class="mono">${esc(n.nodeId)}</td>
          <td>${age(n.heartbeatAgeMs)}</td><td>${resources(n.total)}</td><td>${resources(n.free)}</td>
          <td title="${esc(n.runningAttempts.join('\n'))}">${n.running}</td><td>${esc(n.diskType)}</td><td>${n.network ? 'yes' : 'no'}</td>
          <td>${esc(Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join(', '))}</td>
          <td>${n.unhealthy ? `<span class="health-silent">${esc(n.unhealthy)}</span>` : 'ok'}</td></tr>`).join('')}</tbody></table>`;
      if (chart) chart.destroy();
      chart = utilisationChart($('#utilisation'), util);
      $('#utilisation').dataset.points = String(Object.values(util).reduce((n, points) => n + points.length, 0));
    } catch (e) {
      showError($('#frameworks'), e);
    }
  };
  load();
  const timer = setInterval(load, REFRESH_MS);
  return () => { clearInterval(timer); if (chart) chart.destroy(); };
}
