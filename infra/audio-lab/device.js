// The audio onset lab's sound device: a PulseAudio server of the run's own (socket, configuration
// and state in a temporary folder) with one multi-channel null sink, and one remap sink per
// channel, so that each browser plays into a channel of its own and one recording of the null
// sink's monitor holds them all on one sample clock.
//
// The channels have standard positions (front-left, ...): with `aux` positions the monitor
// recorded silence here. The null sink renders (and its monitor records) only while something
// plays into it, so the reference track (reference()) plays from before the recording starts to
// after it ends: the recording has no gaps, and sample n of it is n samples after sample 0.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { start } from '../../test/engines/processes.js';
import { startPulseServer } from '../../test/engines/sound-card.js';
import { clickWave, referenceGapMs } from './onsets.js';
import { PULSE_LOG_OPTIONS, watchLatencies } from './pulse-watch.js';

const run = promisify(execFile);
export const RATE = 48_000;
/** Standard positions, in the order channels are given out (16: pages and the reference). */
export const POSITIONS = [
  'front-left',
  'front-right',
  'front-center',
  'lfe',
  'rear-left',
  'rear-right',
  'front-left-of-center',
  'front-right-of-center',
  'rear-center',
  'side-left',
  'side-right',
  'top-center',
  'top-front-left',
  'top-front-right',
  'top-front-center',
  'top-rear-left',
];

/**
 * @typedef {object} Recording
 * @property {() => Promise<Buffer>} stop  ends it; the interleaved s16le frames recorded
 * @property {() => number} frames  recorded so far
 */

/**
 * @typedef {object} Reference the lab's own clicks on the reference channel
 * @property {number[]} positions   sample index of each click in the reference track
 * @property {() => Array<{ streamMs: number, at: number }>} reports  pacat's playback position
 *   (ms into the track) and when it was read (`now()` of the lab)
 * @property {() => Promise<void>} stop
 */

/**
 * @param {{ channels: number, watch?: string, now?: () => number }} o  channels: pages plus one
 *   for the reference; watch: a file prefix, the daemon's debug log (WATCH-pulse.log) and its
 *   latencies sampled (WATCH-latency.jsonl) on the lab's clock `now` (pulse-watch.js)
 */
export async function startSoundDevice({ channels, watch, now = () => performance.timeOrigin + performance.now() }) {
  if (channels > POSITIONS.length) throw new Error(`at most ${POSITIONS.length} channels`);
  const positions = POSITIONS.slice(0, channels);
  const startedAt = now();
  const server = await startPulseServer({
    prefix: 'scorecast-audio-lab-',
    // Its threads real-time, as a phone's audio path is (root here; elsewhere it asks rtkit, or
    // goes on at normal priority).
    options: ['--realtime=yes', '--high-priority=yes', ...(watch ? PULSE_LOG_OPTIONS(`${watch}-pulse.log`) : [])],
    modules: [
      `module-null-sink sink_name=lab rate=${RATE} format=s16le channels=${channels} channel_map=${positions.join(',')}`,
      ...positions.map(
        (pos, i) =>
          `module-remap-sink sink_name=ch${i} master=lab channels=1 master_channel_map=${pos} channel_map=mono remix=no`,
      ),
    ],
  });
  const { pulse, dir, env, clientEnv } = server;
  /** @type {Set<ReturnType<typeof start>>} */
  const helpers = new Set();
  const watcher = watch
    ? watchLatencies({ file: `${watch}-latency.jsonl`, env: { ...server.env, ...server.clientEnv }, now })
    : null;
  const stop = async () => {
    await watcher?.stop();
    for (const h of helpers) await h.stop();
    await server.stop();
  };
  // Its main thread real-time too: it is the one that asks each stream for more sound and hands
  // what each browser writes to the null sink's thread. At normal priority on a loaded machine it
  // asks late, the streams underrun in PulseAudio (not in the browser: Chromium's playbackStats
  // showed no underrun while 1.1 s of 8 went missing), and every browser's AudioContext falls
  // behind the wall clock. It runs above every browser's audio threads (FIFO 40; theirs RR 10),
  // as a phone's audio server runs above the app that plays into it. Alone this did not stop the
  // underruns that made each page's output step (a 10-page run still had ten streams underrun at
  // once, three times in 150 s: the browsers' own audio threads stalled together); the browsers'
  // larger buffer did (lab.js, --audio-buffer-size; bench/RESULTS.md, "Audio: the device's steps
  // are underruns").
  await realtimeThreads(String(pulse.child.pid), undefined, DAEMON_PRIORITY);
  const pa = server.pactl;

  return {
    channels,
    /** The lab's clock when the daemon was spawned (its log time counts from about then). */
    startedAt,
    /** What a browser needs to play into channel i. */
    envFor: (/** @type {number} */ i) => ({ ...clientEnv, PULSE_SINK: `ch${i}` }),
    /** The streams playing now, with the sink each plays into. */
    async streams() {
      const { stdout } = await pa(['list', 'short', 'sink-inputs']);
      return stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => l.split('\t'));
    },

    /**
     * The reference track into channel `channel`: a click every `everyMs` from `leadMs` on, for
     * `seconds`; pacat reports where its playback is, 20 times a second (`-v`), and each report
     * is stamped on arrival with `now()`.
     * @param {{ channel: number, seconds: number, everyMs?: number, leadMs?: number, latencyMs?: number, now: () => number }} o
     *   latencyMs: pacat's buffer (default its own, 2 s: a loaded machine never starves it)
     * @returns {Reference}
     */
    reference({ channel, seconds, everyMs = 500, leadMs = 1000, latencyMs, now }) {
      const frames = Math.round(seconds * RATE);
      const data = Buffer.alloc(frames * 2);
      const click = clickWave(RATE);
      /** @type {number[]} */
      const positions = [];
      // The gaps vary (referenceGapMs): a few recorded clicks in a row say which clicks of the
      // track they are (matchReference).
      for (let k = 0, p = Math.round((leadMs / 1000) * RATE); p + click.length < frames; k++) {
        positions.push(p);
        for (let i = 0; i < click.length; i++) data.writeInt16LE(Math.round(click[i] * 32767), (p + i) * 2);
        p += Math.round((referenceGapMs(k, everyMs) / 1000) * RATE);
      }
      const file = path.join(dir, 'reference.raw');
      writeFileSync(file, data);
      const pacat = start(
        'pacat',
        [
          '-v',
          '-d',
          `ch${channel}`,
          '--raw',
          '--format=s16le',
          `--rate=${RATE}`,
          '--channels=1',
          ...(latencyMs ? [`--latency-msec=${latencyMs}`] : []),
          file,
        ],
        { env: { ...env, ...clientEnv } },
      );
      helpers.add(pacat);
      // Real-time as the rest of the device: at load 41 it underran even with 2 s buffered.
      if (pacat.child.pid) realtimeThreads(String(pacat.child.pid)).catch(() => {});
      /** @type {Array<{ streamMs: number, at: number }>} */
      const reports = [];
      let text = '';
      pacat.child.stderr?.on('data', (/** @type {Buffer} */ chunk) => {
        const at = now();
        text += chunk.toString();
        const parts = text.split(/[\r\n]/);
        text = parts.pop() ?? '';
        for (const line of parts) {
          const m = /Time: ([\d.]+) sec/.exec(line);
          if (m) reports.push({ streamMs: Number(m[1]) * 1000, at });
        }
      });
      return {
        positions,
        reports: () => reports.slice(),
        stop: async () => {
          await pacat.stop();
          helpers.delete(pacat);
        },
      };
    },

    /**
     * Record every channel of the null sink in one stream.
     * @returns {Recording}
     */
    record() {
      const parec = start(
        'parec',
        [
          '-d',
          'lab.monitor',
          '--raw',
          '--format=s16le',
          `--rate=${RATE}`,
          `--channels=${channels}`,
          `--channel-map=${positions.join(',')}`,
          '--latency-msec=20',
        ],
        { env: { ...env, ...clientEnv } },
      );
      helpers.add(parec);
      /** @type {Buffer[]} */
      const chunks = [];
      let bytes = 0;
      // start() keeps only the tail of stdout for its messages: the samples are taken here too.
      parec.child.stdout?.on('data', (/** @type {Buffer} */ chunk) => {
        chunks.push(chunk);
        bytes += chunk.length;
      });
      return {
        frames: () => Math.floor(bytes / 2 / channels),
        stop: async () => {
          await parec.stop();
          helpers.delete(parec);
          const all = Buffer.concat(chunks);
          return all.subarray(0, all.length - (all.length % (2 * channels)));
        },
      };
    },
    stop,
  };
}

/** The daemon's threads other than the null sink's (chrt's policy and priority). */
const DAEMON_PRIORITY = ['-f', '40'];

/**
 * Every thread of process `pid` real-time (SCHED_RR 10, or `policy`), as far as allowed; with
 * `only`, the threads whose name it matches.
 * @param {string} pid
 * @param {RegExp} [only]
 * @param {string[]} [policy]  chrt's policy and priority for threads other than the null sink's
 */
async function realtimeThreads(pid, only, policy = ['-r', '10']) {
  const read = (/** @type {string} */ f) => {
    try {
      return readFileSync(f, 'utf8').trim();
    } catch {
      return '';
    }
  };
  let changed = 0;
  /** @type {string[]} */
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0; // exited meanwhile
  }
  for (const tid of tids) {
    try {
      // The null sink's thread is the device's clock: above everything else (FIFO 50), or when
      // it wakes late it renders at most one request's worth and falls behind the wall clock for
      // good (module-null-sink.c; 111 ms over two minutes at load 65 with it at RR 10).
      const name = read(`/proc/${pid}/task/${tid}/comm`);
      if (only && !only.test(name)) continue;
      const clock = name === 'null-sink';
      await run('chrt', clock ? ['-f', '-p', '50', tid] : [policy[0], '-p', policy[1], tid], { timeout: 5000 });
      changed += 1;
    } catch {
      /* a thread that ended meanwhile, or not allowed */
    }
  }
  return changed;
}

/**
 * Give every thread of a browser's audio service (Chromium's process that feeds PulseAudio, with
 * libpulse's mainloop `threaded-ml`) real-time priority, as a phone's audio path has: at normal
 * priority on a loaded machine they wait for a core behind everything else and the stream
 * underruns. (Only `threaded-ml` and the IPC thread, tried once with ten pages at load 41: the
 * device fell 376 ms behind, against 99 ms with every thread at load 38.) Chromium makes its own
 * rendering thread real-time already (AudioOutputDevice, SCHED_RR 8). Needs root.
 *
 * WebKitGTK renders and plays in the page's own process (WebKitWebProcess): GStreamer's
 * `webaudioSrc:src` (the graph rendered and pushed to pulsesink), `webaudioSrcTask` and libpulse's
 * `threaded-ml`; only those are made real-time, not the page. At normal priority a lone WebKitGTK
 * page at load 9 lost 19 of its 39 clicks whole or in part (the sink dropping late buffers).
 * @param {string} sink  PULSE_SINK of the browser
 * @param {'chromium' | 'webkit'} [engine]
 * @returns {Promise<number>}  how many threads it changed
 */
export async function realtimeAudioThreads(sink, engine = 'chromium') {
  const read = (/** @type {string} */ f) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  // The audio service runs without the browser's environment: the browser process (its parent)
  // names the sink.
  const ours = (/** @type {string} */ pid) => {
    for (let p = pid, up = 0; p && p !== '1' && up < 4; up++) {
      if (read(`/proc/${p}/environ`).split('\0').includes(`PULSE_SINK=${sink}`)) return true;
      p = /\) \S+ (\d+)/.exec(read(`/proc/${p}/stat`))?.[1] ?? '';
    }
    return false;
  };
  let changed = 0;
  const audioProcess = engine === 'webkit' ? 'WebKitWebProcess' : '--utility-sub-type=audio.mojom.AudioService';
  const only = engine === 'webkit' ? /^(webaudioSrc|threaded-ml)/ : undefined;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (!read(`/proc/${pid}/cmdline`).includes(audioProcess) || !ours(pid)) continue;
    changed += await realtimeThreads(pid, only);
  }
  return changed;
}

/** @typedef {Awaited<ReturnType<typeof startSoundDevice>>} SoundDevice */
