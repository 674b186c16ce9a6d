// Calibration by tapping along, for devices whose browser reports no output latency or a wrong
// one (a Bluetooth headset): from the console, `await scorecast.tapAlong()` plays a steady click
// through the same compensated path as the score's sounds (client/src/sound/audio-latency.js); the
// listener taps any key or the screen with the clicks they hear. Taps late by a steady amount
// mean the sound leaves the speaker that much later than assumed: the device's offset grows by it.

import { tapAlongOffset } from './audio-latency.js';

/** Clicks in a calibration, and the gap between them (ms). */
export const TAP_CLICKS = 16;
export const TAP_EVERY_MS = 600;
/** The first click comes this long after the start (ms), the result this long after the last. */
const LEAD_MS = 1200;
const TAIL_MS = 600;

/**
 * @param {object} o
 * @param {() => any} o.getContext   the unlocked AudioContext, or null
 * @param {import('./audio-latency.js').OutputCompensation} o.output
 * @param {() => number} o.now       page time (performance.now; events' timeStamp is on it)
 * @param {{ addEventListener: (t: string, fn: (e: any) => void) => void, removeEventListener: (t: string, fn: (e: any) => void) => void }} o.target
 * @param {{ setTimeout: (fn: () => void, ms: number) => any }} o.timers
 */
export function createTapAlong({ getContext, output, now, target, timers }) {
  /**
   * @returns {Promise<{ measuredMs: number, offsetMs: number } | { error: string }>}
   */
  return function tapAlong() {
    const ctx = getContext();
    if (ctx?.state !== 'running') return Promise.resolve({ error: 'tap Join first: sound is off until then' });
    const start = now() + LEAD_MS;
    /** @type {number[]} */
    const clicks = [];
    for (let i = 0; i < TAP_CLICKS; i++) {
      const local = start + i * TAP_EVERY_MS;
      clicks.push(local);
      const when = output.contextTimeFor(ctx, local, now());
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = i % 4 === 0 ? 1760 : 1320;
      gain.gain.setValueAtTime(0.5, when);
      gain.gain.exponentialRampToValueAtTime(0.001, when + 0.04);
      osc.connect(gain).connect(ctx.destination);
      osc.start(when);
      osc.stop(when + 0.05);
    }
    /** @type {number[]} */
    const taps = [];
    const onTap = (/** @type {{ timeStamp?: number }} */ e) => {
      taps.push(typeof e.timeStamp === 'number' && e.timeStamp > 0 ? e.timeStamp : now());
    };
    target.addEventListener('keydown', onTap);
    target.addEventListener('pointerdown', onTap);
    return new Promise((resolve) => {
      timers.setTimeout(
        () => {
          target.removeEventListener('keydown', onTap);
          target.removeEventListener('pointerdown', onTap);
          const measured = tapAlongOffset(clicks, taps);
          if (measured === null) {
            resolve({ error: `only ${taps.length} taps near the clicks: tap along with every click` });
            return;
          }
          try {
            output.setOffset(output.offsetMs + measured);
            resolve({ measuredMs: measured, offsetMs: output.offsetMs });
          } catch (err) {
            resolve({ error: String(/** @type {Error} */ (err).message) });
          }
        },
        LEAD_MS + TAP_CLICKS * TAP_EVERY_MS + TAIL_MS,
      );
    });
  };
}
