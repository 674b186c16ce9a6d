// Granular synthesis on the phone (ZScore's browser granulator, zsweb src/js/audio/zsGranulator.js,
// read for its behaviour): short grains of one sound file, each with its own envelope, taken
// around a read position that a triangle oscillator moves through the file (with slow LFOs on its
// frequency and on both ends of its range), grain sizes moved by another oscillator, a little
// random pitch and position spread, all under one master gain. Scheduled on the Web Audio clock
// ahead of time (a look-ahead loop), never from a grain's `ended` event, so a busy main thread
// makes no gaps. Loaded only by pages whose score uses it (audience/audience-view.js imports it lazily).

/**
 * ZScore's preset parameters (audienceScoreConfig.yml `granulator:`), checked.
 * @typedef {ReturnType<typeof granulatorConfig>} GranulatorConfig
 */

/** The values ZScore's granulator starts from. */
export const DEFAULTS = {
  masterGainVal: 1.0,
  playDurationSec: 30,
  maxGrains: 16,
  isUsePositionOscillator: true,
  isUseSizeOscillator: true,
  isUsePositionFrequencyMod: true,
  isUsePositionRangeMod: true,
  envelope: { attackTime: 0.5, decayTime: 0.0, sustainTime: 0.0, releaseTime: 0.5, sustainLevel: 1.0 },
  grain: { sizeMs: 100, pitchRate: 1.0, maxPositionOffsetRangeMs: 100, maxPitchRateRange: 0.03, timeOffsetStepMs: 10 },
  positionOscillator: {
    minValue: 500,
    maxValue: 4500,
    frequency: 0.2,
    frequencyLFO: { minValue: -0.1, maxValue: 0.0, frequency: 0.02 },
    startLFO: { minValue: -500, maxValue: 500, frequency: 0.1 },
    endLFO: { minValue: -500, maxValue: 500, frequency: 0.1 },
  },
  sizeOscillator: { minValue: -30, maxValue: 500, frequency: 0.1 },
  bufferPositionPlayRate: 0.5,
};

/** How far ahead grains are scheduled (s), and how often the loop runs (ms). */
export const LOOKAHEAD_S = 0.2;
export const TICK_MS = 50;
/** Grains one loop may schedule at most (a bound, whatever the config says). */
const MAX_GRAINS_PER_TICK = 256;

/**
 * A number from the network, or the default.
 * @param {unknown} v @param {number} lo @param {number} hi @param {number} d
 */
const num = (v, lo, hi, d) => (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : d);
/** @param {unknown} v @param {boolean} d */
const bool = (v, d) => (typeof v === 'boolean' ? v : d);
/** @param {unknown} v */
const obj = (v) => (v && typeof v === 'object' ? /** @type {Record<string, any>} */ (v) : {});

/**
 * ZScore's granulator config from a cue, every value checked and bounded (it comes from the
 * network), missing ones from DEFAULTS.
 * @param {unknown} given
 */
export function granulatorConfig(given) {
  const c = obj(given);
  const d = DEFAULTS;
  const osc = (
    /** @type {unknown} */ v,
    /** @type {{ minValue: number, maxValue: number, frequency: number }} */ def,
    /** @type {number} */ range,
  ) => {
    const o = obj(v);
    return {
      minValue: num(o.minValue, -range, range, def.minValue),
      maxValue: num(o.maxValue, -range, range, def.maxValue),
      frequency: num(o.frequency, -100, 100, def.frequency),
    };
  };
  const e = obj(c.envelope);
  const g = obj(c.grain);
  const p = obj(c.positionOscillator);
  return {
    masterGainVal: num(c.masterGainVal, 0, 1, d.masterGainVal),
    playDurationSec: num(c.playDurationSec, 0, 3600, d.playDurationSec),
    maxGrains: Math.round(num(c.maxGrains, 1, 64, d.maxGrains)),
    isUsePositionOscillator: bool(c.isUsePositionOscillator, d.isUsePositionOscillator),
    isUseSizeOscillator: bool(c.isUseSizeOscillator, d.isUseSizeOscillator),
    isUsePositionFrequencyMod: bool(c.isUsePositionFrequencyMod, d.isUsePositionFrequencyMod),
    isUsePositionRangeMod: bool(c.isUsePositionRangeMod, d.isUsePositionRangeMod),
    envelope: {
      attackTime: num(e.attackTime, 0, 1, d.envelope.attackTime),
      decayTime: num(e.decayTime, 0, 1, d.envelope.decayTime),
      sustainTime: num(e.sustainTime, 0, 1, d.envelope.sustainTime),
      releaseTime: num(e.releaseTime, 0, 1, d.envelope.releaseTime),
      sustainLevel: num(e.sustainLevel, 0, 1, d.envelope.sustainLevel),
    },
    grain: {
      sizeMs: num(g.sizeMs, 5, 5000, d.grain.sizeMs),
      pitchRate: num(g.pitchRate, 0.05, 8, d.grain.pitchRate),
      maxPositionOffsetRangeMs: num(g.maxPositionOffsetRangeMs, 0, 60_000, d.grain.maxPositionOffsetRangeMs),
      maxPitchRateRange: num(g.maxPitchRateRange, 0, 4, d.grain.maxPitchRateRange),
      timeOffsetStepMs: num(g.timeOffsetStepMs, 1, 1000, d.grain.timeOffsetStepMs),
    },
    positionOscillator: {
      ...osc(p, d.positionOscillator, 3_600_000),
      frequencyLFO: osc(p.frequencyLFO, d.positionOscillator.frequencyLFO, 100),
      startLFO: osc(p.startLFO, d.positionOscillator.startLFO, 3_600_000),
      endLFO: osc(p.endLFO, d.positionOscillator.endLFO, 3_600_000),
    },
    sizeOscillator: osc(c.sizeOscillator, d.sizeOscillator, 60_000),
    bufferPositionPlayRate: num(c.bufferPositionPlayRate, -8, 8, d.bufferPositionPlayRate),
  };
}

/**
 * A triangle wave from `min` (phase 0) to `max` (phase 0.5) and back.
 * @param {number} phase any real number; its fractional part is used
 * @param {number} min @param {number} max
 */
export function triangle(phase, min, max) {
  const f = phase - Math.floor(phase);
  return min + (max - min) * (1 - Math.abs(2 * f - 1));
}

/**
 * Where in the file (s) and how long (s) the grain starting `t` seconds after the start reads, as
 * ZScore computes them: the position oscillator (its frequency and ends moved by their LFOs), the
 * size oscillator added to the grain size, both kept inside the file.
 * @param {GranulatorConfig} c
 * @param {number} t seconds since the granulator started
 * @param {number} duration the file's length (s)
 */
export function grainAt(c, t, duration) {
  const p = c.positionOscillator;
  let position;
  if (c.isUsePositionOscillator) {
    // The frequency LFO moves the phase by the integral of its value: for a triangle, the mean
    // value over the elapsed time is close enough for a slow LFO (0.02 Hz in Union Rose).
    const fm = c.isUsePositionFrequencyMod
      ? triangle((p.frequencyLFO.frequency * t) / 2, p.frequencyLFO.minValue, p.frequencyLFO.maxValue)
      : 0;
    const lo =
      p.minValue +
      (c.isUsePositionRangeMod ? triangle(p.startLFO.frequency * t, p.startLFO.minValue, p.startLFO.maxValue) : 0);
    const hi =
      p.maxValue +
      (c.isUsePositionRangeMod ? triangle(p.endLFO.frequency * t, p.endLFO.minValue, p.endLFO.maxValue) : 0);
    position = triangle((p.frequency + fm) * t, lo, hi) / 1000;
  } else {
    position = t * c.bufferPositionPlayRate;
    position -= Math.floor(position / duration) * duration;
  }
  let size = c.grain.sizeMs;
  if (c.isUseSizeOscillator) {
    const s = size + triangle(c.sizeOscillator.frequency * t, c.sizeOscillator.minValue, c.sizeOscillator.maxValue);
    if (s > 0 && s / 1000 <= duration) size = s;
  }
  const sizeS = Math.min(size / 1000, duration);
  return { position: Math.min(Math.max(0, position), Math.max(0, duration - sizeS)), size: sizeS };
}

/**
 * The grain's envelope as gain points (time in s from the grain's start, value): attack, decay,
 * sustain and release as fractions of the grain (ZScore's envelope, scaled to fit the grain).
 * @param {GranulatorConfig['envelope']} e
 * @param {number} size grain length (s)
 * @returns {[number, number][]}
 */
export function envelopePoints(e, size) {
  const total = e.attackTime + e.decayTime + e.sustainTime + e.releaseTime;
  const k = total > 1 ? 1 / total : 1;
  const a = e.attackTime * k * size;
  const d = e.decayTime * k * size;
  const r = e.releaseTime * k * size;
  const points = /** @type {[number, number][]} */ ([
    [0, 0],
    [a, 1],
  ]);
  if (d > 0) points.push([a + d, e.sustainLevel]);
  const level = d > 0 ? e.sustainLevel : 1;
  points.push([Math.max(a + d, size - r), level], [size, 0]);
  return points;
}

/**
 * @typedef {object} GranulatorContext the part of an AudioContext used here (a fake in tests)
 * @property {number} currentTime
 * @property {() => any} createGain
 * @property {() => any} createBufferSource
 * @property {any} destination
 */

/**
 * A granulator on one decoded sound.
 * @param {object} o
 * @param {GranulatorContext} o.context
 * @param {{ duration: number }} o.buffer   an AudioBuffer
 * @param {{ setInterval: typeof setInterval, clearInterval: typeof clearInterval }} o.timers
 * @param {() => number} [o.random]
 */
export function createGranulator({ context, buffer, timers, random = Math.random }) {
  let config = granulatorConfig({});
  const master = context.createGain();
  master.gain.value = config.masterGainVal;
  master.connect(context.destination);
  /** Context time the playing started at, or null. */
  let start = /** @type {number | null} */ (null);
  let next = 0;
  let grains = 0;
  /** @type {ReturnType<typeof setInterval> | null} */
  let loop = null;

  function schedule() {
    if (start === null) return;
    const end = start + config.playDurationSec;
    const horizon = Math.min(context.currentTime + LOOKAHEAD_S, end);
    // ZScore keeps maxGrains grains sounding: a grain starts every size / maxGrains, never closer
    // than its time step.
    for (let n = 0; next < horizon && n < MAX_GRAINS_PER_TICK; n++) {
      const t = next - start;
      const { position, size } = grainAt(config, t, buffer.duration);
      const spread = config.grain.maxPositionOffsetRangeMs / 1000;
      const offset = Math.min(Math.max(0, position + (random() - 0.5) * spread), Math.max(0, buffer.duration - size));
      const rate = config.grain.pitchRate + (random() - 0.5) * config.grain.maxPitchRateRange;
      const when = Math.max(next, context.currentTime);
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.playbackRate.value = rate;
      const gain = context.createGain();
      gain.gain.setValueAtTime(0, when);
      for (const [dt, v] of envelopePoints(config.envelope, size)) gain.gain.linearRampToValueAtTime(v, when + dt);
      source.connect(gain);
      gain.connect(master);
      source.start(when, offset, size * rate);
      grains++;
      next += Math.max(config.grain.timeOffsetStepMs / 1000, size / config.maxGrains);
    }
    if (context.currentTime >= end) stop();
  }

  function stop() {
    start = null;
    if (loop !== null) timers.clearInterval(loop);
    loop = null;
  }

  return {
    /** Grains started so far (tests, the page's debug view). */
    get grains() {
      return grains;
    },
    get playing() {
      return start !== null;
    },
    /** @param {GranulatorConfig} c */
    configure(c) {
      config = c;
    },
    /**
     * Start at context time `when` (grains already due are skipped, not bunched).
     * @param {number} when
     */
    play(when) {
      stop();
      start = when;
      next = Math.max(when, context.currentTime);
      loop = timers.setInterval(schedule, TICK_MS);
      schedule();
    },
    stop,
    /**
     * A note of `seconds` at context time `when`: a burst of grains read at `rate` times the
     * config's pitch rate (the audience's note buttons), from where the position oscillator is
     * (or the file's start), under the same master gain. Bounded like a loop's tick.
     * @param {number} when @param {number} rate @param {number} seconds
     * @returns {number} grains started
     */
    note(when, rate, seconds) {
      const t0 = start === null ? 0 : Math.max(0, when - start);
      const step = Math.max(config.grain.timeOffsetStepMs / 1000, config.grain.sizeMs / 1000 / config.maxGrains);
      let n = 0;
      for (let dt = 0; dt < seconds && n < MAX_GRAINS_PER_TICK; dt += step, n++) {
        const { position, size } = grainAt(config, t0 + dt, buffer.duration);
        const r = Math.min(4, Math.max(0.25, config.grain.pitchRate * rate));
        const source = context.createBufferSource();
        source.buffer = buffer;
        source.playbackRate.value = r;
        const gain = context.createGain();
        gain.gain.setValueAtTime(0, when + dt);
        for (const [d, v] of envelopePoints(config.envelope, size)) gain.gain.linearRampToValueAtTime(v, when + dt + d);
        source.connect(gain);
        gain.connect(master);
        source.start(when + dt, position, size * r);
        grains++;
      }
      return n;
    },
    /**
     * The master gain, reached linearly over `seconds` (ZScore's setGranulatorVolume and
     * granulatorRampLinear('masterGainVal', ...)).
     * @param {number} value @param {number} seconds
     */
    gain(value, seconds) {
      const now = context.currentTime;
      master.gain.cancelScheduledValues?.(now);
      master.gain.setValueAtTime(master.gain.value, now);
      master.gain.linearRampToValueAtTime(Math.min(1, Math.max(0, value)), now + Math.max(0.01, seconds));
    },
    /** Tick by hand (tests): what the look-ahead loop does. */
    tick: schedule,
  };
}
