// A passage loop in the performance state (doc/protocol.md, "State", `loop`): bars `from`..`to`
// (beats `start`..`end`) played over and over, each time round after `countIn` clicks, until the
// conductor turns it off. What every view shows of it ("loop 40-48, 3rd time"). Pure.

/**
 * The state's `loop` field.
 * @typedef {object} LoopField
 * @property {number} from      the bar of its first beat
 * @property {number} to        the bar of its last beat
 * @property {number} start     its first beat (global beat index)
 * @property {number} end       its last beat, included
 * @property {number} round     the time round being played, from 1
 * @property {number} countIn   clicks (beats) before each time round, 0 for none
 * @property {string} [fromMark] the rehearsal mark it was asked from
 * @property {string} [toMark]   the rehearsal mark it was asked up to (the loop ends before it)
 */

/**
 * "1st", "2nd", "3rd", "4th", "11th", "22nd"…
 * @param {number} n
 */
export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/**
 * What a view shows of the loop: "loop 40-48, 3rd time" (a loop within one bar: "loop 40"), or ''
 * when there is none or the field is not one the page understands.
 * @param {unknown} loop  the state's `loop`
 */
export function loopLabel(loop) {
  if (!loop || typeof loop !== 'object') return '';
  const l = /** @type {Record<string, unknown>} */ (loop);
  const whole = (/** @type {unknown} */ x) => typeof x === 'number' && Number.isInteger(x);
  if (!whole(l.from) || !whole(l.to) || !whole(l.round) || /** @type {number} */ (l.round) < 1) return '';
  const bars = l.from === l.to ? `${l.from}` : `${l.from}-${l.to}`;
  return `loop ${bars}, ${ordinal(/** @type {number} */ (l.round))} time`;
}
