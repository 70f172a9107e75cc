// Per-minute charts as inline SVG, drawn here (no library): bars for counts, a line for latency.

import {h, svg} from './dom.js';

const W = 600, H = 150, PAD_L = 44, PAD_B = 20, PAD_T = 10;

function frame(title, max, unit) {
  const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': title});
  root.append(svg('title', {}, title));
  const y0 = H - PAD_B;
  root.append(svg('line', {x1: PAD_L, y1: y0, x2: W, y2: y0, class: 'axis'}));
  root.append(svg('line', {x1: PAD_L, y1: PAD_T, x2: PAD_L, y2: y0, class: 'axis'}));
  root.append(svg('text', {x: PAD_L - 4, y: PAD_T + 8, class: 'tick', 'text-anchor': 'end'}, fmt(max) + unit));
  root.append(svg('text', {x: PAD_L - 4, y: y0, class: 'tick', 'text-anchor': 'end'}, '0'));
  root.append(svg('text', {x: PAD_L, y: H - 4, class: 'tick'}, '−60 min'));
  root.append(svg('text', {x: W, y: H - 4, class: 'tick', 'text-anchor': 'end'}, 'now'));
  return root;
}

function fmt(n) {
  if (n >= 10000) return Math.round(n / 1000) + 'k';
  return String(Math.round(n));
}

function xAt(i, n) { return PAD_L + (W - PAD_L) * (i / Math.max(n, 1)); }
function yAt(v, max) { return (H - PAD_B) - ((H - PAD_B - PAD_T) * (v / max)); }

/** Stacked bars: ok (published + handled) and failed + dead per minute. */
export function throughput(minutes, testId) {
  const n = minutes.length;
  const max = Math.max(1, ...minutes.map(m => m.published + m.handled + m.failed + m.dead));
  const root = frame('Events per minute: delivered (blue) and failed (red), last hour', max, '');
  const bw = Math.max(1, (W - PAD_L) / Math.max(n, 1) - 1);
  minutes.forEach((m, i) => {
    const ok = m.published + m.handled;
    const bad = m.failed + m.dead;
    const x = xAt(i, n);
    const yOk = yAt(ok, max);
    const yBad = yAt(ok + bad, max);
    const g = svg('g', {}, svg('title', {}, `${m.start}: ${ok} delivered, ${m.failed} failed, ${m.dead} dead`));
    if (ok > 0) g.append(svg('rect', {x, y: yOk, width: bw, height: (H - PAD_B) - yOk, class: 'bar-ok'}));
    if (bad > 0) g.append(svg('rect', {x, y: yBad, width: bw, height: yOk - yBad, class: 'bar-bad'}));
    root.append(g);
  });
  return h('figure', {'data-test': testId || 'chart-throughput'}, root,
    h('figcaption', null, 'Throughput per minute (delivered / failed)'));
}

/** p99 (and p50) create-to-delivery latency per minute, as lines; minutes without data leave gaps. */
export function latency(minutes, testId) {
  const n = minutes.length;
  const values = minutes.flatMap(m => [m.p99Millis, m.p50Millis]).filter(v => v !== null && v !== undefined);
  const max = Math.max(1, ...values);
  const root = frame('p99 latency per minute (ms), last hour', max, ' ms');
  for (const [key, cls] of [['p50Millis', 'line-p50'], ['p99Millis', 'line-p99']]) {
    let d = '';
    let pen = false;
    minutes.forEach((m, i) => {
      const v = m[key];
      if (v === null || v === undefined) { pen = false; return; }
      const x = xAt(i + 0.5, n), y = yAt(v, max);
      d += (pen ? 'L' : 'M') + x.toFixed(1) + ' ' + y.toFixed(1) + ' ';
      pen = true;
    });
    if (d) root.append(svg('path', {d, class: cls}));
  }
  minutes.forEach((m, i) => {
    if (m.p99Millis === null || m.p99Millis === undefined) return;
    root.append(svg('circle', {cx: xAt(i + 0.5, n), cy: yAt(m.p99Millis, max), r: 2, class: 'dot-p99'},
      svg('title', {}, `${m.start}: p50 ${m.p50Millis ?? '–'} ms, p99 ${m.p99Millis} ms, max ${m.maxMillis ?? '–'} ms`)));
  });
  return h('figure', {'data-test': testId || 'chart-latency'}, root,
    h('figcaption', null, 'Latency, create → delivered (p99 dark, p50 light)'));
}
