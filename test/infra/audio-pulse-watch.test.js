import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseInputs, parseSinks, readPulseLog } from '../../infra/audio-lab/pulse-watch.js';

const SINKS = `Sink #0
\tState: RUNNING
\tName: lab
\tLatency: 6967 usec, configured 11610 usec
\tFlags: DECIBEL_VOLUME LATENCY DYNAMIC_LATENCY
Sink #1
\tState: RUNNING
\tName: ch0
\tLatency: 6800 usec, configured 11610 usec
`;

const INPUTS = `Sink Input #3
\tDriver: protocol-native.c
\tSink: 1
\tBuffer Latency: 23400 usec
\tSink Latency: 8300 usec
\tProperties:
\t\tmedia.name = "Playback"
Sink Input #0
\tSink: 0
\tBuffer Latency: 0 usec
\tSink Latency: 8600 usec
\tProperties:
\t\tmedia.name = "Remapped Stream"
`;

/** @type {string[]} */
const dirs = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the lab PulseAudio's watch", () => {
  it("reads each sink's latency and each stream's buffer from pactl's lists", () => {
    expect(parseSinks(SINKS)).toEqual([
      { index: 0, name: 'lab', latencyUs: 6967, configuredUs: 11610 },
      { index: 1, name: 'ch0', latencyUs: 6800, configuredUs: 11610 },
    ]);
    expect(parseInputs(INPUTS)).toEqual([
      { index: 3, sink: 1, bufferUs: 23400, sinkUs: 8300, name: 'Playback' },
      { index: 0, sink: 0, bufferUs: 0, sinkUs: 8600, name: 'Remapped Stream' },
    ]);
  });

  it("puts the daemon's log on the lab's clock by the sampler's own connections, outvoting a browser's", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pulse-watch-'));
    dirs.push(dir);
    // The daemon's time 0 is lab time 1,000,050 (50 ms after it was spawned at 1,000,000); each
    // sample's pactl connects 10 ms into its 30 ms window; a browser connects once near one.
    const zero = 1_000_050;
    /** @type {string[]} */
    const log = ['(   0.000|   0.000) I: [pulseaudio][main.c:1 main()] start'];
    /** @type {string[]} */
    const samples = [];
    for (let k = 0; k < 20; k++) {
      const from = zero + 1000 + k * 250;
      samples.push(JSON.stringify({ from, to: from + 30, sinks: [], inputs: [] }));
      const c = (from + 10 - zero) / 1000;
      log.push(
        `(${c.toFixed(3).padStart(8)}|   0.000) I: [pulseaudio][protocol-native.c:1 x()] Client authenticated anonymously.`,
      );
    }
    log.push('(   1.330|   0.000) I: [pulseaudio][protocol-native.c:1 x()] Client authenticated anonymously.');
    log.push(
      "(   2.000|   0.000) D: [null-sink][protocol-native.c:1478 handle_input_underrun()] Implicit underrun of 'Playback'",
    );
    samples.push(JSON.stringify({ steal: 2, at: zero + 2005 }));
    writeFileSync(path.join(dir, 'pulse.log'), `${log.join('\n')}\n`);
    writeFileSync(path.join(dir, 'latency.jsonl'), `${samples.join('\n')}\n`);
    const r = readPulseLog(path.join(dir, 'pulse.log'), path.join(dir, 'latency.jsonl'), 1_000_000);
    expect(r.agreeing).toBe(20);
    expect(Math.abs(r.offset - zero)).toBeLessThanOrEqual(10);
    const underrun = r.entries.find((e) => /Implicit underrun/.test(e.text));
    expect(Math.abs((underrun?.at ?? 0) - (zero + 2000))).toBeLessThanOrEqual(10);
    expect(r.latencies).toHaveLength(20);
    expect(r.steal).toEqual([{ steal: 2, at: zero + 2005 }]);
  });
});
