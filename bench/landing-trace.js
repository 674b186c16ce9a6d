// A Chromium trace over bench/sync.js's landings (`--trace FILE`): what each page's renderer did
// with its main thread while the jumps and rounds ran. The whole trace (DevTools' timeline
// categories, to open in DevTools or Perfetto) is written to FILE; the summary in the results is,
// per page, the main thread's CPU time (the events' thread time, not their wall time: on a loaded
// machine a renderer waits for a core far longer than it runs) by kind of work, and its raster
// workers' CPU. That is the evidence for where a part view's frames go (a cursor repainting a whole
// engraved page, a landing's DOM work), against the phones'.

/** DevTools' timeline, its frame events and the pages' own marks; no JavaScript sampling. */
const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'blink.user_timing',
  'toplevel',
];

/** The main thread's kinds of work summed (nested: RunTask holds the rest). */
export const KINDS = [
  'RunTask',
  'FireAnimationFrame',
  'TimerFire',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'Commit',
];

/**
 * Start a browser-wide trace; each page marks itself in it, so that its renderer is known.
 * @param {import('@playwright/test').Browser} browser
 * @param {import('@playwright/test').Page[]} pages
 * @returns {Promise<() => Promise<{ text: string, summary: ReturnType<typeof summarize> }>>} stop
 */
export async function startTrace(browser, pages) {
  const cdp = await browser.newBrowserCDPSession();
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { includedCategories: CATEGORIES, excludedCategories: ['*'], recordMode: 'recordAsMuchAsPossible' },
  });
  await Promise.all(pages.map((p, i) => p.evaluate((n) => performance.mark(`bench-page-${n}`), i)));
  return async () => {
    await Promise.all(pages.map((p, i) => p.evaluate((n) => performance.mark(`bench-page-${n}`), i)));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    const { stream } = /** @type {{ stream: string }} */ (await complete);
    /** @type {string[]} */
    const chunks = [];
    for (;;) {
      const r = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
      chunks.push(r.base64Encoded ? Buffer.from(r.data, 'base64').toString() : r.data);
      if (r.eof) break;
    }
    await cdp.send('IO.close', { handle: stream });
    await cdp.detach();
    const text = chunks.join('');
    const parsed = JSON.parse(text);
    return { text, summary: summarize(parsed.traceEvents ?? parsed, pages.length) };
  };
}

/**
 * @typedef {{ name: string, ph: string, pid: number, tid: number, ts: number, dur?: number,
 *   tdur?: number, cat?: string }} TraceEvent
 */

/**
 * Per page: the seconds traced, its main thread's CPU (ms) by kind of work and in all (RunTask),
 * the same tasks' wall time, and its raster workers' CPU.
 * @param {TraceEvent[]} events
 * @param {number} pages
 */
export function summarize(events, pages) {
  /** @type {Map<number, number>} renderer pid -> page */
  const pageOf = new Map();
  let first = Infinity;
  let last = -Infinity;
  for (const e of events) {
    if (e.ts) {
      first = Math.min(first, e.ts);
      last = Math.max(last, e.ts);
    }
    const m = /^bench-page-(\d+)$/.exec(e.name);
    if (m && e.cat === 'blink.user_timing') pageOf.set(e.pid, Number(m[1]));
  }
  const rows = Array.from({ length: pages }, () => ({
    cpu: /** @type {Record<string, number>} */ (Object.fromEntries(KINDS.map((k) => [k, 0]))),
    wall: 0,
    raster: 0,
  }));
  for (const e of events) {
    const page = pageOf.get(e.pid);
    if (page === undefined || e.ph !== 'X') continue;
    const row = rows[page];
    if (e.name === 'RasterTask') row.raster += (e.tdur ?? 0) / 1000;
    // A renderer's main thread has the process's own id.
    else if (e.tid === e.pid && KINDS.includes(e.name)) {
      row.cpu[e.name] += (e.tdur ?? 0) / 1000;
      if (e.name === 'RunTask') row.wall += (e.dur ?? 0) / 1000;
    }
  }
  const r0 = (/** @type {number} */ x) => Math.round(x);
  return {
    seconds: Math.round((last - first) / 1e5) / 10,
    pages: rows.map((r) => ({
      cpu: Object.fromEntries(Object.entries(r.cpu).map(([k, v]) => [k, r0(v)])),
      wall: r0(r.wall),
      raster: r0(r.raster),
    })),
  };
}
