// The charts, with Chart.js: the Gantt of attempts, memory asked vs used, utilisation over time.
import {
  BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip,
} from 'chart.js';
import { formatBytes, ganttRows, STATE_COLOURS, unitLabel } from './model.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend, Filler);
Chart.defaults.animation = false; // live pages redraw often; animation would only delay what is true

const ROW_HEIGHT = 18;

/** Seconds since the job was accepted, as a person reads them: 4.5s, 42s, 3:07, 1h05. */
function clock(seconds) {
  if (seconds < 10) return `${Math.max(0, seconds).toFixed(seconds % 1 === 0 ? 0 : 1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  return s < 3600 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
    : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
}

/** A Gantt of the bars (see model.ganttBars) in `canvas`; returns the chart. */
export function ganttChart(canvas, bars) {
  const rows = ganttRows(bars);
  canvas.parentElement.style.height = `${Math.max(120, rows.length * ROW_HEIGHT + 60)}px`;
  const outcomes = [...new Set(bars.map((b) => b.outcome))];
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: rows,
      datasets: outcomes.map((o) => ({
        label: o,
        data: bars.filter((b) => b.outcome === o).map((b) => ({ x: [b.from, b.to], y: b.row, attempt: b.attempt })),
        backgroundColor: STATE_COLOURS[o] || '#9aa5b1',
        grouped: false,
        barPercentage: 0.8,
        categoryPercentage: 1,
      })),
    },
    options: {
      indexAxis: 'y',
      maintainAspectRatio: false,
      responsive: true,
      scales: {
        x: { type: 'linear', min: 0, title: { display: true, text: 'since the job was accepted' }, ticks: { callback: clock } },
        y: { type: 'category', ticks: { autoSkip: false, font: { size: 11 } } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: {
          callbacks: {
            title: (items) => items[0].raw.attempt.attemptId,
            label: (item) => {
              const a = item.raw.attempt;
              const lines = [`${a.outcome} on ${a.frameworkId ?? '?'}/${a.nodeId ?? '?'}, ${clock(item.raw.x[0])}–${clock(item.raw.x[1])}`];
              if (a.exitCode != null) lines.push(`exit code ${a.exitCode}${a.failureClass ? ` (${a.failureClass})` : ''}`);
              if (a.cachedFrom) lines.push(`from the cache: the outputs of ${a.cachedFrom}`);
              if (a.reason) lines.push(a.reason);
              return lines;
            },
          },
        },
      },
    },
  });
}

/** Per attempt of a task: the memory it asked for and the most it used. */
export function memoryChart(canvas, attempts, requestedOf) {
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: attempts.map((a) => `${unitLabel(a.task, a.shard)} #${a.number}`),
      datasets: [
        { label: 'asked for', data: attempts.map((a) => requestedOf(a)), backgroundColor: '#bcccdc' },
        { label: 'peak used', data: attempts.map((a) => a.peakMemoryBytes ?? 0), backgroundColor: '#f0b429' },
      ],
    },
    options: {
      maintainAspectRatio: false,
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => formatBytes(v) } } },
      plugins: { tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${formatBytes(item.raw)}` } } },
    },
  });
}

/** Per framework, a line of used cpu and memory as a share of the total, over time. */
export function utilisationChart(canvas, byFramework) {
  const palette = ['#2186eb', '#3ebd93', '#f0b429', '#9446ed', '#e12d39', '#616e7c'];
  const datasets = [];
  Object.entries(byFramework).forEach(([fw, points], i) => {
    const colour = palette[i % palette.length];
    const share = (used, total) => (total > 0 ? (100 * used) / total : 0);
    datasets.push({ label: `${fw} cpu`, data: points.map((p) => ({ x: p.at, y: share(p.cpuUsed, p.cpuTotal), p })), borderColor: colour, backgroundColor: colour, pointRadius: 0 });
    datasets.push({ label: `${fw} memory`, data: points.map((p) => ({ x: p.at, y: share(p.memoryUsed, p.memoryTotal), p })), borderColor: colour, borderDash: [6, 4], pointRadius: 0 });
  });
  const time = (ms) => new Date(ms).toTimeString().substring(0, 8);
  return new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      maintainAspectRatio: false,
      parsing: false,
      scales: {
        x: { type: 'linear', ticks: { callback: time, maxTicksLimit: 8 } },
        y: { min: 0, max: 100, title: { display: true, text: '% of the framework used' } },
      },
      plugins: {
        tooltip: {
          callbacks: {
            title: (items) => new Date(items[0].raw.x).toLocaleTimeString(),
            label: (item) => {
              const p = item.raw.p;
              return item.dataset.label.endsWith('cpu') ? `${item.dataset.label}: ${p.cpuUsed.toFixed(1)} of ${p.cpuTotal.toFixed(1)} cores`
                : `${item.dataset.label}: ${formatBytes(p.memoryUsed)} of ${formatBytes(p.memoryTotal)}`;
            },
          },
        },
      },
    },
  });
}
