// What our server sends when it autoplays a score: when each delta goes out within one loop and
// how many bytes it is. The floor server replays this schedule with padding of the same sizes, so
// the floor and ours push the same bytes at the same times. Measured on the wire from a running
// server (one client, one loop of the piece), so it depends on doc/protocol.md only, not on the
// server's modules.

import WebSocket from 'ws';

/**
 * @typedef {object} ScoreSchedule
 * @property {string} id             score id
 * @property {number} loopMs         length of one loop of the piece
 * @property {number[]} atMs         offset of each beat's delta from the start of a loop
 * @property {number[]} deltaBytes   size of that delta envelope (bytes on the wire)
 * @property {number} snapshotBytes  size of the snapshot a client gets when it joins
 * @property {number} welcomeBytes   size of the welcome envelope
 */

/**
 * One beat as the server published it: the beat index, when it sounds, the delta's size.
 * @typedef {{ beat: number, beatT: number, bytes: number }} BeatSeen
 */

/**
 * The schedule of one whole loop, if `seen` holds one: from a beat 0 to the next beat 0 (whose
 * delta is the loop's jump back, with its own size).
 * @param {BeatSeen[]} seen
 * @returns {{ loopMs: number, atMs: number[], deltaBytes: number[] } | null}
 */
export function loopOf(seen) {
  const end = seen.length - 1;
  if (end < 1 || seen[end].beat !== 0) return null;
  let start = end - 1;
  while (start >= 0 && seen[start].beat !== 0) start--;
  if (start < 0) return null;
  const beats = end - start;
  const atMs = new Array(beats).fill(NaN);
  const deltaBytes = new Array(beats).fill(NaN);
  for (let i = start; i < end; i++) {
    const { beat, beatT, bytes } = seen[i];
    if (beat >= beats) return null;
    atMs[beat] = beatT - seen[start].beatT;
    deltaBytes[beat] = i === start ? seen[end].bytes : bytes;
  }
  if (atMs.some(Number.isNaN)) return null;
  return { loopMs: seen[end].beatT - seen[start].beatT, atMs, deltaBytes };
}

/**
 * Listen to a server that autoplays a looping score until one whole loop has gone by (up to
 * two loops when the first snapshot is not on beat 0).
 * @param {string} url         ws://127.0.0.1:P/live
 * @param {number} [timeoutMs]
 * @returns {Promise<ScoreSchedule>}
 */
export function measureSchedule(url, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => done(new Error(`score-schedule: no whole loop within ${timeoutMs} ms`)), timeoutMs);
    let welcomeBytes = NaN;
    let snapshotBytes = NaN;
    let id = '';
    /** @type {BeatSeen[]} */
    const seen = [];
    /**
     * @param {Error | null} err
     * @param {ScoreSchedule} [schedule]
     */
    function done(err, schedule) {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      if (err) reject(err);
      else resolve(/** @type {ScoreSchedule} */ (schedule));
    }
    ws.on('error', (err) => done(new Error(`score-schedule: ${err.message}`)));
    ws.on('close', () => done(new Error('score-schedule: the server closed the connection')));
    ws.on('message', (/** @type {Buffer} */ data) => {
      const msg = JSON.parse(data.toString());
      if (msg.type === 'welcome') welcomeBytes = data.length;
      else if (msg.type === 'snapshot' && Number.isNaN(snapshotBytes)) {
        snapshotBytes = data.length;
        id = msg.state?.score?.id ?? '';
        if (typeof msg.state?.beatT !== 'number') {
          done(new Error('score-schedule: the server is not playing; start it with --autoplay'));
          return;
        }
        if (msg.state.beat === 0) seen.push({ beat: 0, beatT: msg.state.beatT, bytes: NaN });
      } else if (msg.type === 'delta' && typeof msg.patch?.beat === 'number' && typeof msg.patch?.beatT === 'number') {
        seen.push({ beat: msg.patch.beat, beatT: msg.patch.beatT, bytes: data.length });
        const loop = loopOf(seen);
        if (loop) done(null, { id, ...loop, snapshotBytes, welcomeBytes });
      }
    });
  });
}

/**
 * The shortest measuring window of at least `minMs` that is whole loops of the piece and whole
 * steps of a timeline, so that every window and every step holds the same part of the music.
 * @param {number} loopMs
 * @param {number} stepMs
 * @param {number} minMs
 * @returns {number} ms
 */
export function wholeLoopsWindow(loopMs, stepMs, minMs) {
  const loop = Math.max(1, Math.round(loopMs));
  let [a, b] = [loop, stepMs];
  while (b !== 0) [a, b] = [b, a % b];
  const unit = (loop / a) * stepMs;
  return Math.ceil(minMs / unit) * unit;
}
