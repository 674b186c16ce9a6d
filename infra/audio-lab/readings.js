// What the lab keeps of each page's output mapping, so that another mapping can be tried against
// the recording without running the browsers again: every reading the page's mapping took
// (client/src/sound/audio-latency.js, `outputReadings`) and every click it placed, beside the
// onsets the recording gave. A click's onset moves by exactly what its context start time moves
// (the audio thread plays it on the context's clock), so replaying the readings through this
// checkout's mapping and moving each onset by the difference gives the figures that mapping would
// have had on the same sound (checked on a 10-page run: the mapping as run, replayed, matched what
// each click used within 0.02 ms p50). Pure: no browser, no device.

import { clicksToPlaceAgain } from '../../client/src/sound/audio.js';
import { createOutputCompensation } from '../../client/src/sound/audio-latency.js';
import { quantileSorted } from '../../core/stats.js';
import { summary } from './onsets.js';

/** @param {number | undefined | null} v @param {number} k */
const round = (v, k) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v * k) / k : null);

/**
 * One reading, as an array: [page ms, currentTime s, contextTime s, performanceTime ms,
 * outputLatency s, baseLatency s] (null where the browser gave none), rounded to a microsecond.
 * @param {{ now: number, currentTime: number, contextTime?: number, performanceTime?: number,
 *   outputLatency?: number, baseLatency?: number }} r
 * @returns {Array<number | null>}
 */
export function packReading(r) {
  return [
    round(r.now, 1e3),
    round(r.currentTime, 1e7),
    round(r.contextTime, 1e7),
    round(r.performanceTime, 1e3),
    round(r.outputLatency, 1e6),
    round(r.baseLatency, 1e6),
  ];
}

/**
 * One click, as an array: [server time ms, context start s, page time ms, page time of the reading
 * that placed it].
 * @param {{ serverT: number, when: number, local?: number, map?: { now?: number } | null }} e
 */
export function packClick(e) {
  return [round(e.serverT, 1e3), e.when, round(e.local, 1e3), round(e.map?.now, 1e3)];
}

/**
 * The offsets of each page's clicks over its first seconds of sound (`joins` runs): its first
 * 10 s and the 20 s after, |offset| in ms, and the first onset heard.
 * @param {Array<{ page: number, beat: number, offset: number }>} rows  compare()'s
 * @param {Array<{ soundSince: number }>} pagesRaw  each page's sound start, server time
 */
export function joinFigures(rows, pagesRaw) {
  /** @type {number[]} */
  const first10 = [];
  /** @type {number[]} */
  const next20 = [];
  const perPage = pagesRaw.map(({ soundSince }, page) => {
    const own = rows.filter((r) => r.page === page && r.beat >= soundSince).sort((a, b) => a.beat - b.beat);
    const a = own.filter((r) => r.beat < soundSince + 10_000).map((r) => r.offset);
    const b = own.filter((r) => r.beat >= soundSince + 10_000 && r.beat < soundSince + 30_000).map((r) => r.offset);
    first10.push(...a.map(Math.abs));
    next20.push(...b.map(Math.abs));
    return {
      page,
      firstHeardS: own.length ? round((own[0].beat - soundSince) / 1000, 100) : null,
      first10s: { n: a.length, min: round(Math.min(...a), 100), max: round(Math.max(...a), 100) },
      next20s: { n: b.length, min: round(Math.min(...b), 100), max: round(Math.max(...b), 100) },
    };
  });
  return { first10s: summary(first10), next20s: summary(next20), perPage };
}

/**
 * An AudioContext that answers with one recorded reading.
 * @param {Array<number | null>} r  packReading's
 */
function contextOf(r) {
  const [, currentTime, contextTime, performanceTime, outputLatency, baseLatency] = r;
  return {
    currentTime: /** @type {number} */ (currentTime),
    ...(outputLatency === null ? {} : { outputLatency }),
    ...(baseLatency === null ? {} : { baseLatency }),
    getOutputTimestamp: () =>
      contextTime === null || performanceTime === null ? {} : { contextTime, performanceTime },
  };
}

/**
 * Each click's context start as this checkout's mapping would have placed it, from the page's
 * recorded readings: the readings go through `createOutputCompensation` in order (the one that
 * placed a click asks for the click's start, the others are the page's other questions), and a
 * click placed moves as the page's would have (audio.js, clicksToPlaceAgain) with each reading
 * taken before it sounds. A click's recorded start is where it sounded from, so a run whose page
 * placed clicks again replays to its own figures too.
 * @param {{ readings: Array<Array<number | null>>, clicks: Array<Array<number | null>> }} page
 * @param {() => import('../../client/src/sound/audio-latency.js').OutputCompensation} [make]
 * @returns {Map<number, number | null>}  server time (rounded) -> context start (s), or null where
 *   the mapping was not yet ready (the click would have stayed silent), for the clicks it found the
 *   reading of
 */
export function replayPage(page, make = () => createOutputCompensation()) {
  const byReading = new Map(page.clicks.map((c) => [c[3], c]));
  const out = make();
  /** One context for the page (a held mapping is per context). */
  const ctx = { ...contextOf(page.readings[0] ?? [0, 0]) };
  /** @type {Map<number, number | null>} */
  const starts = new Map();
  /** The clicks placed and not yet sounding, as audio.js keeps them. */
  /** @type {Array<{ t: number, when: number, entry: { url: string, local: number, when: number } }>} */
  let pending = [];
  out.onMapping?.(({ at }) => {
    for (const { index, when } of clicksToPlaceAgain(/** @type {any} */ (pending), at, ctx.currentTime)) {
      const p = pending[index];
      p.when = when;
      p.entry.when = when;
      starts.set(p.t, when);
    }
  });
  for (const r of page.readings) {
    Object.assign(ctx, contextOf(r));
    const now = /** @type {number} */ (r[0]);
    pending = pending.filter((p) => p.when > ctx.currentTime);
    const click = byReading.get(now);
    if (click && typeof click[2] === 'number') {
      const t = Math.round(/** @type {number} */ (click[0]));
      const when = out.ready(ctx, now) ? out.contextTimeFor(ctx, click[2], now) : null;
      starts.set(t, when);
      if (when !== null)
        pending.push({ t, when: Math.max(when, ctx.currentTime), entry: { url: 'click', local: click[2], when } });
    } else out.describe(ctx, now);
  }
  return starts;
}

/**
 * A run's onsets as they would have been under this checkout's mapping: each onset moved by its
 * click's new start minus its start as run, and left out where the mapping would not yet have
 * placed it (`silenced`). Onsets whose click has no recorded reading stay.
 * @param {{ series: Array<{ page: number, t: number, offset: number }>, pagesRaw: Array<any> }} run
 * @param {Parameters<typeof replayPage>[1]} [make]
 */
export function replayRun(run, make) {
  /** @type {Map<string, number | null>} */
  const moved = new Map();
  run.pagesRaw.forEach((page, i) => {
    const starts = replayPage(page, make);
    for (const c of page.clicks) {
      const t = Math.round(c[0]);
      const s = starts.get(t);
      if (s !== undefined) moved.set(`${i}@${t}`, s === null ? null : (s - c[1]) * 1000);
    }
  });
  let replayed = 0;
  let silenced = 0;
  /** @type {typeof run.series} */
  const series = [];
  for (const x of run.series) {
    const d = moved.get(`${x.page}@${x.t}`);
    if (d === null) silenced += 1;
    else if (d === undefined) series.push(x);
    else {
      replayed += 1;
      series.push({ ...x, offset: x.offset + d });
    }
  }
  return { series, replayed, silenced };
}

/**
 * The figures of a series of onsets (compare()'s, from `series`): the spread of each beat heard on
 * two pages or more and each onset's |offset|, ms.
 * @param {Array<{ page: number, t: number, offset: number }>} series
 */
export function seriesFigures(series) {
  /** @type {Map<number, number[]>} */
  const byBeat = new Map();
  for (const x of series) byBeat.set(x.t, [...(byBeat.get(x.t) ?? []), x.offset]);
  const spreads = [...byBeat.values()].filter((v) => v.length > 1).map((v) => Math.max(...v) - Math.min(...v));
  const offsets = series.map((x) => Math.abs(x.offset)).sort((a, b) => a - b);
  return {
    beats: spreads.length,
    onsetSpreadMs: summary(spreads),
    offsetMs: summary(offsets),
    over5ms: offsets.length - offsets.filter((v) => v <= 5).length,
    p90: round(quantileSorted(offsets, 0.9), 100),
  };
}
