// What the sleep-and-wake spec and bench/sleep-wake.js both need: a score with a clip on every
// beat, how soon a returning page shows its beats on time again, and whether a change or a clip
// was lost or repeated.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeWav } from '../scores/tools/wav.js';

/**
 * A click: 30 ms of 1760 Hz, 16-bit mono PCM at 22,050 Hz, as a WAV file.
 * @returns {Buffer}
 */
function clickWav() {
  const rate = 22_050;
  const n = Math.round(rate * 0.03);
  const samples = Float32Array.from(
    { length: n },
    (_, i) => (12_000 / 32767) * (1 - i / n) * Math.sin((2 * Math.PI * 1760 * i) / rate),
  );
  return encodeWav(samples, rate);
}

/** The score's tempo: a beat every 500 ms. */
export const BEAT_MS = 500;

/** A beat shown within this of its due time (ms, the machine's wall clock) is shown on time. */
export const ON_TIME_MS = 50;

/**
 * A package of `bars` bars of 4/4 at q = 120 with a click on every beat, in a temporary folder.
 * @param {{ bars?: number }} [o]
 * @returns {string} the package's folder
 */
export function clickTrackScore({ bars = 60 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-sleep-wake-'));
  mkdirSync(path.join(dir, 'audio'));
  writeFileSync(path.join(dir, 'audio', 'click.wav'), clickWav());
  const cues = [];
  for (let beat = 0; beat < bars * 4; beat++) cues.push(`  - { at: ${beat}, audio: audio/click.wav }`);
  writeFileSync(
    path.join(dir, 'score.yaml'),
    [
      'id: sleep-wake',
      'title: Sleep and wake',
      `bars: ${bars}`,
      'meter:',
      '  - { bar: 1, time: 4/4, tempo: 120 }',
      'cues:',
      '  - { at: 0, set: { text: "A click on every beat." } }',
      ...cues,
      'assets:',
      '  - { path: audio/click.wav, preload: true }',
      '',
    ].join('\n'),
  );
  return dir;
}

/**
 * @typedef {{ beat: number | null, count: number, at: number, due: number | null, predicted: boolean }} Shown
 */

/**
 * The first beat shown on time at or after `back` (the machine's wall clock: the page and the
 * server share it here), and how long after `back` it was shown; null if none yet.
 * @param {Shown[]} shown  window.scorecast.shown
 * @param {number} back
 */
export function backInBeat(shown, back) {
  for (const s of shown) {
    if (s.at < back || s.due === null || s.beat === null || s.count > 0) continue;
    if (Math.abs(s.at - s.due) <= ON_TIME_MS) return { beat: s.beat, afterMs: s.at - back, lateMs: s.at - s.due };
  }
  return null;
}

/**
 * Changes missed or applied twice: within an epoch, deltas run +1 from the last applied seq.
 * @param {{ epoch: string, seq: number, type: string }[]} events  window.scorecast.events
 */
export function streamFaults(events) {
  let missed = 0;
  let repeated = 0;
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1];
    const e = events[i];
    if (e.epoch !== prev.epoch) continue;
    if (e.type === 'delta' && e.seq > prev.seq + 1) missed += e.seq - prev.seq - 1;
    if (e.seq <= prev.seq) repeated += 1;
  }
  return { missed, repeated };
}

/**
 * Clips started twice (the same clip for the same beat), and clips that sounded later than
 * `lateLimitS` into their beat, from window.scorecast.audio; clips stopped before they sounded
 * (`cancelled`) do not count.
 * @param {{ url: string, serverT: number, offset: number, cancelled?: boolean }[]} history
 * @param {number} lateLimitS
 */
export function clipFaults(history, lateLimitS) {
  const seen = new Set();
  let replayed = 0;
  let late = 0;
  for (const h of history) {
    if (h.cancelled) continue;
    const key = `${h.url}@${Math.round(h.serverT)}`;
    if (seen.has(key)) replayed += 1;
    seen.add(key);
    if (h.offset > lateLimitS) late += 1;
  }
  return { replayed, late };
}
