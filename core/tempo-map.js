// The clock of a score: a tempo and time-signature map that converts between beats and time.
// Pure: no timers, no Date. A "beat" is one unit of the time signature's denominator, and tempo
// is counted in those units per minute (6/8 at 120 means 120 eighths a minute).

/**
 * A change in the map, at the start of a bar or at a beat inside it.
 * @typedef {object} MeterChange
 * @property {number} bar          bar number (the pickup bar, if any, is bar 0)
 * @property {number} [beat]       beat in the bar, from 1 (default 1); only tempo may change mid-bar
 * @property {[number, number]} [time] time signature [beats per bar, beat unit]
 * @property {number} [tempo]      beats per minute
 */

/**
 * @typedef {object} TempoMapSpec
 * @property {number} bars          number of full bars, numbered 1..bars
 * @property {number} [pickup]      beats in an opening pickup bar (bar 0); 0 or absent for none
 * @property {MeterChange[]} changes the first one is at bar 1 (or 0) and gives time and tempo
 */

/**
 * @typedef {object} BarInfo
 * @property {number} bar
 * @property {number} startBeat   global index of the bar's first sounding beat
 * @property {number} beats       beats in the bar (a pickup bar has fewer than its signature)
 * @property {number} firstBeatInBar 1 for a full bar; num - pickup + 1 for the pickup bar
 * @property {[number, number]} time
 */

/**
 * @typedef {object} Position
 * @property {number} beat        global beat index (0-based)
 * @property {number} bar
 * @property {number} beatInBar   from 1
 * @property {[number, number]} time
 */

/**
 * @typedef {object} TempoSegment
 * @property {number} beat  global beat index where this tempo starts
 * @property {number} ms    time of that beat from the start of the piece
 * @property {number} bpm
 */

/**
 * @param {unknown} n
 * @returns {n is number}
 */
const isPosInt = (n) => Number.isInteger(n) && /** @type {number} */ (n) > 0;

/**
 * Binary search: index of the last item whose key is <= x (items sorted by key, first key <= x).
 * @template T
 * @param {T[]} items
 * @param {number} x
 * @param {(item: T) => number} key
 */
function lastAtOrBefore(items, x, key) {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (key(items[mid]) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * One bar in performance order (repeats expanded): what notation and beat maps produce.
 * @typedef {object} BarSpec
 * @property {number} bar              written bar number, the label a musician sees (repeats reuse it)
 * @property {[number, number]} time   time signature
 * @property {number} [beats]          beats sounding in this bar; default time[0] (fewer for a pickup)
 * @property {number} [firstBeatInBar] number of its first beat; default 1, or time[0] - beats + 1
 *                                     for a short first bar (a pickup ends on the last beats)
 * @property {{ beat: number, bpm: number }[]} [tempo] tempo changes at beats of this bar (from 1);
 *                                     the first bar must set the tempo at its first beat
 * @property {{ beat: number, name: string }[]} [marks] rehearsal marks written at beats of this bar
 *                                     (from firstBeatInBar); the tempo map does not read them
 */

/**
 * Build a tempo map from the simple form of a manifest: bars 1..N (and a pickup bar 0), with
 * time-signature changes at bars and tempo changes at bars or beats.
 * Throws a clear Error for an inconsistent spec (score validation reports the same problems with
 * file and field names).
 * @param {TempoMapSpec} spec
 */
export function createTempoMap(spec) {
  const pickup = spec.pickup ?? 0;
  if (!isPosInt(spec.bars)) throw new Error('tempo map: bars must be an integer > 0');
  if (!(Number.isInteger(pickup) && pickup >= 0)) throw new Error('tempo map: pickup must be an integer >= 0');
  const changes = [...(spec.changes ?? [])].sort((a, b) => a.bar - b.bar || (a.beat ?? 1) - (b.beat ?? 1));
  const firstBar = pickup > 0 ? 0 : 1;
  for (const c of changes) {
    if (!Number.isInteger(c.bar) || c.bar < firstBar || c.bar > spec.bars) {
      throw new Error(`tempo map: change at bar ${c.bar} is outside bars ${firstBar}..${spec.bars}`);
    }
    if (c.time && !(isPosInt(c.time[0]) && isPosInt(c.time[1])))
      throw new Error(`tempo map: bar ${c.bar}: time must be two integers > 0`);
    if (c.time && (c.beat ?? 1) !== 1)
      throw new Error(`tempo map: bar ${c.bar}: a time signature changes only at beat 1`);
    if (c.tempo !== undefined && !(typeof c.tempo === 'number' && c.tempo > 0 && c.tempo <= 1000)) {
      throw new Error(`tempo map: bar ${c.bar}: tempo must be a number of beats per minute in (0, 1000]`);
    }
  }
  const first = changes[0];
  if (!first || first.bar > 1 || !first.time || first.tempo === undefined) {
    throw new Error('tempo map: the first change must be at bar 1 and give both time and tempo');
  }
  if (pickup > 0 && pickup >= /** @type {[number, number]} */ (first.time)[0]) {
    throw new Error('tempo map: a pickup must be shorter than a full bar');
  }

  /** @type {BarSpec[]} */
  const sequence = [];
  /** @type {[number, number]} */
  let time = /** @type {[number, number]} */ (first.time);
  let ci = 0;
  for (let bar = firstBar; bar <= spec.bars; bar++) {
    /** @type {{ beat: number, bpm: number }[]} */
    const tempo = [];
    // The first change (at bar 1) also opens the pickup bar 0.
    while (ci < changes.length && (changes[ci].bar <= bar || changes[ci] === first)) {
      const c = changes[ci];
      if (c.time) time = [c.time[0], c.time[1]];
      // The first tempo holds from the very first beat, pickup included.
      const beatInBar = c === first && bar === firstBar ? null : (c.beat ?? 1);
      if (c.tempo !== undefined) tempo.push({ beat: beatInBar ?? -1, bpm: c.tempo });
      ci++;
    }
    const isPickup = bar === 0;
    const beats = isPickup ? pickup : time[0];
    const firstBeatInBar = isPickup ? time[0] - pickup + 1 : 1;
    for (const t of tempo) if (t.beat === -1) t.beat = firstBeatInBar;
    sequence.push({ bar, time, beats, firstBeatInBar, ...(tempo.length ? { tempo } : {}) });
  }
  return createTempoMapFromBars(sequence);
}

/**
 * Build a tempo map from bars in performance order.
 * @param {BarSpec[]} sequence
 */
export function createTempoMapFromBars(sequence) {
  if (!Array.isArray(sequence) || sequence.length === 0) throw new Error('tempo map: there are no bars');

  /** @type {BarInfo[]} */
  const bars = [];
  /** @type {TempoSegment[]} */
  const segments = [];
  let beat = 0;
  sequence.forEach((spec, i) => {
    const { bar, time } = spec;
    if (!Number.isInteger(bar)) throw new Error(`tempo map: bar ${i}: bar must be an integer`);
    if (!(Array.isArray(time) && isPosInt(time[0]) && isPosInt(time[1])))
      throw new Error(`tempo map: bar ${bar}: time must be two integers > 0`);
    const beats = spec.beats ?? time[0];
    if (!isPosInt(beats)) throw new Error(`tempo map: bar ${bar}: beats must be an integer > 0`);
    const firstBeatInBar = spec.firstBeatInBar ?? (i === 0 && beats < time[0] ? time[0] - beats + 1 : 1);
    for (const t of spec.tempo ?? []) {
      const offset = t.beat - firstBeatInBar;
      if (!(Number.isInteger(t.beat) && offset >= 0 && offset < beats))
        throw new Error(`tempo map: bar ${bar} has no beat ${t.beat} for a tempo change`);
      if (!(typeof t.bpm === 'number' && t.bpm > 0 && t.bpm <= 1000))
        throw new Error(`tempo map: bar ${bar}: tempo must be a number of beats per minute in (0, 1000]`);
      const at = beat + offset;
      const prev = segments[segments.length - 1];
      if (prev && prev.beat === at) prev.bpm = t.bpm;
      else segments.push({ beat: at, ms: 0, bpm: t.bpm });
    }
    if (i === 0 && (segments.length === 0 || segments[0].beat !== 0)) {
      throw new Error('tempo map: the first bar must set the tempo on its first beat');
    }
    bars.push({ bar, startBeat: beat, beats, firstBeatInBar, time });
    beat += beats;
  });
  const totalBeats = beat;
  for (let i = 1; i < segments.length; i++) {
    const p = segments[i - 1];
    segments[i].ms = p.ms + ((segments[i].beat - p.beat) * 60000) / p.bpm;
  }
  /** First occurrence of each written bar number (seeking to a repeated bar goes to its first playing). */
  /** @type {Map<number, BarInfo>} */
  const firstOf = new Map();
  for (const b of bars) if (!firstOf.has(b.bar)) firstOf.set(b.bar, b);
  const written = [...firstOf.keys()];

  /**
   * Global beat index of beat `beatInBar` of the first playing of written bar `bar`.
   * @param {number} bar
   * @param {number} beatInBar
   */
  const beatOf = (bar, beatInBar) => {
    const info = firstOf.get(bar);
    if (!info) throw new Error(`tempo map: no bar ${bar}`);
    const offset = beatInBar - info.firstBeatInBar;
    if (!(Number.isInteger(beatInBar) && offset >= 0 && offset < info.beats)) {
      throw new Error(`tempo map: bar ${bar} has no beat ${beatInBar}`);
    }
    return info.startBeat + offset;
  };

  /**
   * Milliseconds from the start of the piece to (fractional) beat `b`.
   * @param {number} b
   */
  function timeAtBeat(b) {
    const s = segments[lastAtOrBefore(segments, b, (x) => x.beat)];
    return s.ms + ((b - s.beat) * 60000) / s.bpm;
  }

  return {
    totalBeats,
    durationMs: timeAtBeat(totalBeats),
    firstBar: Math.min(...written),
    lastBar: Math.max(...written),
    /** Bars in performance order. */
    bars,
    segments,
    timeAt: timeAtBeat,
    /**
     * The (fractional) beat sounding at `ms` from the start of the piece.
     * @param {number} ms
     */
    beatAt(ms) {
      const s = segments[lastAtOrBefore(segments, ms, (x) => x.ms)];
      return s.beat + ((ms - s.ms) * s.bpm) / 60000;
    },
    /**
     * Written tempo (bpm) at beat `b`.
     * @param {number} b
     */
    tempoAt(b) {
      return segments[lastAtOrBefore(segments, b, (x) => x.beat)].bpm;
    },
    /**
     * Bar, beat in bar and time signature of global beat index `b` (0 <= b < totalBeats).
     * @param {number} b
     * @returns {Position}
     */
    positionOf(b) {
      const i = Math.floor(b);
      if (!(i >= 0 && i < totalBeats)) throw new Error(`tempo map: beat ${b} is outside 0..${totalBeats - 1}`);
      const info = bars[lastAtOrBefore(bars, i, (x) => x.startBeat)];
      return { beat: i, bar: info.bar, beatInBar: info.firstBeatInBar + (i - info.startBeat), time: info.time };
    },
    /**
     * The first playing of written bar `bar`, or undefined.
     * @param {number} bar
     */
    barInfo: (bar) => firstOf.get(bar),
    beatOf,
  };
}

/** @typedef {ReturnType<typeof createTempoMapFromBars>} TempoMap */
