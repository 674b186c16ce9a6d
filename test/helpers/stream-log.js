// What a page's applied-change log (`window.scorecast.events`) must show after any cut, reconnect
// or fallback: no change missed, none applied twice. Shared by the Chromium specs (playwright/)
// and the other engines (test/engines/).

/**
 * Every gap or repeat in the log, in words; empty when there is none. Within an epoch, deltas run
 * +1 from the last applied seq, and a snapshot only moves forward.
 * @param {{ epoch: string, seq: number, type: string }[]} events
 * @returns {string[]}
 */
export function gapsOrRepeats(events) {
  /** @type {string[]} */
  const problems = [];
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1];
    const e = events[i];
    if (e.type === 'delta') {
      if (e.epoch !== prev.epoch) problems.push(`event ${i}: a delta of epoch ${e.epoch} after ${prev.epoch}`);
      else if (e.seq !== prev.seq + 1) problems.push(`event ${i}: delta ${e.seq} after ${prev.seq}`);
    } else if (e.epoch === prev.epoch && e.seq <= prev.seq) {
      problems.push(`event ${i}: snapshot ${e.seq} after ${prev.seq} (not forward)`);
    }
  }
  return problems;
}
