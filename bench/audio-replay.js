// The audio lab's runs replayed offline: each page's recorded output readings go through this
// checkout's output mapping (client/src/sound/audio-latency.js, output-clock.js), and each onset
// of the recording moves by what its click's start moves. Prints, per profile of each file, the
// figures as run and as replayed (spread and |offset| p50 / p99 / max, ms), and for a `--joins`
// run the same after each page's first 30 s of sound, and the offsets over its first 10 s and the
// 20 s after. A run's own mapping, replayed,
// gives its figures back (to about 0.02 ms): what differs is the mapping's doing.
//
//   node bench/audio-replay.js FILE.json [FILE.json ...]    (files of node bench/audio.js --out)

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './cli-args.js';
import { joinFigures, replayRun, seriesFigures } from '../infra/audio-lab/readings.js';

/** @param {ReturnType<typeof seriesFigures>} f */
const line = (f) =>
  `${f.beats} beats, spread p50 ${f.onsetSpreadMs.p50} p99 ${f.onsetSpreadMs.p99} max ${f.onsetSpreadMs.max}; ` +
  `offset p50 ${f.offsetMs.p50} p99 ${f.offsetMs.p99} max ${f.offsetMs.max} (${f.over5ms} of ${f.offsetMs.n} over 5 ms)`;

/** @param {ReturnType<typeof joinFigures>} j */
const joinLine = (j) =>
  `first 10 s |offset| p50 ${j.first10s.p50} p99 ${j.first10s.p99} max ${j.first10s.max} (${j.first10s.n} onsets); ` +
  `10-30 s p50 ${j.next20s.p50} p99 ${j.next20s.p99} max ${j.next20s.max} (${j.next20s.n}); first heard at ` +
  j.perPage.map((p) => p.firstHeardS).join(', ');

function main() {
  const { positionals } = benchArgs(import.meta.url, { options: {}, allowPositionals: true });
  for (const file of positionals) {
    const { results } = JSON.parse(readFileSync(file, 'utf8'));
    for (const [profile, run] of Object.entries(results)) {
      if (!run.pagesRaw) {
        console.log(`${file} ${profile}: no readings kept (a run before they were)`);
        continue;
      }
      const replayed = replayRun(run);
      console.log(`${file} ${profile}`);
      console.log(`  as run    ${line(seriesFigures(run.series))}`);
      console.log(
        `  replayed  ${line(seriesFigures(replayed.series))} [${replayed.replayed} onsets moved, ${replayed.silenced} silent]`,
      );
      if (run.joins) {
        // A --joins run measures from before the first click: its steady part, each page's sound
        // after its first 30 s, is the figure a --settle-output 30 run gives.
        const settled = (/** @type {Array<{ page: number, t: number, offset: number }>} */ s) =>
          s.filter((x) => x.t > run.pagesRaw[x.page].soundSince + 30_000);
        console.log(`  after 30 s as run    ${line(seriesFigures(settled(run.series)))}`);
        console.log(`  after 30 s replayed  ${line(seriesFigures(settled(replayed.series)))}`);
        const rows = (/** @type {Array<{ page: number, t: number, offset: number }>} */ s) =>
          s.map((x) => ({ page: x.page, beat: x.t, offset: x.offset }));
        console.log(`  joins as run    ${joinLine(joinFigures(rows(run.series), run.pagesRaw))}`);
        console.log(`  joins replayed  ${joinLine(joinFigures(rows(replayed.series), run.pagesRaw))}`);
      }
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
