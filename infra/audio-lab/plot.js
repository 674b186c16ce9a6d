// An SVG of each page's onset offsets over time (the audio onset lab's plot for reports): one row
// of dots per page, the offset (ms, positive: late) against seconds since the first beat.

/**
 * @param {Array<{ page: number, t: number, offset: number }>} series  t: the beat's server time (ms)
 * @param {{ title?: string, rangeMs?: number }} [o]  rangeMs: the offsets shown, ± (default 20)
 * @returns {string}
 */
export function onsetPlot(series, { title = 'audio onsets', rangeMs = 20 } = {}) {
  const W = 900;
  const H = 420;
  const left = 50;
  const top = 30;
  const w = W - left - 20;
  const h = H - top - 40;
  const t0 = Math.min(...series.map((s) => s.t));
  const t1 = Math.max(...series.map((s) => s.t));
  const pages = [...new Set(series.map((s) => s.page))].sort((a, b) => a - b);
  const x = (/** @type {number} */ t) => left + ((t - t0) / Math.max(1, t1 - t0)) * w;
  const y = (/** @type {number} */ ms) => top + h / 2 - (Math.max(-rangeMs, Math.min(rangeMs, ms)) / rangeMs) * (h / 2);
  const colour = (/** @type {number} */ i) => `hsl(${Math.round((i * 360) / Math.max(1, pages.length))} 70% 40%)`;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<text x="${left}" y="18" font-size="13">${title}: offset from the beat's server time (ms, clipped at ±${rangeMs})</text>`,
    `<rect x="${left}" y="${top}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
  ];
  for (const ms of [-rangeMs, -5, 0, 5, rangeMs]) {
    out.push(
      `<line x1="${left}" x2="${left + w}" y1="${y(ms)}" y2="${y(ms)}" stroke="${ms === 0 ? '#666' : '#ddd'}"/>`,
      `<text x="${left - 6}" y="${y(ms) + 4}" text-anchor="end">${ms}</text>`,
    );
  }
  const seconds = Math.round((t1 - t0) / 1000);
  out.push(`<text x="${left + w}" y="${H - 10}" text-anchor="end">${seconds} s</text>`);
  out.push(`<text x="${left}" y="${H - 10}">0 s</text>`);
  pages.forEach((p, i) => {
    for (const s of series.filter((r) => r.page === p))
      out.push(`<circle cx="${x(s.t).toFixed(1)}" cy="${y(s.offset).toFixed(1)}" r="1.8" fill="${colour(i)}"/>`);
    out.push(`<text x="${left + 8 + i * 60}" y="${top + h + 14}" fill="${colour(i)}">page ${p}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
