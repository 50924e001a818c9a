/// <reference lib="dom" />
/**
 * The reference for bench/timeline.mjs: the same timeline drawn the obvious way with chart.js,
 * on the page's thread: one line dataset per lane, each event a horizontal segment (start,
 * end, then a gap), every frame a full chart update. Same message, same CSP, same figures.
 */
import { Chart, LineController, LineElement, LinearScale, PointElement } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale);

interface Columns {
  count: number;
  kind: Uint8Array;
  gpu: Uint16Array;
  lane: Uint32Array;
  startNs: Float64Array;
  endNs: Float64Array;
}

interface Stats {
  receivedAt: number;
  firstFrameAt: number;
  frameMs: number[];
  events: number;
}

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const stats: Stats = { receivedAt: 0, firstFrameAt: 0, frameMs: [], events: 0 };
const w = window as unknown as { __timelineStats: Stats; __chart?: { zoom(f: number): void; pan(f: number): void } };
w.__timelineStats = stats;
const api = acquireVsCodeApi();

const canvas = document.createElement('canvas');
const box = document.createElement('div');
box.className = 'frame';
box.append(canvas);
(document.getElementById('root') ?? document.body).append(box);

window.addEventListener('message', (event: MessageEvent<{ type: string; columns: Columns }>) => {
  if (event.data?.type !== 'timeline') return;
  stats.receivedAt = performance.now();
  const c = event.data.columns;
  stats.events = c.count;
  const lanes = new Map<string, { x: number; y: number | null }[]>();
  for (let i = 0; i < c.count; i++) {
    const key = `${c.gpu[i]}:${c.kind[i]}:${c.kind[i] === 1 || c.kind[i]! >= 2 ? c.lane[i] : 0}`;
    let data = lanes.get(key);
    if (!data) lanes.set(key, (data = []));
    data.push({ x: c.startNs[i]!, y: 0 }, { x: c.endNs[i]!, y: 0 }, { x: c.endNs[i]!, y: null });
  }
  let row = 0;
  const datasets = [...lanes.values()].map((data) => {
    const y = row++;
    for (const p of data) if (p.y !== null) p.y = y;
    return { data, borderColor: '#3794ff', borderWidth: 6, pointRadius: 0, spanGaps: false };
  });
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < c.count; i++) {
    min = Math.min(min, c.startNs[i]!);
    max = Math.max(max, c.endNs[i]!);
  }
  const chart = new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      events: [],
      scales: { x: { type: 'linear', min, max }, y: { type: 'linear', min: -1, max: row } },
    },
  });
  stats.firstFrameAt = performance.now();
  const x = chart.options.scales!.x!;
  const frame = (change: () => void) => {
    const t0 = performance.now();
    change();
    chart.update('none');
    stats.frameMs.push(performance.now() - t0);
  };
  w.__chart = {
    zoom: (f) =>
      frame(() => {
        const lo = x.min as number;
        const hi = x.max as number;
        const mid = (lo + hi) / 2;
        x.min = mid - ((hi - lo) / 2) * f;
        x.max = mid + ((hi - lo) / 2) * f;
      }),
    pan: (f) =>
      frame(() => {
        const d = ((x.max as number) - (x.min as number)) * f;
        x.min = (x.min as number) + d;
        x.max = (x.max as number) + d;
      }),
  };
});

api.postMessage({ type: 'ready' });
