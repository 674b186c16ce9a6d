// The audience meter as the conductor plays it (core/audience-meter.js): thumbs count while the
// open form's current section shows them (`audience.thumbs`), and the meter's value rides in the
// performance state as `meter` (-1..1, in steps of 0.02) while the section shows thumbs or the
// meter, so every page (the phones, the musicians' parts, the console) gets it as one small
// merge patch through the hub, like any other change: `{"meter":0.42}`. A timer publishes it at
// most every 250 ms, and only while it moves: with nobody thumbing it costs nothing. Thumbs are
// not saved: a voice counts for 10 s, a restart loses no more than that.

import { AudienceMeter, METER_DEFAULTS } from '../../core/audience-meter.js';
import { errorValue } from '../../core/errors.js';

/** Thumbs refused, made once: thousands may come a second. */
const THUMBS_OFF = Object.freeze(errorValue('SC_ERR_THUMBS_CLOSED', 'this section shows no thumbs'));
const NO_OPEN_FORM = Object.freeze(errorValue('SC_ERR_THUMBS_CLOSED', 'this score has no open form (openForm)'));

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */

/**
 * @param {{
 *   clock: Pick<import('./beat-grid.js').Clock, 'now' | 'setTimer' | 'clearTimer'>,
 *   publish: () => void,
 *   switches: () => import('../../core/open-form.js').AudienceSwitches | null,
 *   options?: Partial<import('../../core/audience-meter.js').MeterOptions>,
 * }} ctx  publish: commit the state again (dress puts the meter's value in); switches: what the
 *   current section shows (null: no open form, or it has ended)
 */
export function createMeterState({ clock, publish, switches, options = {} }) {
  const meter = new AudienceMeter(options, clock.now());
  const every = meter.options.minIntervalMs;
  /** The value the pages have. */
  let shown = 0;
  /** @type {unknown} */
  let timer = null;

  function tick() {
    timer = null;
    const now = clock.now();
    const value = meter.poll(now);
    if (value !== null && value !== shown) {
      shown = value;
      publish();
    }
    // On while there are voices or the value has not come back to rest.
    const half = meter.options.step / 2;
    const moving = Math.abs(meter.raw(now) - shown) >= half || Math.abs(meter.smoothed - shown) >= half;
    if (meter.open && (meter.count(now) > 0 || moving)) timer = clock.setTimer(tick, every);
  }

  return {
    /**
     * The state with the meter as the section shows it: `meter` while it shows thumbs or the
     * meter, absent otherwise. Opens or closes the meter to thumbs as the section says.
     * @param {PerformanceState} s
     * @param {import('../../core/open-form.js').AudienceSwitches | null} switches  null: no open form
     * @returns {PerformanceState}
     */
    dress(s, switches) {
      const open = switches?.thumbs === true;
      if (open !== meter.open) {
        meter.setOpen(open, clock.now());
        if (!open) {
          shown = 0;
          meter.published = null;
        }
      }
      const { meter: _, ...rest } = /** @type {PerformanceState & { meter?: number }} */ (s);
      if (!switches || !(switches.thumbs || switches.meter)) return rest;
      return /** @type {PerformanceState} */ ({ ...rest, meter: shown });
    },

    /**
     * The conductor's way of dressing a state, with the meter added as the section shows it.
     * @param {(s: PerformanceState) => PerformanceState} inner  the rest of the dressing
     * @returns {(s: PerformanceState) => PerformanceState}
     */
    dresser(inner) {
      return (s) => this.dress(inner(s), switches());
    },

    /**
     * A thumb from a device (its id, verified). Answered as a value, not thrown: thousands come
     * a second, and an Error captures a stack each time.
     * @param {string} device
     * @param {unknown} value  "up" or "down"
     * @returns {import('../../core/errors.js').ErrorValue | null}  why it was not counted
     *   (SC_ERR_THUMBS_CLOSED, SC_ERR_RATE_LIMITED past the device's budget, SC_ERR_BAD_MESSAGE)
     */
    thumb(device, value) {
      const r = meter.thumb(device, value, clock.now());
      if (!r.ok) return r.error;
      if (timer === null) timer = clock.setTimer(tick, every);
      return null;
    },

    /** The value the pages have (0 while the meter is closed): what the score's meter rules read. */
    value: () => shown,

    /** Voices counted now and the value shown, for the console and tests. */
    report() {
      const now = clock.now();
      return { open: meter.open, voices: meter.count(now), value: shown, raw: meter.raw(now) };
    },

    dispose() {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
    },
  };
}

/** @typedef {ReturnType<typeof createMeterState>} MeterState */

/**
 * The conductor's commands of the audience meter (conductor.js spreads them in), and its
 * `dispose`, which stops the meter's timer with the beat grid's.
 * @param {{ sections: () => import('./sections.js').SectionState | null, meter: MeterState, grid: { cancel: () => void } }} ctx
 */
export function meterCommands({ sections, meter, grid }) {
  return {
    /** Stop the timers (the beat's, the meter's); the conductor publishes nothing more. */
    dispose() {
      grid.cancel();
      meter.dispose();
    },

    /**
     * A phone's thumb (`device`: its verified id). Why it was not counted, or null:
     * SC_ERR_THUMBS_CLOSED while the section shows no thumbs, SC_ERR_RATE_LIMITED past the
     * device's budget (2 a second, 4 at once).
     * @param {string} device
     * @param {unknown} value  "up" or "down"
     * @returns {import('../../core/errors.js').ErrorValue | null}
     */
    thumb(device, value) {
      const s = sections();
      if (!s?.audience()?.thumbs) return s ? THUMBS_OFF : NO_OPEN_FORM;
      return meter.thumb(device, value);
    },

    /** The meter now: open to thumbs, voices counted, the value shown and the raw one. */
    meterReport: () => meter.report(),
  };
}

export { METER_DEFAULTS };
