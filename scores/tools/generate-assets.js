#!/usr/bin/env node
// Generates the score packages' audio (run by `npm run build`; the files are not committed).

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ambience, encodeWav, writeFileMkdir } from './wav.js';
import { generateDemoAudio } from './demo-audio.js';

const SCORES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @type {{ file: string, seconds: number, rate: number }[]} */
const AUDIO = [
  // The seed report's page carried an MP3; about 1.85 MB of audio brings the page to ~1.9 MB.
  { file: 'seed-profile/generated/ambience.wav', seconds: 42, rate: 22050 },
];

for (const a of AUDIO) {
  const file = path.join(SCORES, a.file);
  const bytes = 44 + Math.round(a.seconds * a.rate) * 2;
  if (existsSync(file) && statSync(file).size === bytes) continue;
  await writeFileMkdir(file, encodeWav(ambience(a.seconds, a.rate), a.rate));
  process.stdout.write(`generated ${a.file} (${bytes} bytes)\n`);
}

await generateDemoAudio();
