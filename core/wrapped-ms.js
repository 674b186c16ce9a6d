// Times kept per connection as small integers: whole ms modulo 2^30. V8 stores such a number in
// the object itself (a Smi); a clock reading such as `performance.timeOrigin + performance.now()`
// (1.8e12, fractional) would be a boxed double, 16 bytes more, and once one object of a class
// holds a double in a field, V8 boxes that field in every object of the class.

/** The period of a wrapped time: 2^30 ms, 12.4 days. */
export const WRAP_MS = 2 ** 30;

/**
 * Whole ms modulo 2^30.
 * @param {number} t ms
 */
export function wrapMs(t) {
  const m = Math.floor(t) % WRAP_MS;
  return m < 0 ? m + WRAP_MS : m;
}

/**
 * Whole ms from a wrapped time to `t` (0 to 2^30 - 1): exact for spans under 12.4 days.
 * @param {number} t ms
 * @param {number} since a wrapMs() value
 */
export function msSince(t, since) {
  const d = wrapMs(t) - since;
  return d < 0 ? d + WRAP_MS : d;
}
