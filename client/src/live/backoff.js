// Reconnect delays: full-jitter exponential backoff ("Exponential Backoff And Jitter", AWS
// Architecture Blog, 2015). Full jitter spreads a crowd of phones that lost the same access point
// over the whole window instead of bringing them back in synchronized waves.

/** Defaults of the client's reconnect backoff (ms). */
export const BACKOFF = Object.freeze({ baseMs: 500, capMs: 10_000 });

/**
 * Delay before reconnect attempt number `attempt` (0 for the first retry):
 * `random() * min(capMs, baseMs * 2^attempt)`.
 * @param {number} attempt retries made since the last connection that delivered a message
 * @param {() => number} random uniform in [0, 1), injected so tests can pin it
 * @param {{ baseMs: number, capMs: number }} [limits] defaults to BACKOFF
 * @returns {number} milliseconds, in [0, min(capMs, baseMs * 2^attempt)]
 */
export function backoffDelay(attempt, random, limits = BACKOFF) {
  const n = Number.isFinite(attempt) && attempt > 0 ? Math.floor(attempt) : 0;
  // 2 ** n overflows to Infinity for very large n; Math.min still yields the cap.
  const ceiling = Math.min(limits.capMs, limits.baseMs * 2 ** n);
  const r = random();
  // Clamp: an injected random() outside [0, 1) must not produce a delay outside the window.
  return ceiling * Math.min(Math.max(Number.isFinite(r) ? r : 0, 0), 1);
}
