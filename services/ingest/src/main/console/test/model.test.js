import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dagElements, dagTasks, formatBytes, formatCost, formatDuration, ganttBars, ganttRows, jobsQuery, newerJob, progress, rollUp, shardOf, STATE_COLOURS, taskNameOf,
} from '../src/model.js';

const job = 'job-1';

test('unit ids name their task and shard', () => {
  assert.equal(taskNameOf(job, 'job-1.align.s12'), 'align');
  assert.equal(taskNameOf(job, 'job-1.merge'), 'merge');
  assert.equal(shardOf('job-1.align.s12'), 12);
  assert.equal(shardOf('job-1.merge'), null);
});

test('a task of many shards is running while any runs, failed when one failed and none runs, done when all succeeded', () => {
  assert.equal(rollUp({ SUCCEEDED: 3 }, 3), 'SUCCEEDED');
  assert.equal(rollUp({ SUCCEEDED: 2, RUNNING: 1 }, 3), 'RUNNING');
  assert.equal(rollUp({ SUCCEEDED: 2, FAILED: 1 }, 3), 'FAILED');
  assert.equal(rollUp({ SUCCEEDED: 2 }, 3), 'RUNNING', 'a shard not yet reported is still to come');
  assert.equal(rollUp({}, 0), 'PENDING');
  assert.equal(rollUp({ PLACED: 1 }, 1), 'RUNNING');
});

test('the DAG takes its states from the live units and its edges from the dependencies', () => {
  const graph = { tasks: [{ name: 'ref', dependsOn: [], shards: 1 }, { name: 'align', dependsOn: ['ref'], shards: 2 },
    { name: 'merge', dependsOn: ['align', 'gone'], shards: 1 }] };
  const units = new Map([
    ['job-1.ref', { taskId: 'job-1.ref', state: 'SUCCEEDED' }],
    ['job-1.align.s0', { taskId: 'job-1.align.s0', state: 'SUCCEEDED' }],
    ['job-1.align.s1', { taskId: 'job-1.align.s1', state: 'RUNNING' }],
  ]);
  const tasks = dagTasks(job, graph, units);
  assert.deepEqual(tasks.map((t) => [t.name, t.state]), [['ref', 'SUCCEEDED'], ['align', 'RUNNING'], ['merge', 'PENDING']]);
  const elements = dagElements(tasks);
  assert.equal(elements.filter((e) => e.data.source).length, 2, 'an edge to a task not in the graph is left out');
  assert.equal(elements.find((e) => e.data.id === 'align').data.label, 'align\n1/2 shards');
});

test('the Gantt has one bar per attempt that ran, retries in the same row, a running one up to now', () => {
  const attempts = [
    { task: 'a', shard: null, nodeId: 'n1', frameworkId: 'ecs', startedAt: 2000, endedAt: 4000, outcome: 'FAILED' },
    { task: 'a', shard: null, nodeId: 'n2', frameworkId: 'ecs', startedAt: 5000, endedAt: null, outcome: 'RUNNING' },
    { task: 'b', shard: 3, nodeId: 'n1', frameworkId: 'ecs', placedAt: null, startedAt: null, outcome: 'WAITING' },
  ];
  const bars = ganttBars(attempts, 1000, 'unit', 9000);
  assert.equal(bars.length, 2, 'a queued attempt has no bar yet');
  assert.deepEqual(bars.map((b) => [b.row, b.from, b.to]), [['a', 1, 3], ['a', 4, 8]]);
  assert.deepEqual(ganttRows(bars), ['a']);
  assert.deepEqual(ganttRows(ganttBars(attempts, 1000, 'node', 9000)), ['ecs/n1', 'ecs/n2']);
});

test('units and attempts served from the cache are drawn as CACHED, and count as succeeded', () => {
  const graph = { tasks: [{ name: 'ref', dependsOn: [], shards: 1 }, { name: 'align', dependsOn: ['ref'], shards: 2 }] };
  const units = new Map([
    ['job-1.ref', { taskId: 'job-1.ref', state: 'SUCCEEDED', cachedFrom: 'job-0.ref.1' }],
    ['job-1.align.s0', { taskId: 'job-1.align.s0', state: 'SUCCEEDED', cachedFrom: 'job-0.align.s0.1' }],
    ['job-1.align.s1', { taskId: 'job-1.align.s1', state: 'SUCCEEDED', cachedFrom: null }],
  ]);
  const tasks = dagTasks(job, graph, units);
  assert.deepEqual(tasks.map((t) => [t.name, t.state, t.succeeded, t.cached]), [['ref', 'CACHED', 1, 1], ['align', 'SUCCEEDED', 2, 1]]);
  assert.equal(dagElements(tasks)[0].data.colour, STATE_COLOURS.CACHED);
  assert.notEqual(STATE_COLOURS.CACHED, STATE_COLOURS.SUCCEEDED);
  const bars = ganttBars([{ task: 'ref', shard: null, nodeId: 'n1', frameworkId: 'ecs', placedAt: 2000, endedAt: 2100,
    outcome: 'SUCCEEDED', cachedFrom: 'job-0.ref.1' }], 1000, 'unit', 9000);
  assert.equal(bars[0].outcome, 'CACHED');
});

test('formats and queries', () => {
  assert.equal(formatDuration(65_000), '1m 05s');
  assert.equal(formatDuration(null), '–');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(512 * 1024 * 1024), '512 MiB');
  assert.equal(progress({ tasksTotal: 4, tasksSucceeded: 1, tasksRunning: 2, tasksFailed: 1 }).running, 50);
  assert.equal(jobsQuery({ state: 'RUNNING', owner: '', name: null }, 50, 25), 'state=RUNNING&offset=50&limit=25');
});

test('a cost shows six decimals, and nothing known as zero', () => {
  assert.equal(formatCost(0.0123456789), '0.012346');
  assert.equal(formatCost(undefined), '0.000000');
});

test('a list read older than a live event already shown does not put the job back', () => {
  const running = { jobId: 'j', state: 'RUNNING', updatedAt: 10 };
  const done = { jobId: 'j', state: 'SUCCEEDED', updatedAt: 20 };
  assert.equal(newerJob(done, running), done);
  assert.equal(newerJob(running, done), done);
  assert.equal(newerJob(undefined, running), running);
  const sameMoment = { ...done, state: 'FAILED' };
  assert.equal(newerJob(done, sameMoment), sameMoment, 'on a tie the one arriving wins');
});
