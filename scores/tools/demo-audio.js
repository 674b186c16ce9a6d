#!/usr/bin/env node
// Writes the demo score's audio clip, scores/demo/generated/bell.wav: a struck bell on G, the
// key of "First Light", that the audience's phones play at a cue (scores/demo/score-v2.yaml).
// Synthesised here, never downloaded; the folder is gitignored, so builds run this again.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeWav, writeFileMkdir } from './wav.js';

const DEMO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'demo');

/** Phones play 22.05 kHz mono without trouble, and the clip stays small (about 66 KB). */
const RATE = 22050;
const SECONDS = 1.5;

/**
 * Partials of a church bell as ratios of the strike tone (hum, prime, minor-third tierce,
 * quint, nominal and two upper partials), each with its level and decay time constant in
 * seconds: the upper partials die first, which is what makes it sound struck.
 */
const PARTIALS = [
  { ratio: 0.5, level: 0.3, decay: 1.1 },
  { ratio: 1.0, level: 0.5, decay: 0.8 },
  { ratio: 1.2, level: 0.35, decay: 0.55 },
  { ratio: 1.5, level: 0.18, decay: 0.45 },
  { ratio: 2.0, level: 0.4, decay: 0.4 },
  { ratio: 2.67, level: 0.15, decay: 0.25 },
  { ratio: 3.01, level: 0.1, decay: 0.18 },
];

/**
 * A bell struck at t = 0: exponentially decaying partials, a 3 ms attack (no click) and the last
 * 200 ms damped to silence, normalised to a peak of 0.8. Pure and deterministic.
 * @param {number} [seconds=1.5]
 * @param {number} [rate=22050] samples per second
 * @param {number} [strike=392] strike tone in Hz (G4)
 * @returns {Float32Array}
 */
export function bell(seconds = SECONDS, rate = RATE, strike = 392) {
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  const attack = 0.003 * rate;
  const fade = 0.2 * rate;
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    let v = 0;
    for (const p of PARTIALS) v += p.level * Math.exp(-t / p.decay) * Math.sin(2 * Math.PI * strike * p.ratio * t);
    v *= Math.min(1, i / attack) * Math.min(1, (n - 1 - i) / fade);
    out[i] = v;
    peak = Math.max(peak, Math.abs(v));
  }
  const gain = peak > 0 ? 0.8 / peak : 0;
  for (let i = 0; i < n; i++) out[i] *= gain;
  return out;
}

/**
 * Write the demo package's generated audio.
 * @param {string} [dir] the demo package folder (default scores/demo)
 * @returns {Promise<string[]>} the files written, relative to `dir`
 */
export async function generateDemoAudio(dir = DEMO) {
  const file = 'generated/bell.wav';
  await writeFileMkdir(path.join(dir, file), encodeWav(bell(), RATE));
  return [file];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const f of await generateDemoAudio()) process.stdout.write(`wrote scores/demo/${f}\n`);
}
