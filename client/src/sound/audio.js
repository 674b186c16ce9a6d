// Audio cues on the Web Audio clock: a clip whose cue is on a beat starts when that beat sounds
// on the server's clock, not when a message happens to arrive. The conductor announces the next
// beat's clips one beat ahead (state.next.audio), so there is time to schedule them; a clip
// learnt only from the current beat's cue state plays if it is still nearly on time, and never
// again after a resync (each clip is started once per beat time).

import { onPageClock } from './audio-latency.js';

/**
 * The key of a clip (or, with url 'click', the click) started for server time `serverT`.
 * @param {string} url
 * @param {number} serverT
 */
export const clipKey = (url, serverT) => `${url}@${Math.round(serverT)}`;

/** A clip learnt this late (ms after its beat) is skipped rather than played out of time. */
export const LATE_LIMIT_MS = 120;
/**
 * A click learnt this late is skipped: a tick that far off its beat is heard as a stutter (a
 * count-in's clicks are all scheduled at once, so those already past when the audio unlocks or
 * the page joins mid-count-in would otherwise sound together).
 */
export const CLICK_LATE_LIMIT_MS = 20;
/**
 * A click placed on the context and not yet sounding is placed again when the output mapping,
 * read since, puts it more than this (ms) elsewhere. A click is placed about a beat ahead (p50
 * 577 ms in the audio lab), and the output can step meanwhile: in a 10-page lab run the device's
 * output jumped 72 ms, and the two clicks each page had already placed came 63-84 ms late, ten
 * pages at once (replayed with this: offset p99 63.5 -> 6.8 ms over that run's steady part).
 */
export const PLACE_AGAIN_MS = 1;
/**
 * ... but only while both its start and its new start are this far (s) ahead of currentTime: the
 * audio thread renders a callback's worth (10-20 ms) ahead at a time, and a click stopped once
 * begun would be cut, then heard twice.
 */
export const PLACE_AGAIN_AHEAD_S = 0.03;
/** The click's pitch (A5), and on a bar's first beat (A6). */
export const CLICK_HZ = 880;
export const CLICK_ACCENT_HZ = 1760;

/**
 * @typedef {object} AudioLike the part of an AudioContext used here (a fake in unit tests)
 * @property {number} currentTime
 * @property {string} state
 * @property {() => Promise<void>} resume
 * @property {(data: ArrayBuffer) => Promise<any>} decodeAudioData
 * @property {() => any} createBufferSource
 * @property {() => any} [createGain]   clips with a volume (stems) go through a gain node
 * @property {() => any} [createOscillator]  the musicians' click
 * @property {any} destination
 * @property {() => { contextTime?: number, performanceTime?: number }} [getOutputTimestamp]
 */

/**
 * @typedef {object} Scheduled one clip start, kept for tests and debugging
 * @property {string} url
 * @property {number} serverT   server time at which the clip should sound
 * @property {number} when      AudioContext time it was started at
 * @property {number} offset    seconds skipped into the clip (late by that much)
 * @property {number} [local]  the click's page time (the server time on the page's clock)
 * @property {object | null} [map]  the click's: what the output mapping read (audio-latency.js,
 *   `trace`), for the audio lab
 * @property {boolean} [cancelled] stopped before it sounded (the page was hidden or frozen
 *   first); the same clip may be started again if it is still due when the page is back
 * @property {number} [placedAgain] the click's: times it was placed again as the output mapping
 *   moved before it sounded (`when` is where it sounded from)
 */

/**
 * The clicks placed and not yet sounding that the output mapping `at` now puts more than
 * PLACE_AGAIN_MS from where they were placed, with their new start; none within
 * PLACE_AGAIN_AHEAD_S of `currentTime`.
 * @param {ReadonlyArray<{ when: number, entry: Scheduled }>} pending  each click's start on the
 *   context, and what it was placed for (its page time `local`)
 * @param {(localMs: number) => number} at  the context time (s) of a page time, as mapped now
 * @param {number} currentTime
 * @returns {Array<{ index: number, when: number }>}
 */
export function clicksToPlaceAgain(pending, at, currentTime) {
  /** @type {Array<{ index: number, when: number }>} */
  const out = [];
  pending.forEach((p, index) => {
    const { entry } = p;
    if (!entry.url.startsWith('click') || typeof entry.local !== 'number') return;
    if (p.when - currentTime < PLACE_AGAIN_AHEAD_S) return;
    const when = at(entry.local);
    if (Math.abs(when - entry.when) * 1000 > PLACE_AGAIN_MS && when - currentTime >= PLACE_AGAIN_AHEAD_S)
      out.push({ index, when });
  });
  return out;
}

/**
 * @param {object} o
 * @param {() => AudioLike} o.createContext   called on the first unlock (needs a user gesture)
 * @param {(url: string) => Promise<ArrayBuffer>} o.fetchBytes
 * @param {import('../time/clock.js').ServerClock} o.clock
 * @param {() => number} o.now                page time, the clock of `o.clock` and of performance.now
 * @param {(message: string, detail?: unknown) => void} [o.log]
 * @param {import('./audio-latency.js').OutputCompensation} [o.output] when given, sounds start
 *   early by the device's output delay, to leave the speaker on the beat (client/src/sound/audio-latency.js)
 */
export function createAudioCues({ createContext, fetchBytes, clock, now, log = () => {}, output }) {
  /** @type {AudioLike | null} */
  let ctx = null;
  /** @type {Map<string, Promise<any>>} */
  const buffers = new Map();
  /** Keys `url@serverT` already started. @type {Set<string>} */
  const started = new Set();
  /** @type {Scheduled[]} */
  const history = [];
  /**
   * Clips scheduled on the context and perhaps not yet sounding: cancelPending() stops those
   * whose start is still ahead.
   * @type {Array<{ source: any, key: string, when: number, entry: Scheduled }>}
   */
  let pending = [];
  /** The gain node of each clip started with a volume (a stem), by URL: later cues ramp it. */
  /** @type {Map<string, any>} */
  const gains = new Map();

  /**
   * Stop a clip scheduled and not yet sounding, and forget that it was started (a later state
   * that asks for it again schedules it again); its history entry says it was cancelled.
   * @param {{ source: any, key: string, entry: Scheduled }} p
   * @returns {1} one clip stopped
   */
  function stopPending(p) {
    try {
      p.source.stop();
    } catch {
      /* a source that never started cannot be stopped in some engines: it is silent anyway */
    }
    started.delete(p.key);
    p.entry.cancelled = true;
    return 1;
  }

  /**
   * The click's tone on `c`, from context time `at`: a 2 ms attack and a 50 ms decay (a tick, not a
   * beep, and no click of its own at the edges).
   * @param {AudioLike} c @param {number} at @param {boolean} accent
   */
  function tone(c, at, accent) {
    const osc = /** @type {() => any} */ (c.createOscillator)();
    osc.frequency.value = accent ? CLICK_ACCENT_HZ : CLICK_HZ;
    const env = /** @type {() => any} */ (c.createGain)();
    env.gain.setValueAtTime(0.0001, at);
    env.gain.exponentialRampToValueAtTime(accent ? 0.6 : 0.4, at + 0.002);
    env.gain.exponentialRampToValueAtTime(0.0001, at + 0.05);
    osc.connect(env);
    env.connect(c.destination);
    osc.start(at);
    osc.stop(at + 0.06);
    return osc;
  }

  // The clicks placed follow the output's mapping until they sound (PLACE_AGAIN_MS), trusted or
  // not: a mapping restarts (and is not trusted for a while) when a reading is 80 ms or more off
  // its line, and the clicks placed before that are as far off (base1: the output jumped 72, then
  // 78 ms, the mapping restarted, and following it moved the click two pages had placed by 80 ms,
  // onto its beat). A page's clicks wait for trust before they are placed at all, so a join's
  // first readings move none.
  output?.onMapping?.(({ ctx: of, at }) => {
    const c = ctx;
    if (!c || of !== c || c.state !== 'running') return;
    for (const { index, when } of clicksToPlaceAgain(pending, at, c.currentTime)) {
      const p = pending[index];
      try {
        p.source.stop();
      } catch {
        /* not started: silent anyway */
      }
      p.source = tone(c, when, p.entry.url === 'click:accent');
      p.when = when;
      p.entry.when = when;
      p.entry.placedAgain = (p.entry.placedAgain ?? 0) + 1;
    }
  });

  /** @param {string} url */
  function buffer(url) {
    let b = buffers.get(url);
    if (!b && ctx) {
      const c = ctx;
      b = fetchBytes(url).then((bytes) => c.decodeAudioData(bytes));
      b.catch((err) => {
        buffers.delete(url);
        log(`could not load audio ${url}`, err);
      });
      buffers.set(url, b);
    }
    return b;
  }

  /**
   * AudioContext time at which page time `local` falls.
   * @param {AudioLike} c
   * @param {number} local
   */
  function contextTimeOf(c, local) {
    if (output) return output.contextTimeFor(c, local, now());
    const ts = c.getOutputTimestamp?.();
    if (onPageClock(ts, now())) return ts.contextTime + (local - ts.performanceTime) / 1000;
    return c.currentTime + (local - now()) / 1000;
  }

  return {
    /** Whether audio may play (after a user gesture). */
    get unlocked() {
      return ctx !== null && ctx.state === 'running';
    },
    /** The context, once unlocked (the output's latency is read from it). */
    get context() {
      return ctx;
    },
    /** The clip starts so far, oldest first. */
    get history() {
      return history.slice();
    },

    /** Call from a user gesture (the join tap): creates and resumes the context. */
    async unlock() {
      if (!ctx) ctx = createContext();
      if (ctx.state !== 'running') await ctx.resume();
    },

    /**
     * Keep only the clips (and clicks) scheduled but not yet sounding that `keys` names
     * (clipKey): the others are stopped and forgotten. Called with each state: after a jump (a
     * seek, a loop's turn, a pause or stop) the beats scheduled that will not come never sound.
     * @param {Iterable<string>} keys
     * @returns {number} how many were stopped
     */
    retain(keys) {
      const c = ctx;
      if (!c) return 0;
      // A reading of the output's mapping with each state, sound or none: a page whose first cue
      // comes minutes in finds its mapping trusted (audio-latency.js, ready), not still forming.
      if (output && c.state === 'running') output.ready(c, now());
      const wanted = new Set(keys);
      const kept = [];
      let stopped = 0;
      for (const p of pending) {
        if (p.when <= c.currentTime) continue; // already sounding (or over): left alone
        if (wanted.has(p.key)) kept.push(p);
        else stopped += stopPending(p);
      }
      pending = kept;
      return stopped;
    },

    /**
     * Stop the clips scheduled but not yet sounding, and forget that they were started. Called
     * when the page is hidden or frozen: a context suspended meanwhile (iOS "interrupted", a
     * frozen page) would play them late, at the resumed context's time; when the page is back,
     * playClips starts those still due, on the clock measured afresh.
     * @returns {number} how many were stopped
     */
    cancelPending() {
      const c = ctx;
      if (!c) return 0;
      let stopped = 0;
      for (const p of pending) {
        if (p.when > c.currentTime) stopped += stopPending(p); // else sounding (or over): left alone
      }
      pending = [];
      return stopped;
    },

    /**
     * Move the volume of the stem playing `url` to `gain` over `seconds` (a volume ramp).
     * @param {string} url @param {number} gain @param {number} seconds
     * @returns {boolean} whether such a stem plays
     */
    setGain(url, gain, seconds) {
      const node = gains.get(url);
      if (!node || !ctx) return false;
      const now = ctx.currentTime;
      node.gain.cancelScheduledValues?.(now);
      node.gain.setValueAtTime?.(node.gain.value, now);
      node.gain.linearRampToValueAtTime?.(Math.min(1, Math.max(0, gain)), now + Math.max(0.005, seconds));
      return true;
    },

    /**
     * The decoded sound of `url` (fetched once, shared with the clips), once unlocked.
     * @param {string} url
     */
    decode(url) {
      return buffer(url);
    },

    /**
     * Fetch and decode clips before they are needed.
     * @param {string[]} urls
     */
    preload(urls) {
      for (const url of urls) buffer(url);
    },

    /**
     * The musicians' click: a short tone that leaves the speaker at server time `serverT` (the
     * same output compensation as clips), higher on a bar's first beat. Once per serverT.
     * @param {number} serverT
     * @param {boolean} accent
     * @returns {boolean} whether it was scheduled
     */
    click(serverT, accent) {
      const c = ctx;
      if (c?.state !== 'running' || !c.createOscillator || !c.createGain) return false;
      const key = clipKey('click', serverT);
      if (started.has(key)) return false;
      // Silent until the output's mapping is trusted (audio-latency.js, ready): a joining page's
      // first clicks were 40-97 ms early. The beat's click is asked for again with the next state.
      if (output && !output.ready(c, now())) return false;
      const local = clock.toLocal(serverT);
      const when = contextTimeOf(c, local);
      if ((c.currentTime - when) * 1000 > CLICK_LATE_LIMIT_MS) return false;
      started.add(key);
      if (started.size > 256) started.delete(started.values().next().value ?? '');
      const at = Math.max(when, c.currentTime);
      const source = tone(c, at, accent);
      /** @type {Scheduled} */
      const entry = { url: accent ? 'click:accent' : 'click', serverT, when, offset: 0, local, map: output?.trace };
      history.push(entry);
      if (history.length > 100) history.shift();
      pending = pending.filter((p) => p.when > c.currentTime);
      pending.push({ source, key, when: at, entry });
      return true;
    },

    /**
     * Start `url` so that it sounds at server time `serverT`. Once per (url, serverT).
     * @param {string} url
     * @param {number} serverT
     * @param {number} [gain]  its volume 0..1 (a stem: later cues may ramp it, setGain)
     * @returns {Promise<boolean>} whether it was started
     */
    async play(url, serverT, gain) {
      const key = clipKey(url, serverT);
      // A suspended or interrupted context's clock stands still: a clip scheduled on it would
      // sound late when it resumes. playClips runs again once it does (sound-resume.js).
      if (ctx?.state !== 'running' || started.has(key)) return false;
      if (clock.serverNow() - serverT > LATE_LIMIT_MS) return false;
      // Unlike the click, a cue clip is not held back while the output mapping forms (ready): it
      // is a sound of the piece, asked for once near its beat, and a page that joined a few
      // seconds before it would miss it (the bell test in CI, 2 bars after a join); a first
      // clip up to tens of ms early is the lesser fault. A click comes every beat: it can wait.
      started.add(key);
      if (started.size > 256) started.delete(started.values().next().value ?? '');
      const c = ctx;
      let decoded;
      try {
        decoded = await buffer(url);
      } catch {
        started.delete(key);
        return false;
      }
      const when = contextTimeOf(c, clock.toLocal(serverT));
      const late = Math.max(0, c.currentTime - when);
      if (late * 1000 > LATE_LIMIT_MS) return false;
      const source = c.createBufferSource();
      source.buffer = decoded;
      if (typeof gain === 'number' && c.createGain) {
        const node = c.createGain();
        node.gain.value = Math.min(1, Math.max(0, gain));
        node.connect(c.destination);
        source.connect(node);
        gains.set(url, node);
      } else source.connect(c.destination);
      const at = Math.max(when, c.currentTime);
      source.start(at, late);
      /** @type {Scheduled} */
      const entry = { url, serverT, when, offset: late };
      history.push(entry);
      if (history.length > 100) history.shift();
      pending = pending.filter((p) => p.when > c.currentTime);
      pending.push({ source, key, when: at, entry });
      return true;
    },
  };
}

/** @param {unknown} g a volume from the network, or undefined */
const volume = (g) => (typeof g === 'number' && g >= 0 && g <= 1 ? g : undefined);

/**
 * The clips to start for a state: the next beat's (ahead of time) and the current beat's own
 * cue (if the page learnt it late), with their volume where the score gives one. `view` is the
 * view whose cue state holds the clips.
 * @param {any} state
 * @param {string} view
 * @returns {Array<{ url: string, serverT: number, gain?: number }>}
 */
export function clipsOf(state, view) {
  if (state?.playback !== 'playing') return [];
  /** @type {Array<{ url: string, serverT: number, gain?: number }>} */
  const out = [];
  const next = state.next;
  const ahead = next?.audio?.[view];
  if (typeof next?.t === 'number' && Array.isArray(ahead)) {
    for (const url of ahead) {
      if (typeof url !== 'string') continue;
      const gain = volume(next.gains?.[url]);
      out.push(gain === undefined ? { url, serverT: next.t } : { url, serverT: next.t, gain });
    }
  }
  const a = state.cues?.[view]?.audio;
  if (a && typeof a.src === 'string' && a.beat === state.beat && typeof state.beatT === 'number') {
    const gain = volume(a.gain);
    out.push(gain === undefined ? { url: a.src, serverT: state.beatT } : { url: a.src, serverT: state.beatT, gain });
  }
  return out;
}

/** Most clicks a count-in may have (the server's longest: 4 bars of 12, or a loop's 16 beats). */
const MAX_COUNT_IN_CLICKS = 64;

/**
 * The server times of a count-in's clicks, while playing (doc/protocol.md: `countIn` with `t`,
 * `beats`, `beatMs`): all announced at once, so they are scheduled at once and sound on time
 * whether or not another message comes (a tablet that loses the server during the clicks).
 * @param {any} state
 * @returns {number[]}
 */
export function countInClicks(state) {
  const c = state?.playback === 'playing' ? state.countIn : null;
  if (!c || !Number.isFinite(c.t) || !(c.beatMs > 0) || !Number.isInteger(c.beats) || c.beats < 1) return [];
  return Array.from({ length: Math.min(c.beats, MAX_COUNT_IN_CLICKS) }, (_, k) => c.t + k * c.beatMs);
}

/**
 * The server times of the clicks a state asks for: the beat sounding's, a count-in's and the next
 * beat's, while playing (none otherwise).
 * @param {any} state
 * @returns {number[]}
 */
export function clicksOf(state) {
  if (state?.playback !== 'playing') return [];
  return [state.beatT, ...countInClicks(state), state.next?.t].filter((t) => typeof t === 'number');
}

/**
 * The keys of what a state still asks to sound (audio.retain keeps those and stops the rest): its
 * clips, and its clicks while the musicians' click is on (turned off, a count-in's clicks
 * already scheduled are stopped).
 * @param {Array<{ url: string, serverT: number }>} clips  clipsOf(state, view)
 * @param {any} state
 * @param {boolean} clickOn
 * @returns {string[]}
 */
export function wantedKeys(clips, state, clickOn) {
  const clicks = clickOn ? clicksOf(state).map((t) => clipKey('click', t)) : [];
  return [...clips.map((c) => clipKey(c.url, c.serverT)), ...clicks];
}

/**
 * The volumes the cue state gives the view's stems: `stems: {<name>: {src, gain, glide}}`.
 * @param {any} state
 * @param {string} view
 * @returns {Array<{ url: string, gain: number, glide: number }>}  glide in ms
 */
export function stemGainsOf(state, view) {
  const stems = state?.cues?.[view]?.stems;
  if (!stems || typeof stems !== 'object') return [];
  /** @type {Array<{ url: string, gain: number, glide: number }>} */
  const out = [];
  for (const s of Object.values(stems)) {
    const gain = volume(s?.gain);
    if (typeof s?.src !== 'string' || gain === undefined) continue;
    out.push({
      url: s.src,
      gain,
      glide: typeof s.glide === 'number' && s.glide >= 0 && s.glide <= 600_000 ? s.glide : 0,
    });
  }
  return out;
}
