import { describe, it, expect } from 'vitest';
import {
  addTap,
  barTimesFromTaps,
  checkBarTimes,
  describeFlag,
  flagTaps,
  meterFromBarTimes,
  seekToBar,
  tapTargets,
  tapsUpTo,
  undoTap,
} from '../../core/tap-tempo.js';
import { createTempoMap } from '../../core/tempo-map.js';

/** @type {[number, number]} */
const FOUR = [4, 4];
/** @type {[number, number]} */
const THREE = [3, 4];
/** A pickup of one beat, bars 1-6 in 4/4, bars 7-8 in 3/4. */
const BARS = [
  { bar: 0, beats: 1, time: FOUR },
  ...[1, 2, 3, 4, 5, 6].map((bar) => ({ bar, beats: 4, time: FOUR })),
  { bar: 7, beats: 3, time: THREE },
  { bar: 8, beats: 3, time: THREE },
];

/** Taps at `secondsPerBeat` for each bar's downbeat, from `start`, with the end of bar 8. */
function downbeats(start = 0.5, secondsPerBeat = 0.5) {
  const out = [start];
  for (const b of BARS.slice(1)) out.push(out[out.length - 1] + b.beats * secondsPerBeat);
  return out;
}

/** @param {number[]} taps */
const tapAll = (taps, targets = taps.length) =>
  taps.reduce((acc, time) => addTap(acc, { time, playing: true }, targets), /** @type {number[]} */ ([]));

describe('tapping along', () => {
  it('counts one tap per bar from bar 1 (the pickup is not tapped), or one per beat, and the end of the last bar', () => {
    expect(tapTargets(BARS, 'bar').map((t) => t.bar)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 8]);
    expect(tapTargets(BARS, 'bar').at(-1)).toEqual({ bar: 8, beat: 1, beats: 0, end: true });
    const beats = tapTargets(BARS, 'beat');
    expect(beats).toHaveLength(6 * 4 + 2 * 3 + 1);
    expect(beats.slice(0, 5).map((t) => `${t.bar}.${t.beat}`)).toEqual(['1.1', '1.2', '1.3', '1.4', '2.1']);
  });

  it('ignores taps before Play, taps that do not move forward, and taps past the last target; undo takes back the last', () => {
    let taps = addTap([], { time: 0.3, playing: false }, 9);
    expect(taps).toEqual([]);
    taps = addTap(taps, { time: 0.5, playing: true }, 9);
    taps = addTap(taps, { time: 0.4, playing: true }, 9); // after a rewind
    taps = addTap(taps, { time: Number.NaN, playing: true }, 9);
    expect(taps).toEqual([0.5]);
    taps = addTap(taps, { time: 2.5, playing: true }, 9);
    expect(taps).toEqual([0.5, 2.5]);
    expect(undoTap(taps)).toEqual([0.5]);
    expect(undoTap([])).toEqual([]);
    expect(addTap([1, 2], { time: 3, playing: true }, 2)).toEqual([1, 2]);
  });

  it('after a seek back keeps the taps up to the point sought and takes new ones after it', () => {
    const taps = downbeats().slice(0, 6); // bars 1-6: 0.5, 2.5, ... 10.5
    const kept = tapsUpTo(taps, 5);
    expect(kept).toEqual([0.5, 2.5, 4.5]);
    expect(tapsUpTo(taps, 20)).toEqual(taps);
    expect(tapsUpTo(taps, 0)).toEqual([]);
    // Bar 4 tapped again, later than before: the bars after it follow from the new taps.
    const again = [6.7, 8.7].reduce((acc, time) => addTap(acc, { time, playing: true }, 9), kept);
    expect(again).toEqual([0.5, 2.5, 4.5, 6.7, 8.7]);
    expect(barTimesFromTaps(again, BARS, 'bar').times).toEqual(again);
  });

  it('seeks to a bar: the taps before it kept, the recording resumed at the tap before it', () => {
    const taps = downbeats().slice(0, 6);
    expect(seekToBar(taps, BARS, 'bar', 4)).toEqual({ time: 4.5, taps: [0.5, 2.5, 4.5] });
    expect(seekToBar(taps, BARS, 'bar', 1)).toEqual({ time: 0, taps: [] });
    // The next bar to tap: all kept, from the last tap; a bar further on, or not tapped (the
    // pickup, a bar the score lacks): no seek.
    expect(seekToBar(taps, BARS, 'bar', 7)).toEqual({ time: 10.5, taps });
    expect(seekToBar(taps, BARS, 'bar', 8)).toBeNull();
    expect(seekToBar(taps, BARS, 'bar', 0)).toBeNull();
    expect(seekToBar(taps, BARS, 'bar', 99)).toBeNull();
    // Beat taps: from bar 2's first beat, after bar 1's four beats; the lead-in is bar 1's last beat.
    const beats = [1, 1.5, 2, 2.5, 3, 3.5];
    expect(seekToBar(beats, BARS, 'beat', 2)).toEqual({ time: 2.5, taps: [1, 1.5, 2, 2.5] });
  });

  it('turns downbeat taps into bar times and a meter: tempo per bar where it changes, time signatures kept', () => {
    const taps = downbeats();
    expect(flagTaps(taps, BARS, 'bar')).toEqual([]);
    const onsets = barTimesFromTaps(taps, BARS, 'bar');
    expect(onsets.times).toEqual(taps.slice(0, 8));
    expect(onsets.end).toBe(taps[8]);
    const m = meterFromBarTimes(onsets, BARS);
    expect(m).toEqual({
      ok: true,
      meter: [
        { bar: 1, time: '4/4', tempo: 120 },
        { bar: 7, time: '3/4' },
      ],
    });
  });

  it('follows a recording that slows down, and the meter plays back at the taps', () => {
    // Each bar 10% longer per beat than the one before.
    const taps = [0.25];
    for (const [i, b] of BARS.slice(1).entries()) taps.push(taps[taps.length - 1] + b.beats * 0.5 * 1.1 ** i);
    expect(flagTaps(taps, BARS, 'bar')).toEqual([]);
    const m = meterFromBarTimes(barTimesFromTaps(taps, BARS, 'bar'), BARS);
    if (!m.ok) throw new Error(m.problems.join());
    expect(m.meter).toHaveLength(8);
    const changes = m.meter.map((c) => ({
      bar: c.bar,
      ...(c.time ? { time: /** @type {[number, number]} */ (c.time.split('/').map(Number)) } : {}),
      ...(c.tempo ? { tempo: c.tempo } : {}),
    }));
    const map = createTempoMap({ bars: 8, pickup: 1, changes });
    // Bar 1 starts after the pickup: every later bar's start, from bar 1's, is where it was tapped.
    for (const [i, b] of map.bars.slice(1).entries()) {
      const ms = map.timeAt(b.startBeat) - map.timeAt(map.bars[1].startBeat);
      expect(ms / 1000).toBeCloseTo(taps[i] - taps[0], 2);
    }
  });

  it('without the end tap the last bar keeps the tempo before it', () => {
    const taps = downbeats(0.5, 0.5).slice(0, 8);
    taps[7] = taps[6] + 3 * 0.6; // bar 7 slower: 3 beats at 100
    const m = meterFromBarTimes(barTimesFromTaps(taps, BARS, 'bar'), BARS);
    expect(m).toEqual({
      ok: true,
      meter: [
        { bar: 1, time: '4/4', tempo: 120 },
        { bar: 7, time: '3/4', tempo: 100 },
      ],
    });
  });

  it('takes beat taps: bar times from each first beat, the last bar ended from its own pace', () => {
    /** @type {number[]} */
    const taps = [];
    let t = 1;
    for (const b of BARS.slice(1))
      for (let k = 0; k < b.beats; k++) {
        taps.push(t);
        t += 0.4;
      }
    const state = tapAll(taps, tapTargets(BARS, 'beat').length);
    expect(flagTaps(state, BARS, 'beat')).toEqual([]);
    const onsets = barTimesFromTaps(state, BARS, 'beat');
    expect(onsets.times).toEqual([1, 2.6, 4.2, 5.8, 7.4, 9, 10.6, 11.8].map((x) => expect.closeTo(x, 9)));
    expect(onsets.end).toBeCloseTo(13, 9);
    expect(meterFromBarTimes(onsets, BARS)).toEqual({
      ok: true,
      meter: [
        { bar: 1, time: '4/4', tempo: 150 },
        { bar: 7, time: '3/4' },
      ],
    });
  });

  it('flags a doubled tap and a missed one, naming the bar; a gradual change is not flagged', () => {
    const good = downbeats();
    const doubled = [...good.slice(0, 4), good[3] + 0.12, ...good.slice(4, 8)];
    const flags = flagTaps(doubled, BARS, 'bar');
    expect(flags).toEqual([{ tap: 4, bar: 5, kind: 'short', ratio: 0.06 }]);
    expect(describeFlag(flags[0])).toMatch(/^bar 5: tapped after 6% .*a doubled tap/);
    const missed = [...good.slice(0, 3), ...good.slice(4)];
    expect(flagTaps(missed, BARS, 'bar')).toEqual([{ tap: 3, bar: 4, kind: 'long', ratio: 2 }]);
    const beatTaps = [0, 0.5, 1.0, 1.5, 2.5, 3.0, 3.5];
    expect(flagTaps(beatTaps, BARS, 'beat')).toEqual([{ tap: 4, bar: 2, beat: 1, kind: 'long', ratio: 2 }]);
  });

  it('checks bar times sent to be written as untrusted input', () => {
    const taps = downbeats();
    expect(checkBarTimes({ times: taps.slice(0, 8), end: taps[8] }, BARS)).toEqual({
      ok: true,
      value: { times: taps.slice(0, 8), end: taps[8] },
    });
    expect(checkBarTimes({ times: taps.slice(0, 8) }, BARS)).toMatchObject({ ok: true, value: { end: null } });
    expect(checkBarTimes(null, BARS)).toMatchObject({ ok: false });
    expect(checkBarTimes({ times: taps.slice(0, 7) }, BARS)).toEqual({
      ok: false,
      problems: ['lists 7 bar times; the score has 8 bars from bar 1, tap every one'],
    });
    const back = taps.slice(0, 8);
    back[3] = back[2];
    expect(checkBarTimes({ times: back }, BARS)).toEqual({
      ok: false,
      problems: ['times[3]: must come after the time before it'],
    });
    expect(checkBarTimes({ times: [...taps.slice(0, 7), 'x'] }, BARS)).toMatchObject({ ok: false });
    expect(checkBarTimes({ times: taps.slice(0, 8), end: 1e9 }, BARS)).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^end: /)],
    });
    const fast = taps.slice(0, 8);
    fast[5] = fast[4] + 0.1; // bar 5: 4 beats in 0.1 s
    expect(meterFromBarTimes({ times: fast, end: null }, BARS)).toEqual({
      ok: false,
      problems: ['bar 5: faster than 1000 beats a minute; a doubled tap?'],
    });
  });
});
