// Writes deterministic audio for score packages (nothing is downloaded): 16-bit PCM WAV.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * @param {Float32Array} samples in -1..1
 * @param {number} rate samples per second
 * @returns {Buffer}
 */
export function encodeWav(samples, rate) {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i])) * 32767), i * 2);
  }
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/**
 * A slow ambient chord with a gentle swell: partials of a G major chord, each with its own
 * tremolo. Deterministic, so every build produces the same bytes (and the same content hash).
 * @param {number} seconds
 * @param {number} rate
 */
export function ambience(seconds, rate) {
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  const partials = [98, 146.83, 196, 246.94, 293.66, 392];
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const swell = Math.sin(Math.PI * Math.min(1, t / seconds)) ** 0.5;
    let v = 0;
    partials.forEach((f, k) => {
      v += (Math.sin(2 * Math.PI * f * t) * (0.5 + 0.5 * Math.sin(2 * Math.PI * (0.1 + k * 0.03) * t))) / (k + 1.5);
    });
    out[i] = 0.35 * swell * v;
  }
  return out;
}

/**
 * Write a file, creating its folder.
 * @param {string} file
 * @param {Buffer} bytes
 */
export async function writeFileMkdir(file, bytes) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}
