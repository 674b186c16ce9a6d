// Landings for bench/sync.js (`--jumps N`, `--loops R`): with the pages joined and the piece
// playing, the bench jumps to the demo's marks A-D in turn, then sets a two-bar loop with a
// count-in and lets it go round R times. A landing is a beat the server scheduled for a known
// server time (a jump's target, a time round's first beat). For each, every page's first drawing
// of that beat is found in its `window.scorecast.shown` (as playwright/marks.spec.js and
// loop.spec.js find it): the spread of `at` across pages, each page's lateness (`at` minus the
// server time), whether it drew it for the same server time (`due`), and the pages that missed
// it. One frame at 60 Hz is 16.7 ms: a spread under that is the same frame on every page.

import { quantile } from '../core/stats.js';
import { TOKEN } from './servers.js';

/** One display frame at 60 Hz (ms). */
export const FRAME_MS = 1000 / 60;

/** The views a landing run opens, in turn over the pages: phones and two part views, as the tests. */
export const LANDING_VIEWS = ['phone', 'violin1', 'cello'];

/**
 * Where a view's page is and its window: `phone` is the audience page at a phone's size; any other
 * name is that part's view at a tablet's size (playwright/loop.spec.js's sizes).
 * @param {string} view
 * @returns {{ path: string, viewport: { width: number, height: number } }}
 */
export function viewPage(view) {
  return view === 'phone'
    ? { path: '/', viewport: { width: 390, height: 844 } }
    : { path: `/view/${encodeURIComponent(view)}`, viewport: { width: 820, height: 1180 } };
}

/**
 * @typedef {object} Landing
 * @property {'jump' | 'round'} kind
 * @property {string} label       e.g. 'C' or 'round 3'
 * @property {number} beat        the beat landed on (global index)
 * @property {number | null} due  the server time it was scheduled for (ms, the server's wall
 *   clock); null: the server's answer did not say
 * @property {number} from        wall time from which a page's drawing of it counts
 * @property {number} to          ... and before which
 */

/**
 * @typedef {{ beat: number | null, bar?: number | null, beatInBar?: number | null, count: number, at: number,
 *   due: number | null, predicted?: boolean, server?: number }} Shown  `server`: the page's estimate
 *   of the server's clock at `at`
 * @typedef {{ key: string, write: number, frame: number }} Change  the bench's record of a change
 *   of the page's bar, beat or click (bar.beat.click): written at `write`, in display frame `frame`
 */

const r1 = (/** @type {number} */ x) => Math.round(x * 10) / 10;

/** @param {number[]} xs */
function quantiles(xs) {
  return {
    p50: r1(quantile(xs, 0.5)),
    p95: r1(quantile(xs, 0.95)),
    p99: r1(quantile(xs, 0.99)),
    max: r1(quantile(xs, 1)),
  };
}

/**
 * Each page's drawing of one landing: the first shown change to its beat (not a count-in click)
 * in its window that was due at the landing's server time (within 1 ms), else the first to its
 * beat in the window at all (drawn for another server time), else none (missed).
 * @param {Landing} landing
 * @param {Shown[]} log
 * @returns {{ at: number, due: number | null, sameDue: boolean, predicted: boolean, key: string, clock: number } | null}
 *   key: the change's bar.beat.click, as the bench records it; clock: the page's clock error then
 *   (its estimate of the server's clock minus the machine's, which the server's is; NaN unknown)
 */
export function landingOn(landing, log) {
  const inWindow = log.filter(
    (s) => s.beat === landing.beat && s.count === 0 && s.at >= landing.from && s.at < landing.to,
  );
  const due = landing.due;
  const right = due === null ? undefined : inWindow.find((s) => s.due !== null && Math.abs(s.due - due) < 1);
  const s = right ?? inWindow[0];
  if (!s) return null;
  return {
    at: s.at,
    due: s.due,
    sameDue: right !== undefined,
    predicted: s.predicted === true,
    key: `${s.bar}.${s.beatInBar}.`,
    clock: s.server === undefined ? NaN : s.server - s.at,
  };
}

/**
 * The display frame a page's landing was drawn in, from the bench's own records: the change to
 * the landing's bar and beat (no click) written from `at` (its frame's start, or its timer's
 * time) up to 100 ms later. `at` is the page's wall clock (whole milliseconds) and the records
 * its high-resolution origin: 2 ms allowed between them. NaN when there is none.
 * @param {{ at: number, key: string }} drawn
 * @param {Change[]} changes
 */
export function frameOf(drawn, changes) {
  const c = changes.find((x) => x.key === drawn.key && x.write >= drawn.at - 2 && x.write <= drawn.at + 100);
  return c ? c.frame : NaN;
}

/**
 * The landings' figures: per landing the spread of `at` across the pages that drew it, per page
 * and landing its lateness against the server time; quantiles of both, the landings whose
 * spread was under a frame, the pages' drawings for another server time and the misses. A
 * landing without a server time takes the due most pages drew.
 * @param {Landing[]} landings
 * @param {Shown[][]} logs  each page's `scorecast.shown`
 * @param {string[]} views  each page's view
 * @param {Change[][]} [changes]  each page's records of its changes: with them, `drawn` has the
 *   spread of the display frames the landings were drawn in, and how many were written from a
 *   timer (outside a frame: `at` is then the timer's time, and the frame the next one)
 * @param {Array<Array<{ frame: number, lag: number }>>} [lateFrames]  each page's frames whose
 *   callbacks ran late: with them, each landing says how late each page's main thread was
 */
export function landingFigures(landings, logs, views, changes, lateFrames) {
  /** @type {number[]} */
  const spreads = [];
  /** @type {number[]} */
  const late = [];
  /** @type {number[]} */
  const frameSpreads = [];
  let fromTimer = 0;
  /** @type {number[]} */
  const clockErrors = [];
  let unmatched = 0;
  /** @type {Record<string, number[]>} */
  const lateByView = {};
  let missed = 0;
  let otherDue = 0;
  let predicted = 0;
  /** @type {Array<{ label: string, due: number | null, spread: number | null, late: Array<number | null>,
   *   frameLate?: Array<number | null>, predicted: Array<boolean | null>, clock: Array<number | null>,
   *   busy?: number[] }>} */
  const each = [];
  for (const landing of landings) {
    const drawn = logs.map((log) => landingOn(landing, log));
    const due = landing.due ?? majorityDue(drawn);
    const ats = drawn.flatMap((d) => (d ? [d.at] : []));
    for (const d of drawn) if (d && Number.isFinite(d.clock)) clockErrors.push(Math.abs(d.clock));
    const spread = ats.length >= 2 ? Math.max(...ats) - Math.min(...ats) : null;
    if (spread !== null) spreads.push(spread);
    /** @type {number[] | null} */
    let pageFrames = null;
    if (changes) {
      const frames = drawn.map((d, i) => (d ? frameOf(d, changes[i]) : NaN));
      pageFrames = frames;
      const ok = frames.filter((f) => Number.isFinite(f));
      unmatched += drawn.filter((d) => d).length - ok.length;
      drawn.forEach((d, i) => {
        if (d && Number.isFinite(frames[i]) && Math.abs(frames[i] - d.at) > 2) fromTimer++;
      });
      if (ok.length >= 2) frameSpreads.push(Math.max(...ok) - Math.min(...ok));
    }
    /** @type {Array<number | null>} */
    const pageLate = drawn.map((d, i) => {
      if (!d) {
        missed++;
        return null;
      }
      if (!(landing.due === null ? d.due === due : d.sameDue)) otherDue++;
      if (d.predicted) predicted++;
      if (due === null) return null;
      const x = d.at - due;
      late.push(x);
      (lateByView[views[i]] ??= []).push(x);
      return r1(x);
    });
    each.push({
      label: landing.label,
      due,
      spread: spread === null ? null : r1(spread),
      late: pageLate,
      // Each page's drawn frame against the server time, and whether it was shown ahead of its
      // own message (from the state's `next`).
      ...(pageFrames && due !== null
        ? { frameLate: pageFrames.map((f) => (Number.isFinite(f) ? r1(f - due) : null)) }
        : {}),
      predicted: drawn.map((d) => d?.predicted ?? null),
      clock: drawn.map((d) => (d && Number.isFinite(d.clock) ? r1(d.clock) : null)),
      ...(lateFrames && due !== null ? { busy: lateFrames.map((frames) => busyNear(due, frames)) } : {}),
    });
  }
  return {
    landings: landings.length,
    spread: quantiles(spreads),
    sameFrame: spreads.filter((x) => x < FRAME_MS).length,
    late: { min: r1(quantile(late, 0)), ...quantiles(late) },
    lateByView: Object.fromEntries(
      Object.entries(lateByView).map(([v, xs]) => [v, { p50: r1(quantile(xs, 0.5)), max: r1(quantile(xs, 1)) }]),
    ),
    missed,
    otherDue,
    predicted,
    // How far the pages' clocks were off as they drew the landings (|error|, ms): a page whose
    // estimate is behind by more than the frame's distance to the due time draws the next frame.
    clock: quantiles(clockErrors),
    ...(changes
      ? {
          drawn: {
            spread: quantiles(frameSpreads),
            // Frame timestamps are equal (within a fraction of a ms) or a frame interval apart, and
            // the interval measured here is 16.66-16.7 ms: under half a frame is the same frame.
            sameFrame: frameSpreads.filter((x) => x < FRAME_MS / 2).length,
            fromTimer,
            unmatched,
          },
        }
      : {}),
    each,
  };
}

/**
 * How late the page's main thread ran the callbacks of a frame beginning within 50 ms of `due`
 * (the most, ms; 0: none more than half a frame late).
 * @param {number} due
 * @param {Array<{ frame: number, lag: number }>} lateFrames
 */
export function busyNear(due, lateFrames) {
  let most = 0;
  for (const f of lateFrames) if (Math.abs(f.frame - due) <= 50 && f.lag > most) most = f.lag;
  return r1(most);
}

/**
 * The server time most pages drew a landing for (null when none drew it).
 * @param {Array<{ due: number | null } | null>} drawn
 */
function majorityDue(drawn) {
  /** @type {Map<number, number>} */
  const votes = new Map();
  for (const d of drawn) if (d && d.due !== null) votes.set(d.due, (votes.get(d.due) ?? 0) + 1);
  let best = null;
  let n = 0;
  for (const [due, v] of votes)
    if (v > n) {
      best = due;
      n = v;
    }
  return best;
}

/**
 * A conductor's command, straight to the server (not through the lag proxy: the landing's server
 * time is the server's; the pages hear of it over their own links).
 * @param {string} origin
 * @param {string} action
 * @param {object} body
 */
async function control(origin, action, body) {
  const res = await fetch(`${origin}/api/control/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`control ${action}: ${res.status} ${await res.text()}`);
  return /** @type {Promise<{ state: any }>} */ (res.json());
}

/** @param {string} origin */
async function snapshot(origin) {
  const res = await fetch(`${origin}/live/poll`, { signal: AbortSignal.timeout(10_000) });
  const [snap] = await res.json();
  return /** @type {{ state: any }} */ (snap);
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Drive the landings: `jumps` seeks while playing to marks A, B, C, D, A, ... `jumpGap` ms apart,
 * then (`loops` > 0) a loop of bars 5-6 with a count-in of two beats, watched until it has gone
 * round `loops` times, then turned off. Each round's server time is read from the server's state
 * (its `next` beat is the loop's first while the count-in runs), polled every 200 ms.
 * @param {{ origin: string, jumps: number, loops: number, jumpGap?: number }} o
 * @returns {Promise<Landing[]>}
 */
export async function driveLandings({ origin, jumps, loops, jumpGap = 3000 }) {
  /** @type {Landing[]} */
  const out = [];
  const marks = /** @type {Array<{ name: string, at: number }>} */ (
    (await (await fetch(`${origin}/api/score`, { signal: AbortSignal.timeout(10_000) })).json()).marks
  );
  if (jumps > 0 && marks.length === 0) throw new Error('--jumps needs a score with rehearsal marks');
  for (let k = 0; k < jumps; k++) {
    const mark = marks[k % marks.length];
    const from = Date.now();
    const { state } = await control(origin, 'seek', { mark: mark.name });
    const due = state.next?.beat === mark.at ? state.next.t : null;
    out.push({ kind: 'jump', label: mark.name, beat: mark.at, due, from, to: Infinity });
    await sleep(jumpGap);
    out[out.length - 1].to = Date.now();
  }
  if (loops > 0) {
    const from = Date.now();
    const { state } = await control(origin, 'loop', { from: { bar: 5 }, to: { bar: 6 }, countIn: 2 });
    const start = state.loop.start;
    /** @type {number[]} server times of the rounds' first beats */
    const dues = state.next?.beat === start ? [state.next.t] : [];
    const deadline = Date.now() + 30_000 + loops * 15_000;
    // Until the last round's first beat has been due a second (every page has drawn it).
    while (Date.now() < deadline && !(dues.length >= loops && Date.now() > dues[loops - 1] + 1000)) {
      await sleep(200);
      const s = (await snapshot(origin)).state;
      if (s.loop && s.next?.beat === start && !dues.some((d) => Math.abs(d - s.next.t) < 1)) dues.push(s.next.t);
    }
    await control(origin, 'loop', { off: true });
    if (dues.length < loops) throw new Error(`the loop went round ${dues.length} times of ${loops} within the wait`);
    dues.slice(0, loops).forEach((due, i) => {
      // A page's drawing counts within 2 s of the round's server time (a round is ten beats, 6.25 s).
      out.push({
        kind: 'round',
        label: `round ${i + 1}`,
        beat: start,
        due,
        from: Math.max(from, due - 2000),
        to: due + 2000,
      });
    });
  }
  return out;
}
