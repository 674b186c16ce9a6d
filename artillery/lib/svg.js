// Small SVG line charts, drawn here so the report needs nothing from a CDN.

/** @param {unknown} s */
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A white outline behind a label drawn over the plot, so that lines crossing it do not hide it. */
const HALO = ' stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"';

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/**
 * Round tick values: 1, 2, 5 x 10^k.
 * @param {number} lo @param {number} hi @param {number} [count]
 */
function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/**
 * Trailing zeros of a decimal fraction only: "10.0" -> "10", "2.50" -> "2.5", "100" stays "100".
 * @param {string} s
 */
const trimZeros = (s) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);

/** @param {number} v */
function fmt(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  // (Stripping zeros from a whole number turned 100k into "1k" and 150k into "15k".)
  if (a >= 1e6) return `${trimZeros((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${trimZeros((v / 1e3).toPrecision(3))}k`;
  if (a >= 1) return String(Number(v.toPrecision(4)));
  return String(Number(v.toPrecision(2)));
}

/**
 * One line of a chart: points as [x, y]; drawn against the right axis when `axis` says so.
 * @typedef {object} Series
 * @property {string} name
 * @property {[number, number][]} points
 * @property {string} [color]
 * @property {string} [dash]
 * @property {boolean} [marker]
 * @property {boolean} [line]
 * @property {'right'} [axis]
 */

/**
 * @typedef {object} ChartOptions
 * @property {string} title
 * @property {string} xLabel
 * @property {string} yLabel
 * @property {Series[]} series
 * @property {boolean} [yLog]
 * @property {number} [width]
 * @property {number} [height]
 * @property {{ y: number, label: string, color?: string }[]} [hLines]
 * @property {{ x0: number, x1: number, label: string }[]} [bands]
 * @property {{ x: number, label: string, color?: string }[]} [vLines]
 * @property {number} [xMin]
 * @property {number} [xMax]
 * @property {number} [yMin]
 * @property {number} [yMax]
 * @property {string} [rightLabel]
 * @property {number} [rightMax]
 * @property {number[]} [xTicks]
 */

/**
 * @param {ChartOptions} c
 */
export function lineChart(c) {
  const W = c.width ?? 560;
  const M = { l: 58, r: c.rightLabel ? 56 : 16, t: 30, b: 62 };
  // Rows the legend needs at this width; each extra row makes the chart taller.
  let rows = 1;
  let lxw = M.l;
  for (const s of c.series) {
    const w = 28 + (s.axis === 'right' ? s.name.length + 8 : s.name.length) * 6;
    if (lxw + w > W - 8 && lxw > M.l) {
      rows++;
      lxw = M.l;
    }
    lxw += w;
  }
  const H = (c.height ?? 280) + (rows - 1) * 15;
  M.b += (rows - 1) * 15;
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const left = c.series.filter((s) => s.axis !== 'right');
  const right = c.series.filter((s) => s.axis === 'right');
  const all = c.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
  const ys = left.flatMap((s) => s.points.map((p) => p[1])).filter((v) => Number.isFinite(v) && (!c.yLog || v > 0));
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="11" role="img" aria-label="${esc(c.title)}">`,
  ];
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${M.l}" y="18" font-size="13" font-weight="600">${esc(c.title)}</text>`);
  if (all.length === 0 || ys.length === 0) {
    out.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" fill="#888">no data</text></svg>`);
    return out.join('');
  }
  const xs = all.map((p) => p[0]);
  const x0 = c.xMin ?? Math.min(...xs);
  let x1 = c.xMax ?? Math.max(...xs);
  if (x1 === x0) x1 = x0 + 1;
  for (const h of c.hLines ?? []) ys.push(h.y);
  /** @type {number} */
  let y0;
  /** @type {number} */
  let y1;
  /** @type {(v: number) => number} */
  let yPos;
  /** @type {number[]} */
  let yTicks;
  if (c.yLog) {
    const lo = Math.max(1e-3, c.yMin ?? Math.min(...ys));
    const hi = c.yMax ?? Math.max(...ys);
    y0 = 10 ** Math.floor(Math.log10(lo));
    y1 = 10 ** Math.ceil(Math.log10(Math.max(hi, y0 * 10)));
    yPos = (v) => M.t + ph - ((Math.log10(Math.max(v, y0)) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * ph;
    yTicks = [];
    for (let v = y0; v <= y1 * 1.0001; v *= 10) yTicks.push(v);
  } else {
    y0 = c.yMin ?? 0;
    y1 = c.yMax ?? Math.max(...ys) * 1.08;
    if (!(y1 > y0)) y1 = y0 + 1;
    yTicks = niceTicks(y0, y1);
    y1 = Math.max(y1, yTicks[yTicks.length - 1]);
    yPos = (v) => M.t + ph - ((v - y0) / (y1 - y0)) * ph;
  }
  /** @param {number} v */
  const xPos = (v) => M.l + ((v - x0) / (x1 - x0)) * pw;
  // bands (warm-up etc.)
  for (const b of c.bands ?? []) {
    const a = xPos(Math.max(b.x0, x0));
    const z = xPos(Math.min(b.x1, x1));
    if (z > a)
      out.push(
        `<rect x="${a.toFixed(1)}" y="${M.t}" width="${(z - a).toFixed(1)}" height="${ph}" fill="#f2f2f2"/><text x="${(a + 4).toFixed(1)}" y="${M.t + 12}" fill="#777">${esc(b.label)}</text>`,
      );
  }
  // grid and axes
  for (const t of yTicks) {
    const y = yPos(t).toFixed(1);
    out.push(
      `<line x1="${M.l}" x2="${M.l + pw}" y1="${y}" y2="${y}" stroke="#e5e5e5"/><text x="${M.l - 6}" y="${y}" dy="3.5" text-anchor="end" fill="#444">${fmt(t)}</text>`,
    );
  }
  // Given ticks (e.g. every user count of a stress ramp) are thinned so that labels never overlap:
  // from the right, so the largest value is always labelled.
  let xt = c.xTicks ?? niceTicks(x0, x1, 6).filter((t) => t >= x0 && t <= x1);
  if (c.xTicks) {
    const kept = [];
    for (const t of [...xt].filter((v) => v >= x0 && v <= x1).sort((a, b) => b - a)) {
      const last = kept.at(-1);
      if (last === undefined || xPos(last) - xPos(t) >= (fmt(last).length + fmt(t).length) * 3.4 + 8) kept.push(t);
    }
    xt = kept.reverse();
  }
  for (const t of xt) {
    const x = xPos(t).toFixed(1);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${M.t + ph}" y2="${M.t + ph + 4}" stroke="#444"/><text x="${x}" y="${M.t + ph + 16}" text-anchor="middle" fill="#444">${fmt(t)}</text>`,
    );
  }
  out.push(
    `<line x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${M.t + ph}" stroke="#444"/><line x1="${M.l}" x2="${M.l + pw}" y1="${M.t + ph}" y2="${M.t + ph}" stroke="#444"/>`,
  );
  out.push(`<text x="${M.l + pw / 2}" y="${M.t + ph + 32}" text-anchor="middle" fill="#222">${esc(c.xLabel)}</text>`);
  out.push(
    `<text transform="translate(14 ${M.t + ph / 2}) rotate(-90)" text-anchor="middle" fill="#222">${esc(c.yLabel)}${c.yLog ? ' (log scale)' : ''}</text>`,
  );
  // threshold lines; their labels go on top of the series, drawn last
  const labels = [];
  for (const h of c.hLines ?? []) {
    if (h.y < y0 || h.y > y1) continue;
    const y = yPos(h.y).toFixed(1);
    out.push(
      `<line x1="${M.l}" x2="${M.l + pw}" y1="${y}" y2="${y}" stroke="${h.color ?? '#b00'}" stroke-dasharray="6 4"/>`,
    );
    labels.push(
      `<text x="${M.l + pw - 4}" y="${y}" dy="-4" text-anchor="end" fill="${h.color ?? '#b00'}"${HALO}>${esc(h.label)}</text>`,
    );
  }
  for (const v of c.vLines ?? []) {
    if (v.x < x0 || v.x > x1) continue;
    const x = xPos(v.x).toFixed(1);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${M.t}" y2="${M.t + ph}" stroke="${v.color ?? '#b00'}" stroke-dasharray="3 3"/>`,
    );
    labels.push(`<text x="${x}" y="${M.t + 10}" dx="3" fill="${v.color ?? '#b00'}"${HALO}>${esc(v.label)}</text>`);
  }
  // right axis (e.g. clients)
  /** @type {((v: number) => number) | null} */
  let rPos = null;
  if (right.length) {
    const rv = right.flatMap((s) => s.points.map((p) => p[1])).filter(Number.isFinite);
    const rMax = c.rightMax ?? Math.max(1, ...rv) * 1.08;
    const rt = niceTicks(0, rMax, 4);
    const rTop = Math.max(rMax, rt[rt.length - 1]);
    rPos = (/** @type {number} */ v) => M.t + ph - (v / rTop) * ph;
    for (const t of rt)
      out.push(`<text x="${M.l + pw + 6}" y="${rPos(t).toFixed(1)}" dy="3.5" fill="#666">${fmt(t)}</text>`);
    out.push(`<line x1="${M.l + pw}" x2="${M.l + pw}" y1="${M.t}" y2="${M.t + ph}" stroke="#999"/>`);
    out.push(
      `<text transform="translate(${W - 10} ${M.t + ph / 2}) rotate(90)" text-anchor="middle" fill="#666">${esc(c.rightLabel)}</text>`,
    );
  }
  // series
  c.series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const pos = s.axis === 'right' && rPos ? rPos : yPos;
    const pts = s.points.filter(
      (p) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && (!c.yLog || s.axis === 'right' || p[1] > 0),
    );
    if (pts.length === 0) return;
    const d = pts.map((p, j) => `${j ? 'L' : 'M'}${xPos(p[0]).toFixed(1)} ${pos(p[1]).toFixed(1)}`).join('');
    if (s.line !== false)
      out.push(
        `<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      );
    // Markers only (line: false): hollow, larger, so they read as separate runs, not a curve.
    if (s.line === false)
      for (const p of pts)
        out.push(
          `<circle cx="${xPos(p[0]).toFixed(1)}" cy="${pos(p[1]).toFixed(1)}" r="4" fill="none" stroke="${color}" stroke-width="1.6"/>`,
        );
    else if (s.marker || pts.length <= 12)
      for (const p of pts)
        out.push(`<circle cx="${xPos(p[0]).toFixed(1)}" cy="${pos(p[1]).toFixed(1)}" r="2.6" fill="${color}"/>`);
  });
  out.push(...labels);
  // legend, below the x label, wrapped to the width
  let lx = M.l;
  let ly = M.t + ph + 50;
  c.series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const label = s.axis === 'right' ? `${s.name} (right)` : s.name;
    const w = 28 + label.length * 6;
    if (lx + w > W - 8 && lx > M.l) {
      lx = M.l;
      ly += 15;
    }
    const key =
      s.line === false
        ? `<circle cx="${lx + 8}" cy="${ly - 4}" r="4" fill="none" stroke="${color}" stroke-width="1.6"/>`
        : `<line x1="${lx}" x2="${lx + 16}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`;
    out.push(`${key}<text x="${lx + 20}" y="${ly}" fill="#222">${esc(label)}</text>`);
    lx += w;
  });
  out.push('</svg>');
  return out.join('');
}
