// The audience meter: thumbs up and down from phones, aggregated into one bounded value of the
// room's opinion (ZScore's DialogsWebAudienceProcessor and its meter). Honest under the rules of
// votes: one device, one voice (a device's latest thumb counts, once, for `windowMs`); a per-device
// budget of thumbs; no thumbs while the score does not ask for them. The value is smoothed and
// published as a small patch ({ meter: 0.42 }), at most every `minIntervalMs` and only when it
// moved by `step`: a change costs a few dozen bytes on the wire, a few times a second at most.
// Pure: time is passed in.
//
// The rule (doc/open-form.md, "The audience meter"): a device's latest thumb is its voice (+1 up,
// -1 down) and counts for `windowMs` (10 s) from when it was sent; the room's opinion is
// (ups - downs) / voices, in -1..1, 0 with no voice. The meter follows it smoothed (an exponential
// with a 1.5 s time constant), so when the voices lapse it glides back to 0: a meter nobody
// thumbs decays to neutral within about 15 s of the last thumb.

import { errorValue } from './errors.js';
import { createTokenBucket } from './token-bucket.js';

/**
 * @typedef {object} MeterOptions
 * @property {number} windowMs       how long a thumb counts
 * @property {number} smoothingMs    time constant of the smoothing (0: none)
 * @property {number} minIntervalMs  at most one published change this often
 * @property {number} step           smallest change published (the value is rounded to it)
 * @property {{ perSecond: number, burst: number }} perDevice  thumbs a device may send
 * @property {number} maxDevices     voices held at once (memory bound); more are refused
 */

/** @type {MeterOptions} */
export const METER_DEFAULTS = Object.freeze({
  windowMs: 10_000,
  smoothingMs: 1_500,
  minIntervalMs: 250,
  step: 0.02,
  perDevice: Object.freeze({ perSecond: 2, burst: 4 }),
  maxDevices: 20_000,
});

const DEVICE_RE = /^[A-Za-z0-9_-]{8,64}$/;

export class AudienceMeter {
  /**
   * @param {Partial<MeterOptions>} options
   * @param {number} now ms
   */
  constructor(options, now) {
    /** @type {MeterOptions} */
    this.options = { ...METER_DEFAULTS, ...options };
    /** device -> its voice: +1 or -1, since when */
    /** @type {Map<string, { v: 1 | -1, t: number, bucket: import('./token-bucket.js').TokenBucket }>} */
    this.voices = new Map();
    // Thumbs in arrival order, to expire them in O(1) each: a device's every thumb of the last
    // `windowMs` is here (20 at 2 a second), not only its voice. Two flat arrays, not an object
    // per thumb: 12 bytes a thumb (a pointer to the device's string, an unboxed double) against
    // about 60 (an object of two fields and a boxed time), 1.5 KB a device at 2 thumbs a second.
    /** @type {string[]} */
    this.queueDevices = [];
    /** @type {number[]} */
    this.queueTimes = [];
    this.head = 0;
    this.up = 0;
    this.down = 0;
    this.open = false;
    this.smoothed = 0;
    this.smoothedAt = now;
    /** @type {number | null} */
    this.published = null;
    this.publishedAt = -Infinity;
  }

  /**
   * Thumbs count only while the score shows them (a section's `audience.thumbs`). Closing
   * forgets every voice: the next section's opinion starts afresh.
   * @param {boolean} open
   * @param {number} now
   */
  setOpen(open, now) {
    if (!open && this.open) {
      this.voices.clear();
      this.queueDevices = [];
      this.queueTimes = [];
      this.head = 0;
      this.up = 0;
      this.down = 0;
      this.smooth(now);
    }
    this.open = open;
  }

  /**
   * A thumb from a device.
   * @param {string} device
   * @param {unknown} value  "up" or "down"
   * @param {number} now
   * @returns {{ ok: true } | { ok: false, error: import('./errors.js').ErrorValue }}
   */
  thumb(device, value, now) {
    if (!this.open) return { ok: false, error: errorValue('SC_ERR_THUMBS_CLOSED') };
    if (!DEVICE_RE.test(device)) return { ok: false, error: errorValue('SC_ERR_BAD_DEVICE') };
    if (value !== 'up' && value !== 'down')
      return { ok: false, error: errorValue('SC_ERR_BAD_MESSAGE', 'thumb must be "up" or "down"') };
    this.expire(now);
    const v = value === 'up' ? 1 : -1;
    const had = this.voices.get(device);
    if (!had && this.voices.size >= this.options.maxDevices)
      return { ok: false, error: errorValue('SC_ERR_RATE_LIMITED', 'the meter holds as many voices as it may') };
    const bucket = had?.bucket ?? createTokenBucket(this.options.perDevice, now);
    if (!bucket.take(now)) return { ok: false, error: errorValue('SC_ERR_RATE_LIMITED', 'thumbs from this device') };
    this.smooth(now);
    if (had) {
      if (had.v === 1) this.up--;
      else this.down--;
    }
    if (v === 1) this.up++;
    else this.down++;
    if (had) {
      had.v = v;
      had.t = now;
    } else this.voices.set(device, { v, t: now, bucket });
    this.queueDevices.push(device);
    this.queueTimes.push(now);
    return { ok: true };
  }

  /**
   * The room's opinion now, from -1 (all thumbs down) to 1 (all up); 0 with no voice.
   * @param {number} now
   */
  raw(now) {
    this.expire(now);
    const n = this.up + this.down;
    return n === 0 ? 0 : (this.up - this.down) / n;
  }

  /** Voices counted now. @param {number} now */
  count(now) {
    this.expire(now);
    return this.up + this.down;
  }

  /**
   * The smoothed value, rounded to `step`, when it should be published now; null otherwise.
   * The server calls it on a timer (a few times a second) and after thumbs.
   * @param {number} now
   * @returns {number | null}
   */
  poll(now) {
    this.smooth(now);
    if (now - this.publishedAt < this.options.minIntervalMs) return null;
    const { step } = this.options;
    const value = Math.round(Math.round(this.smoothed / step) * step * 100) / 100;
    if (this.published !== null && Math.abs(value - this.published) < step - 1e-9) return null;
    if (this.published === null && value === 0 && !this.open) return null;
    this.published = value;
    this.publishedAt = now;
    return value;
  }

  /** @param {number} now */
  smooth(now) {
    const target = this.raw(now);
    const dt = Math.max(0, now - this.smoothedAt);
    const tau = this.options.smoothingMs;
    this.smoothed = tau <= 0 ? target : this.smoothed + (target - this.smoothed) * (1 - Math.exp(-dt / tau));
    this.smoothedAt = now;
  }

  /** @param {number} now */
  expire(now) {
    const limit = now - this.options.windowMs;
    const devices = this.queueDevices;
    const times = this.queueTimes;
    while (this.head < times.length && times[this.head] <= limit) {
      const device = devices[this.head];
      const t = times[this.head++];
      const voice = this.voices.get(device);
      // A device's newer thumb replaced this one: its voice stays.
      if (!voice || voice.t !== t) continue;
      if (voice.v === 1) this.up--;
      else this.down--;
      // The device keeps its budget only while it has a voice: memory stays bounded by voices.
      this.voices.delete(device);
    }
    if (this.head > 1024 && this.head * 2 > times.length) {
      this.queueDevices = devices.slice(this.head);
      this.queueTimes = times.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The state patch of a published meter value: what goes to the audience and the parts.
 * @param {number} value
 */
export function meterPatch(value) {
  return { meter: value };
}

/**
 * A meter value (-1..1) as a band's value between `lo` and `hi`: how a part overlay or a cue
 * follows the room (ZScore's overlays driven by the audience).
 * @param {number} value
 * @param {[number, number]} range
 */
export function meterToBand(value, [lo, hi]) {
  const v = Math.min(1, Math.max(-1, value));
  return lo + ((v + 1) / 2) * (hi - lo);
}
