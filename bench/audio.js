// Audio onset benchmark: N browser processes play the musicians' click on the beats of the demo,
// each into its own channel of one virtual multi-channel sound device, recorded in one stream
// (infra/audio-lab/). Reports the spread of each beat's onsets across pages and each onset's
// offset from the server time the beat was scheduled at, per network profile. The last line of
// output is one JSON object: the loopback run's figures, the other profiles' under `profiles`.
//
//   node bench/audio.js [--pages 10] [--seconds 150] [--profiles loopback,wifi-busy]
//                       [--out FILE] [--plot FILE.svg] [--dump PREFIX] [--engines chromium,firefox,webkit]
//                       [--notation] [--settle-output S] [--joins] [--pulse-watch PREFIX]
//
// --out keeps, beside each page's onsets, the raw readings its output mapping took and the clicks
// it placed: `node bench/audio-replay.js FILE` replays them through this checkout's mapping.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, writeFileSync } from 'node:fs';
import { PROFILES, runAudioLab } from '../infra/audio-lab/lab.js';
import { onsetPlot } from '../infra/audio-lab/plot.js';
import { benchArgs } from './cli-args.js';

const HELP = `Usage: node bench/audio.js [options]   (npm run bench:audio)

Browser processes (Chromium under Xvfb, one PulseAudio channel each) click on the beats; the
recording gives each beat's onset spread across pages and each onset's offset from the beat's
server time (positive: late), p50/p99/max in ms. Needs root (real-time priority for the audio
path, as phones have) and Debian's chromium, xvfb, pulseaudio (test/setup/ensure-deps.sh).

  --pages N         browser processes (default 10, at most 15)
  --seconds S       measured after the last page clicks (default 150: 200+ beats of the demo)
  --profiles LIST   loopback, wifi-light (10 ± 5 ms each way), wifi-busy (35 ± 25 ms)
                    (default loopback,wifi-busy)
  --out FILE        also write the results as JSON (with the onsets, page by page)
  --plot FILE       an SVG of each page's onset offsets over time (the first profile)
  --dump PREFIX     keep each profile's recording: PREFIX-<profile>.raw and .json
  --engines LIST    each page's browser in turn: chromium, firefox, webkit (default chromium);
                    Firefox ESR on desktop Linux assumes the 40 ms fallback latency; WebKitGTK's
                    MiniBrowser (WebKitWebDriver, an Xvfb of its own, its audio threads real-time)
  --root DIR        the checkout whose server and built client run (default this one): a baseline
  --settle-output S each page's sound runs S seconds before the measurement (default 30: the
                    steady state; a page's first 20 s of clicks were off by 5-97 ms here before
                    it waited for a trusted output mapping, see infra/audio-lab/lab.js)
  --joins           record from before the first page clicks: each page's first clicks measured
                    (joinOffsets: |offset| over each page's first 10 s and the 20 s after)
  --pulse-watch PREFIX  the lab's PulseAudio at debug level (PREFIX-<profile>-pulse.log) and its
                    sinks' and streams' latencies 5 times a second (-latency.jsonl), on the lab's
                    clock (infra/audio-lab/pulse-watch.js): the device's own moves, to set
                    against the onsets
  --notation        the pages paint their notation too (default: ?notation=off, the click and the
                    beat strip only, on the same clock and sound code; ten pages painting notation
                    in software took this 2-core machine to load 35-38 by themselves)
  -h, --help        this text
`;

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      pages: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '150' },
      profiles: { type: 'string', default: 'loopback,wifi-busy' },
      out: { type: 'string' },
      plot: { type: 'string' },
      dump: { type: 'string' },
      root: { type: 'string' },
      engines: { type: 'string', default: 'chromium' },
      notation: { type: 'boolean', default: false },
      'settle-output': { type: 'string', default: '30' },
      joins: { type: 'boolean', default: false },
      'pulse-watch': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const profiles = /** @type {Array<keyof typeof PROFILES>} */ (values.profiles.split(','));
  for (const p of profiles)
    if (!(p in PROFILES)) throw new Error(`unknown profile ${p}: use ${Object.keys(PROFILES).join(', ')}`);
  const engines = /** @type {Array<'chromium' | 'firefox' | 'webkit'>} */ (values.engines.split(','));
  for (const e of engines)
    if (e !== 'chromium' && e !== 'firefox' && e !== 'webkit')
      throw new Error(`unknown engine ${e}: chromium, firefox, webkit`);
  /** @type {Record<string, any>} */
  const results = {};
  for (const profile of profiles) {
    const r = await runAudioLab({
      pages: Number(values.pages),
      seconds: Number(values.seconds),
      profile,
      engines,
      notation: values.notation,
      settleOutputS: Number(values['settle-output']),
      joins: values.joins,
      ...(values.root ? { root: path.resolve(values.root) } : {}),
      dump: values.dump ? `${values.dump}-${profile}` : undefined,
      pulseWatch: values['pulse-watch'] ? `${values['pulse-watch']}-${profile}` : undefined,
      log: (m) => console.error(`[${profile}] ${m}`),
    });
    results[profile] = r;
    const { series, ...row } = /** @type {Record<string, any>} */ (r);
    delete row.pagesRaw;
    console.log(JSON.stringify(row));
  }
  const first = results[profiles[0]];
  if (values.plot) {
    mkdirSync(path.dirname(path.resolve(values.plot)), { recursive: true });
    writeFileSync(
      values.plot,
      onsetPlot(first.series, { title: `audio onsets, ${profiles[0]}, ${first.pages} pages` }),
    );
  }
  if (values.out) {
    mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
    writeFileSync(values.out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`);
  }
  const pick = (/** @type {any} */ r) => ({
    pages: r.pages,
    beats: r.beats,
    onsetSpreadMs: r.onsetSpreadMs,
    offsetMs: r.offsetMs,
    signedOffsetMs: r.signedOffsetMs,
    unmatched: r.unmatched,
    load1: r.load1,
    notation: r.notation,
    cpuPercent: r.cpuPercent,
    sinkLagMs: r.tie.sinkLagMs,
    tieValid: r.tie.valid,
    // Each page's context clock behind its page clock over the measurement (lab.js): one page far
    // above the others had its audio starved, and its onsets say so, not its mapping.
    contextBehindMs: r.contextBehindMs,
  });
  const main = results.loopback ?? first;
  const others = Object.fromEntries(profiles.filter((p) => results[p] !== main).map((p) => [p, pick(results[p])]));
  console.log(
    JSON.stringify({
      profile: main.profile,
      ...pick(main),
      clockErrorMs: main.clockErrorMs,
      clockErrorAtClickMs: main.clockErrorAtClickMs,
      scheduledAheadMs: main.scheduledAheadMs,
      ...(main.joinOffsets
        ? { joinOffsets: { first10s: main.joinOffsets.first10s, next20s: main.joinOffsets.next20s } }
        : {}),
      profiles: others,
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
