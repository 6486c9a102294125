// View models: what the pages draw, computed from the API's answers. No DOM, no fetch: `node --test` runs them.

export const FINAL_JOB_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);
export const ACTIVE_UNIT_STATES = new Set(['READY', 'DISPATCHED', 'PLACED', 'RUNNING']);
export const WAITING_UNIT_STATES = new Set(['PENDING', 'READY', 'DISPATCHED', 'PLACED']);

/** Colours by state, shared by the DAG, the Gantt, badges and progress bars. */
export const STATE_COLOURS = {
  PENDING: '#9aa5b1', READY: '#7cc4fa', DISPATCHED: '#47a3f3', PLACED: '#2186eb', WAITING: '#7cc4fa',
  RUNNING: '#f0b429', SUCCEEDED: '#3ebd93', FAILED: '#e12d39', LOST: '#9446ed', CANCELLED: '#616e7c', SKIPPED: '#cbd2d9',
  ACCEPTED: '#7cc4fa', CACHED: '#14b8a6',
};

/** A unit or attempt that succeeded by taking an earlier run's outputs (docs/caching.md): drawn as CACHED. */
export function shownState(state, cachedFrom) {
  return state === 'SUCCEEDED' && cachedFrom != null ? 'CACHED' : state;
}

/** The task name of a unit id `<jobId>.<task>[.s<shard>]` (task names contain no dot). */
export function taskNameOf(jobId, unitId) {
  const rest = unitId.substring(jobId.length + 1);
  const dot = rest.indexOf('.');
  return dot < 0 ? rest : rest.substring(0, dot);
}

/** The shard index of a unit id, or null. */
export function shardOf(unitId) {
  const m = /\.s(\d+)$/.exec(unitId);
  return m ? Number(m[1]) : null;
}

/** One state for a task of many units, as the server's JobGraph.rollUp decides it. */
export function rollUp(counts, units) {
  const succeeded = counts.SUCCEEDED || 0;
  if (succeeded > 0 && succeeded >= Math.max(1, units)) return 'SUCCEEDED';
  for (const s of ['RUNNING', 'PLACED', 'FAILED', 'LOST', 'CANCELLED', 'SKIPPED', 'DISPATCHED', 'READY']) {
    if ((counts[s] || 0) > 0) return s === 'PLACED' ? 'RUNNING' : s;
  }
  return succeeded > 0 ? 'RUNNING' : 'PENDING';
}

/**
 * The DAG's tasks with their current state (CACHED when every unit was served from the cache), from the graph (dependencies, shard counts) and the
 * latest unit summaries (a Map unitId → TaskView, kept current by live events).
 */
export function dagTasks(jobId, graph, units) {
  const counts = new Map(graph.tasks.map((t) => [t.name, {}]));
  for (const u of units.values()) {
    const name = taskNameOf(jobId, u.taskId);
    if (!counts.has(name)) counts.set(name, {});
    const c = counts.get(name);
    const state = shownState(u.state, u.cachedFrom);
    c[state] = (c[state] || 0) + 1;
  }
  const byName = new Map(graph.tasks.map((t) => [t.name, t]));
  return [...counts.entries()].map(([name, c]) => {
    const t = byName.get(name) || { name, dependsOn: [], shards: 0 };
    const total = Object.values(c).reduce((a, b) => a + b, 0);
    const shards = t.shards > 0 ? t.shards : total;
    const cached = c.CACHED || 0;
    const { CACHED: _, ...run } = c;
    const succeeded = (c.SUCCEEDED || 0) + cached;
    const rolled = rollUp({ ...run, SUCCEEDED: succeeded }, shards);
    const state = rolled === 'SUCCEEDED' && cached === succeeded ? 'CACHED' : rolled;
    return { name, dependsOn: t.dependsOn, shards, counts: c, succeeded, cached, state };
  });
}

/** Cytoscape elements for the DAG: a node per task (label: name and shard progress), an edge per dependency. */
export function dagElements(tasks) {
  const names = new Set(tasks.map((t) => t.name));
  const nodes = tasks.map((t) => ({
    data: {
      id: t.name, state: t.state, colour: STATE_COLOURS[t.state] || '#9aa5b1',
      label: t.shards > 1 ? `${t.name}\n${t.succeeded}/${t.shards} shards` : t.name,
    },
  }));
  const edges = tasks.flatMap((t) => t.dependsOn.filter((d) => names.has(d))
    .map((d) => ({ data: { id: `${d}->${t.name}`, source: d, target: t.name } })));
  return [...nodes, ...edges];
}

/**
 * The Gantt's bars: one per attempt that was placed (queued-only attempts have no bar), in seconds
 * since the job was accepted; rows per unit (task or shard) or per node. A bar still running ends now.
 */
export function ganttBars(attempts, acceptedAt, rowsBy, now) {
  const bars = [];
  for (const a of attempts) {
    const start = a.startedAt ?? a.placedAt;
    if (start == null) continue;
    const end = a.endedAt ?? now;
    const row = rowsBy === 'node' ? `${a.frameworkId ?? '?'}/${a.nodeId ?? '?'}` : unitLabel(a.task, a.shard);
    bars.push({
      row, from: (start - acceptedAt) / 1000, to: Math.max((end - acceptedAt) / 1000, (start - acceptedAt) / 1000 + 0.05),
      outcome: shownState(a.outcome, a.cachedFrom), attempt: a,
    });
  }
  return bars;
}

/** The rows of the Gantt in order of first start. */
export function ganttRows(bars) {
  const first = new Map();
  for (const b of bars) if (!first.has(b.row) || first.get(b.row) > b.from) first.set(b.row, b.from);
  return [...first.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([row]) => row);
}

export function unitLabel(task, shard) {
  return shard == null ? task : `${task}[${shard}]`;
}

/** A job's progress bar: the share of units succeeded, running and failed. */
export function progress(job) {
  const total = Math.max(1, job.tasksTotal);
  return {
    succeeded: (100 * job.tasksSucceeded) / total,
    running: (100 * job.tasksRunning) / total,
    failed: (100 * job.tasksFailed) / total,
    text: `${job.tasksSucceeded}/${job.tasksTotal}`,
  };
}

/** How long a job ran (or has been running), in ms, or null before it started. */
/**
 * The newer of two views of one job, by updatedAt (the arriving one on a tie): a list read sent
 * before a live event may arrive after it, and must not put the row back.
 */
export function newerJob(held, arriving) {
  return held && held.updatedAt > arriving.updatedAt ? held : arriving;
}

export function jobDuration(job, now) {
  if (job.startedAt == null) return null;
  return (job.finishedAt ?? now) - job.startedAt;
}

export function formatDuration(ms) {
  if (ms == null) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A cost in the catalogue's currency (docs/cost.md): six decimals, enough for a short task's share of a node-hour. */
export function formatCost(amount) {
  return (amount ?? 0).toFixed(6);
}

export function formatBytes(bytes) {
  if (bytes == null) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${v >= 10 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function formatTime(ms) {
  if (ms == null || ms === 0) return '–';
  const d = new Date(ms);
  return d.toISOString().replace('T', ' ').substring(0, 19);
}

/** How healthy a framework shard or node is from its heartbeat's age. */
export function health(heartbeatAgeMs) {
  if (heartbeatAgeMs < 15_000) return 'ok';
  if (heartbeatAgeMs < 60_000) return 'late';
  return 'silent';
}

/** The jobs list's query string from its filters (empty ones left out). */
export function jobsQuery(filters, offset, limit) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v != null && v !== '') q.set(k, String(v));
  q.set('offset', String(offset));
  q.set('limit', String(limit));
  return q.toString();
}
