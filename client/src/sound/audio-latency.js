// Sound aligned to the speaker, not to the page: the AudioContext time at which to start a sound
// so that it leaves the device's speaker (or headset) at a given page time. Phones differ by tens
// of milliseconds, Bluetooth headsets by a couple of hundred.
//
// Two ways to know the output's delay, best first:
// - getOutputTimestamp(): the context time of the sample the speaker plays now, with the page
//   time of "now" (Web Audio API, "getOutputTimestamp"). Mapping through it already includes the
//   output's delay.
// - currentTime (the sample being computed now) plus what the browser reports: baseLatency (the
//   context's own buffering) and outputLatency (from there to the speaker). Safari before 18.4
//   has no outputLatency: a fixed 40 ms is assumed then, as the Sendspin web player does
//   (sendspin-js pull requests 159 and 171).
// Timestamps are not taken one at a time: under load Chromium's swells for seconds with the delay
// the audio server reports, while the sound does not move (output-clock.js, measured in the audio
// lab); the mapping is the line through the last 30 s of them, which follows the device's drift.
// A timestamp is used only while it is on the page's clock: WebKitGTK 2.50's performanceTime
// is performance.now() plus the context time (in ms; measured in the audio lab, within 3 ms), so it
// runs at twice the page's clock, and after a second its mapping put every clip seconds in the
// past, and each was dropped as late (its contextTime is currentTime less baseLatency: no more
// than currentTime says). Chromium's
// lags now by under 10 ms, a suspended context's (Firefox) is now itself.
// Without a usable timestamp the mapping is currentTime against performance.now(), and that too
// is held as a line (output-clock.js) rather than read once: WebKitGTK 2.50 renders in bursts, and
// a read during one finds currentTime 10-60 ms further ahead than the rest (measured in the audio
// lab: one click in five 60 ms late, every other within a millisecond of the others). WebKitGTK
// also reports outputLatency 0, which no output has: a 0 counts as not reported. (Firefox on
// desktop Linux, which is not asked for its output, keeps the newest currentTime: its context
// clock falls behind the page's in steps of 20-100 ms under load, and the sound with it.)
// Browsers that under-report (Safari by about 100 ms, WebKit pull request 38923) or a headset
// they know nothing of are corrected per device by a calibration offset, kept in localStorage
// and set from the console (`scorecast.audioOffset(ms)`, or measured by `scorecast.tapAlong()`).
// Firefox on desktop Linux is never asked either (outputReadsMayHang): there a read while the
// context plays can stop the page for good; it gets the fixed 40 ms, and its offset corrects it.

import { median } from '../../../core/stats.js';
import { SLOW_OUTPUT_MS } from '../../../core/roster.js';
import { createHeldMapping } from './output-clock.js';

/** Output latency assumed where the browser reports none (s). */
export const FALLBACK_OUTPUT_LATENCY_S = 0.04;
/** Where a device's calibration offset is kept. */
export const OFFSET_KEY = 'scorecast-audio-offset-ms';
/** Calibration offsets beyond this (ms) are refused as a typo. */
export const MAX_OFFSET_MS = 1000;
/**
 * A timestamp's performanceTime further ahead of now than this (ms) is not on the page's clock.
 * It is the page time of the sample being heard, which is now or a moment before.
 */
export const TIMESTAMP_AHEAD_MS = 50;
/** A timestamp older than this (ms) is stale: the output has stopped reporting. */
export const TIMESTAMP_STALE_MS = 1000;
/**
 * currentTime read against performance.now(): a reading this far (ms) ahead of the held line is a
 * new mapping; WebKitGTK's bursts put single readings 10-60 ms ahead, and those are outvoted. A
 * reading CURRENT_BEHIND_MS behind it is a context whose clock stood still (its audio thread
 * starved, or suspended), and the sound with it: the new reading maps at once.
 */
export const CURRENT_AHEAD_MS = 300;
export const CURRENT_BEHIND_MS = 20;
/** currentTime read against performance.now() scatters by a render quantum and the main thread's
 * delay: its line is trusted with its newest readings this close (ms; output-clock.js, TRUST_MS). */
export const CURRENT_TRUST_MS = 10;
/**
 * The raw readings kept for the audio lab (each mapping's inputs; about three a beat): enough for
 * the lab to collect every few seconds and replay other mappings against the recording offline.
 */
export const READINGS_KEPT = 1200;

/**
 * @typedef {object} OutputContext the part of an AudioContext read here
 * @property {number} currentTime
 * @property {number} [baseLatency]
 * @property {number} [outputLatency]
 * @property {() => { contextTime?: number, performanceTime?: number }} [getOutputTimestamp]
 */

/**
 * @typedef {object} OutputLatency what this device assumes, for the console and tests
 * @property {'timestamp' | 'reported' | 'fallback'} source how the output's delay is known
 * @property {number} seconds     the output's delay compensated (base + output latency, s)
 * @property {number} offsetMs    the device's calibration offset, on top (ms)
 */

/** An output this slow (ms, the delay and the device's offset together) is flagged to the player
 * and on the conductor's roster (core/roster.js). */
export { SLOW_OUTPUT_MS };

/**
 * What the player is told when the sound leaves the device late enough to be a Bluetooth headset
 * (wired outputs report 10-50 ms, Bluetooth 100-300): the delay is compensated, but it wanders
 * with the radio, so the click is looser than on the phone's speaker or wired headphones.
 * @param {OutputLatency} latency
 * @returns {string | null}  null when the output is not slow
 */
export function slowOutputNotice(latency) {
  const ms = Math.round(latency.seconds * 1000 + latency.offsetMs);
  if (!(ms > SLOW_OUTPUT_MS)) return null;
  return `Sound output ${ms} ms behind (Bluetooth?): compensated, but the phone's speaker or wired headphones keep the click tighter`;
}

/**
 * Whether reading `outputLatency` or calling `getOutputTimestamp()` may hang this browser's page:
 * Firefox on desktop Linux (ESR 153, measured here). Each read asks the audio server in another
 * process for the stream's latency while holding the graph's lock, and the sound server's thread
 * that would answer can be waiting for that graph's next buffer: a lock cycle. A page reading
 * either 20 times a millisecond while a tone played stopped answering within a second in 6 of 6
 * tries (reading currentTime instead: 0 of 2 in 30 s); the audience page, which reads the
 * timestamp once per clip, stopped near its first clip in 3 of 15 pages. Not seen in Chromium or
 * WebKit; Firefox on Android plays through another audio backend, untested.
 * @param {string} userAgent
 */
export function outputReadsMayHang(userAgent) {
  return /\bFirefox\//.test(userAgent) && /\bLinux\b/.test(userAgent) && !/\bAndroid\b/.test(userAgent);
}

const finite = (/** @type {unknown} */ x) => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/**
 * Whether an output timestamp can map page time to context time now: both its times given, its
 * performanceTime neither ahead of `nowMs` nor stale.
 * @param {{ contextTime?: number, performanceTime?: number } | null | undefined} ts
 * @param {number} nowMs  page time now (performance.now)
 * @returns {ts is { contextTime: number, performanceTime: number }}
 */
export function onPageClock(ts, nowMs) {
  return (
    !!ts &&
    finite(ts.contextTime) &&
    typeof ts.performanceTime === 'number' &&
    ts.performanceTime > 0 &&
    ts.performanceTime - nowMs <= TIMESTAMP_AHEAD_MS &&
    nowMs - ts.performanceTime <= TIMESTAMP_STALE_MS
  );
}

/**
 * The delay from currentTime to the speaker that the browser reports, or the fallback.
 * @param {OutputContext} ctx
 * @returns {{ seconds: number, source: 'reported' | 'fallback' }}
 */
export function reportedLatency(ctx) {
  const base = finite(ctx.baseLatency) ? /** @type {number} */ (ctx.baseLatency) : 0;
  // No output plays with no delay at all: a 0 is a browser that does not know (WebKitGTK 2.50).
  if (finite(ctx.outputLatency) && /** @type {number} */ (ctx.outputLatency) > 0)
    return { seconds: base + /** @type {number} */ (ctx.outputLatency), source: 'reported' };
  return { seconds: base + FALLBACK_OUTPUT_LATENCY_S, source: 'fallback' };
}

/**
 * A held mapping (output-clock.js) for one AudioContext at a time: a new context starts afresh.
 * `peek` gives the one held for a context without starting one.
 * @param {Parameters<typeof createHeldMapping>[0]} [options]
 */
function linePerContext(options) {
  /** @type {OutputContext | null} */
  let of = null;
  let line = createHeldMapping(options);
  /** @param {OutputContext} ctx */
  const get = (ctx) => {
    if (of !== ctx) {
      of = ctx;
      line = createHeldMapping(options);
    }
    return line;
  };
  /** @param {OutputContext} ctx */
  const peek = (ctx) => (of === ctx ? line : null);
  return Object.assign(get, { peek });
}

/**
 * @param {{ storage?: { getItem(k: string): string | null, setItem(k: string, v: string): void } | null,
 *   readOutput?: boolean }} [o]  readOutput false: neither outputLatency nor getOutputTimestamp is
 *   ever touched (outputReadsMayHang); the fallback latency is assumed
 */
export function createOutputCompensation({ storage = null, readOutput = true } = {}) {
  let offsetMs = 0;
  try {
    const kept = Number(storage?.getItem(OFFSET_KEY));
    if (Number.isFinite(kept) && Math.abs(kept) <= MAX_OFFSET_MS) offsetMs = kept;
  } catch {
    /* storage refused: no offset */
  }

  /** The lines through a context's output timestamps, and through its currentTime readings. */
  const timestampLines = linePerContext();
  const currentLines = linePerContext({
    aheadMs: CURRENT_AHEAD_MS,
    behindMs: CURRENT_BEHIND_MS,
    trustMs: CURRENT_TRUST_MS,
  });
  /**
   * The last mapping's inputs, for the audio lab (each click carries the one it was placed by).
   * @type {{ now: number, currentTime: number, contextTime?: number, performanceTime?: number,
   *   outputLatency?: number, heldOffset?: number | null } | null}
   */
  let trace = null;
  /** The context last read, and which of its lines that reading went to (trust reads that line). */
  /** @type {{ ctx: OutputContext, source: 'timestamp' | 'currentTime' } | null} */
  let lastRead = null;
  /** Who is told of each mapping read (onMapping), and whether they are being told now. */
  /** @type {Set<(m: MappingRead) => void>} */
  const watchers = new Set();
  let telling = false;
  /** Every mapping's inputs, oldest first, at most READINGS_KEPT (outputReadings). */
  /** @type {Array<{ now: number, currentTime: number, contextTime?: number, performanceTime?: number,
   *   outputLatency?: number, baseLatency?: number }>} */
  const readings = [];

  /**
   * Context ms minus page ms at page time t, from a reading of the context's clock (`contextTime`
   * s at page time `pageMs`): the line through the recent readings (output-clock.js), or this
   * reading alone until there are enough of them.
   * @param {ReturnType<typeof linePerContext>} lines
   * @param {OutputContext} ctx
   * @param {number} contextTime
   * @param {number} pageMs
   * @param {number} nowMs
   * @param {number} [delayMs]  the output delay reported with the reading (output-clock.js: it
   *   tells a swell of the report from a step of the sound)
   * @returns {(t: number) => number}
   */
  function offsetLine(lines, ctx, contextTime, pageMs, nowMs, delayMs) {
    const line = lines(ctx);
    line.add(contextTime, pageMs, delayMs);
    const fresh = contextTime * 1000 - pageMs;
    const lineNow = line.offsetAt(nowMs);
    if (trace) trace.heldOffset = lineNow;
    return (t) => (lineNow === null ? fresh : /** @type {number} */ (line.offsetAt(t)));
  }

  /**
   * Tell the watchers of a mapping just read (not again while they are being told: a watcher that
   * asks for a context time takes a reading of its own).
   * @param {OutputContext} ctx
   * @param {(localMs: number) => number} at
   */
  function tell(ctx, at) {
    if (telling || watchers.size === 0) return;
    telling = true;
    try {
      for (const w of watchers) w({ ctx, at });
    } finally {
      telling = false;
    }
  }

  /**
   * @param {OutputContext} ctx
   * @param {number} nowMs page time now (performance.now)
   * @returns {{ at: (localMs: number) => number, latency: OutputLatency }}
   */
  function mapping(ctx, nowMs) {
    const extra = offsetMs / 1000;
    const currentTime = ctx.currentTime;
    if (!readOutput) {
      const base = finite(ctx.baseLatency) ? /** @type {number} */ (ctx.baseLatency) : 0;
      const seconds = base + FALLBACK_OUTPUT_LATENCY_S;
      return {
        at: (localMs) => currentTime + (localMs - nowMs) / 1000 - seconds - extra,
        latency: { source: 'fallback', seconds, offsetMs },
      };
    }
    const ts = ctx.getOutputTimestamp?.();
    trace = {
      now: nowMs,
      currentTime,
      contextTime: ts?.contextTime,
      performanceTime: ts?.performanceTime,
      outputLatency: ctx.outputLatency,
    };
    readings.push({ ...trace, baseLatency: ctx.baseLatency });
    if (readings.length > READINGS_KEPT) readings.splice(0, readings.length - READINGS_KEPT);
    const stamped = onPageClock(ts, nowMs);
    lastRead = { ctx, source: stamped ? 'timestamp' : 'currentTime' };
    if (stamped) {
      const reported = finite(ctx.outputLatency) ? /** @type {number} */ (ctx.outputLatency) * 1000 : undefined;
      const offsetAt = offsetLine(timestampLines, ctx, ts.contextTime, ts.performanceTime, nowMs, reported);
      // currentTime is ahead of what is heard by the output's whole delay.
      const seconds = Math.max(0, currentTime - (nowMs + offsetAt(nowMs)) / 1000);
      const at = (/** @type {number} */ localMs) => (localMs + offsetAt(localMs)) / 1000 - extra;
      tell(ctx, at);
      return { at, latency: { source: 'timestamp', seconds, offsetMs } };
    }
    const r = reportedLatency(ctx);
    const offsetAt = offsetLine(currentLines, ctx, currentTime, nowMs, nowMs);
    const at = (/** @type {number} */ localMs) => (localMs + offsetAt(localMs)) / 1000 - r.seconds - extra;
    tell(ctx, at);
    return { at, latency: { source: r.source, seconds: r.seconds, offsetMs } };
  }

  /**
   * Whether the line the last reading of `ctx` went to lets sounds be placed at `nowMs` (trust).
   * @param {OutputContext} ctx
   * @param {number} nowMs
   * @returns {OutputTrust}
   */
  function trustOf(ctx, nowMs) {
    if (!readOutput) return { trusted: true, why: 'unmeasured' };
    if (lastRead?.ctx !== ctx) return { trusted: false, why: 'settling' };
    const timestamps = lastRead.source === 'timestamp';
    const line = (timestamps ? timestampLines : currentLines).peek(ctx);
    /** @type {OutputTrust} */
    const t = line ? line.trust(nowMs) : { trusted: false, why: 'settling' };
    return !timestamps && t.why === 'settling' ? { trusted: false, why: 'no-timestamps' } : t;
  }

  return {
    /**
     * The context time at which to start a sound so that the speaker plays it at page time
     * `localMs`.
     * @param {OutputContext} ctx
     * @param {number} localMs
     * @param {number} nowMs page time now
     */
    contextTimeFor(ctx, localMs, nowMs) {
      return mapping(ctx, nowMs).at(localMs);
    },
    /** @param {OutputContext} ctx @param {number} nowMs */
    describe(ctx, nowMs) {
      return mapping(ctx, nowMs).latency;
    },
    /**
     * Whether a sound may be placed on this context now: its mapping is trusted (output-clock.js:
     * the line stands and its newest readings agree with it), or has had TRUST_WITHIN_MS to become
     * so. A page that has just joined, or whose context came back, is silent until then rather
     * than early or late (its first timestamps can be tens of ms off). Takes a reading.
     * @param {OutputContext} ctx
     * @param {number} nowMs
     */
    ready(ctx, nowMs) {
      if (!readOutput) return true;
      mapping(ctx, nowMs);
      return trustOf(ctx, nowMs).trusted;
    },
    /**
     * Whether a sound may be placed on this context now, as ready() says, and why, from the
     * readings taken so far: it takes none and changes nothing, so the page asks it as often as it
     * likes, to tell the player why the click is silent. `no-timestamps`: the
     * line through currentTime readings is forming (the output gives no timestamps on the page's
     * clock); `unmeasured`: the output is never read (readOutput false), sounds are never held.
     * @param {OutputContext} ctx
     * @param {number} nowMs
     * @returns {OutputTrust}
     */
    trust(ctx, nowMs) {
      return trustOf(ctx, nowMs);
    },
    /**
     * Be told of every mapping read from now on (each reading of the output, whoever asked for it):
     * the context, and the context time at which a page time would now be placed. Sounds already
     * placed on the context can follow it
     * (audio.js: a step of the output moves the clicks placed before it). Not with `readOutput`
     * false: that mapping is currentTime read afresh, a render quantum's noise each time.
     * @param {(m: MappingRead) => void} watcher
     * @returns {() => void}  stops telling it
     */
    onMapping(watcher) {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    /** The last mapping's inputs (the audio lab keeps each click's). */
    get trace() {
      return trace;
    },
    /**
     * The raw readings (each mapping's inputs) taken after page time `since`, oldest first: the
     * audio lab keeps them beside the recording's onsets to replay mappings offline.
     * @param {number} [since]
     */
    readingsSince(since = -Infinity) {
      return readings.filter((r) => r.now > since);
    },
    /** The device's calibration offset (ms): sounds start this much earlier still. */
    get offsetMs() {
      return offsetMs;
    },
    /** @param {number} ms */
    setOffset(ms) {
      if (!Number.isFinite(ms) || Math.abs(ms) > MAX_OFFSET_MS) {
        throw new RangeError(
          `audio offset: a number of ms within ±${MAX_OFFSET_MS}, e.g. 80 when the sound comes 80 ms late`,
        );
      }
      offsetMs = ms;
      try {
        storage?.setItem(OFFSET_KEY, String(ms));
      } catch {
        /* kept for this page only */
      }
    },
  };
}

/**
 * @typedef {object} MappingRead a mapping just read (onMapping)
 * @property {OutputContext} ctx
 * @property {(localMs: number) => number} at  the context time (s) at which page time `localMs`
 *   leaves the speaker, by this mapping
 */

/**
 * @typedef {{ trusted: boolean, why: import('./output-clock.js').MappingTrust['why'] | 'no-timestamps' |
 *   'unmeasured' }} OutputTrust  whether sounds may be placed on a context now (trust), and why
 */

/** @typedef {ReturnType<typeof createOutputCompensation>} OutputCompensation */

/**
 * The offset a tap-along measured: the listener taps with the clicks they hear; taps come late
 * by the output's uncompensated delay (plus their own reaction, which averages out in a steady
 * pulse: people anticipate it). The median of tap minus click, of taps near a click.
 * @param {number[]} clicks page times the clicks were meant to be heard (ms)
 * @param {number[]} taps page times of the taps (ms)
 * @returns {number | null} ms to add to the offset, or null with fewer than 4 usable taps
 */
export function tapAlongOffset(clicks, taps) {
  /** @type {number[]} */
  const d = [];
  for (const tap of taps) {
    let best = Infinity;
    for (const c of clicks) if (Math.abs(tap - c) < Math.abs(best)) best = tap - c;
    if (Math.abs(best) <= 250) d.push(best);
  }
  if (d.length < 4) return null;
  return Math.round(median(d));
}
