import { describe, it, expect } from 'vitest';
import {
  createAudioCues,
  clicksOf,
  wantedKeys,
  countInClicks,
  clipKey,
  clipsOf,
  stemGainsOf,
  CLICK_ACCENT_HZ,
  CLICK_HZ,
  LATE_LIMIT_MS,
  CLICK_LATE_LIMIT_MS,
  PLACE_AGAIN_MS,
  PLACE_AGAIN_AHEAD_S,
} from '../../../client/src/sound/audio.js';

const T = 1_700_000_000_000;

/** An AudioContext whose clock is page time / 1000 + `base`, recording every start. */
function fakeContext(/** @type {{ t: number }} */ page, base = 50) {
  /** @type {Array<{ when: number, offset: number, buffer: unknown }>} */
  const starts = [];
  /** @type {unknown[]} */
  const stops = [];
  const ctx = {
    state: 'suspended',
    get currentTime() {
      return base + page.t / 1000;
    },
    destination: {},
    async resume() {
      ctx.state = 'running';
    },
    async decodeAudioData(/** @type {ArrayBuffer} */ bytes) {
      return { decoded: bytes.byteLength };
    },
    createBufferSource() {
      const src = {
        buffer: /** @type {unknown} */ (null),
        connect() {},
        start(/** @type {number} */ when, /** @type {number} */ offset) {
          starts.push({ when, offset, buffer: src.buffer });
        },
        stopped: false,
        stop() {
          src.stopped = true;
          stops.push(src);
        },
      };
      return src;
    },
    getOutputTimestamp: () => ({ contextTime: base + page.t / 1000, performanceTime: page.t }),
  };
  return { ctx, starts, stops };
}

function setup(offset = 5_000) {
  const page = { t: 1_000 };
  const { ctx, starts, stops } = fakeContext(page);
  /** @type {string[]} */
  const fetched = [];
  const clock = /** @type {import('../../../client/src/time/clock.js').ServerClock} */ (
    /** @type {unknown} */ ({
      serverNow: () => page.t + offset,
      toLocal: (/** @type {number} */ t) => t - offset,
    })
  );
  const audio = createAudioCues({
    createContext: () => ctx,
    fetchBytes: async (url) => {
      fetched.push(url);
      return new ArrayBuffer(8);
    },
    clock,
    now: () => page.t,
  });
  return { page, ctx, starts, stops, fetched, audio, offset, clock };
}

/**
 * Cues on a setup's context and clock through the output mapping `output` (a stand-in for
 * audio-latency.js's compensation).
 * @param {ReturnType<typeof setup>} s
 * @param {any} output
 */
function cuesWithOutput(s, output) {
  return createAudioCues({
    createContext: () => s.ctx,
    fetchBytes: async () => new ArrayBuffer(8),
    clock: s.clock,
    now: () => s.page.t,
    output,
  });
}

describe('audio cues', () => {
  it('nothing plays before the join tap unlocks audio', async () => {
    const s = setup();
    expect(await s.audio.play('/bell.wav', s.page.t + s.offset + 500)).toBe(false);
    expect(s.starts).toEqual([]);
    await s.audio.unlock();
    expect(s.audio.unlocked).toBe(true);
  });

  it('a clip announced ahead starts at the AudioContext time of its server time', async () => {
    const s = setup();
    await s.audio.unlock();
    const serverT = s.page.t + s.offset + 640; // 640 ms from now
    expect(await s.audio.play('/bell.wav', serverT)).toBe(true);
    expect(s.starts).toHaveLength(1);
    expect(s.starts[0].when).toBeCloseTo(s.ctx.currentTime + 0.64, 9);
    expect(s.starts[0].offset).toBe(0);
    expect(s.audio.history[0]).toMatchObject({ url: '/bell.wav', serverT });
  });

  it("where the output timestamp runs ahead of the page's clock (WebKitGTK), a clip still starts on time", async () => {
    const s = setup();
    const { ctx } = s;
    ctx.getOutputTimestamp = () => ({ contextTime: ctx.currentTime - 0.003, performanceTime: 2 * s.page.t });
    await s.audio.unlock();
    const serverT = s.page.t + s.offset + 640;
    expect(await s.audio.play('/bell.wav', serverT)).toBe(true);
    expect(s.starts[0].when).toBeCloseTo(ctx.currentTime + 0.64, 9);
  });

  it("once per clip and beat: the announcement and the beat's own cue (or a resync) do not start it twice", async () => {
    const s = setup();
    await s.audio.unlock();
    const serverT = s.page.t + s.offset + 300;
    await s.audio.play('/bell.wav', serverT);
    s.page.t += 310;
    expect(await s.audio.play('/bell.wav', serverT)).toBe(false);
    expect(s.starts).toHaveLength(1);
    expect(s.fetched).toEqual(['/bell.wav']);
    // The next loop's bell, at another time, plays.
    expect(await s.audio.play('/bell.wav', serverT + 60_000)).toBe(true);
  });

  it('a little late: starts now, skipping the part already past; too late: skipped', async () => {
    const s = setup();
    await s.audio.unlock();
    const now = s.page.t + s.offset;
    expect(await s.audio.play('/a.wav', now - 50)).toBe(true);
    expect(s.starts[0].when).toBeCloseTo(s.ctx.currentTime, 9);
    expect(s.starts[0].offset).toBeCloseTo(0.05, 9);
    expect(await s.audio.play('/b.wav', now - LATE_LIMIT_MS - 1)).toBe(false);
    expect(s.starts).toHaveLength(1);
  });

  it('a clip that fails to load is not started, and is fetched again next time', async () => {
    const page = { t: 0 };
    const { ctx, starts } = fakeContext(page);
    let fail = true;
    const clock = /** @type {any} */ ({ serverNow: () => page.t, toLocal: (/** @type {number} */ t) => t });
    const audio = createAudioCues({
      createContext: () => ctx,
      fetchBytes: async () => {
        if (fail) throw new Error('offline');
        return new ArrayBuffer(1);
      },
      clock,
      now: () => page.t,
    });
    await audio.unlock();
    expect(await audio.play('/a.wav', 500)).toBe(false);
    fail = false;
    expect(await audio.play('/a.wav', 500)).toBe(true);
    expect(starts).toHaveLength(1);
  });
});

describe('audio cues across a sleep', () => {
  it('on a suspended or interrupted context nothing is scheduled (it would sound late on resume)', async () => {
    const s = setup();
    await s.audio.unlock();
    s.ctx.state = 'interrupted';
    expect(await s.audio.play('/bell.wav', s.page.t + s.offset + 500)).toBe(false);
    expect(s.starts).toEqual([]);
    // Running again: the same clip, still due, is scheduled.
    s.ctx.state = 'running';
    expect(await s.audio.play('/bell.wav', s.page.t + s.offset + 500)).toBe(true);
  });

  it('cancelPending stops clips not yet sounding; on return one still due plays once, one whose beat passed never', async () => {
    const s = setup();
    await s.audio.unlock();
    const soon = s.page.t + s.offset + 400;
    const later = s.page.t + s.offset + 3_000;
    const sounding = s.page.t + s.offset - 20;
    await s.audio.play('/now.wav', sounding);
    await s.audio.play('/a.wav', soon);
    await s.audio.play('/b.wav', later);
    // The page is hidden: the two ahead are stopped, the one sounding is left alone.
    expect(s.audio.cancelPending()).toBe(2);
    expect(s.stops).toHaveLength(2);
    expect(s.audio.history.map((h) => [h.url, h.cancelled === true])).toEqual([
      ['/now.wav', false],
      ['/a.wav', true],
      ['/b.wav', true],
    ]);
    // Back 1 s later: /a.wav's beat passed while away, /b.wav is still due.
    s.page.t += 1_000;
    expect(await s.audio.play('/a.wav', soon)).toBe(false);
    expect(await s.audio.play('/b.wav', later)).toBe(true);
    expect(await s.audio.play('/b.wav', later)).toBe(false);
    const sounded = s.audio.history.filter((h) => !h.cancelled).map((h) => h.url);
    expect(sounded).toEqual(['/now.wav', '/b.wav']);
  });
});

describe('a jump: what was scheduled for beats that will not come', () => {
  it('retain stops the clips not yet sounding that the state no longer asks for, and only those', async () => {
    const s = setup();
    await s.audio.unlock();
    const sounding = s.page.t + s.offset - 20;
    const next = s.page.t + s.offset + 400;
    await s.audio.play('/now.wav', sounding);
    await s.audio.play('/old-next.wav', next);
    await s.audio.play('/kept.wav', next);
    // The conductor jumped: the beat announced next is another one, with another clip.
    const jumped = {
      playback: 'playing',
      beat: 7,
      beatT: sounding,
      next: { beat: 20, t: next, audio: { audience: ['/kept.wav'] } },
      cues: {},
    };
    const keys = [...clipsOf(jumped, 'audience').map((c) => clipKey(c.url, c.serverT))];
    expect(s.audio.retain(keys)).toBe(1);
    expect(s.audio.history.map((h) => [h.url, h.cancelled === true])).toEqual([
      ['/now.wav', false],
      ['/old-next.wav', true],
      ['/kept.wav', false],
    ]);
    // Stopped: nothing more is asked for; the clip already sounding is left alone.
    expect(s.audio.retain(clipsOf({ playback: 'stopped' }, 'audience').map((c) => clipKey(c.url, c.serverT)))).toBe(1);
    expect(s.stops).toHaveLength(2);
    // A clip stopped is forgotten: a state that asks for it again (a jump back) schedules it again.
    expect(await s.audio.play('/old-next.wav', next)).toBe(true);
    expect(s.audio.retain([])).toBe(1);
    expect(s.audio.retain([])).toBe(0);
  });

  it("wantedKeys: the clips, and the clicks (a count-in's too) only while the click is on", () => {
    const counting = { playback: 'playing', countIn: { t: T, beats: 2, beatMs: 500 }, next: { t: T + 1000 } };
    const clips = [{ url: '/a.wav', serverT: T + 1000 }];
    expect(wantedKeys(clips, counting, false)).toEqual([clipKey('/a.wav', T + 1000)]);
    expect(wantedKeys(clips, counting, true)).toEqual([
      clipKey('/a.wav', T + 1000),
      clipKey('click', T),
      clipKey('click', T + 500),
      clipKey('click', T + 1000),
    ]);
    expect(wantedKeys([], { ...counting, playback: 'stopped' }, true)).toEqual([]);
  });

  it("clicksOf: the beat sounding's, a count-in's clicks and the next one's, while playing", () => {
    expect(clicksOf({ playback: 'playing', beatT: T, next: { t: T + 500 } })).toEqual([T, T + 500]);
    expect(clicksOf({ playback: 'playing', countIn: {}, next: { t: T + 500 } })).toEqual([T + 500]);
    expect(clicksOf({ playback: 'paused', beatT: T })).toEqual([]);
    // Every click of a count-in at once, with the beat it counts in to (and a loop's last beat).
    const counting = { playback: 'playing', countIn: { t: T, beats: 4, beatMs: 500 }, next: { t: T + 2000 } };
    expect(clicksOf(counting)).toEqual([T, T + 500, T + 1000, T + 1500, T + 2000]);
    expect(clicksOf({ ...counting, beatT: T - 700 })).toEqual([T - 700, T, T + 500, T + 1000, T + 1500, T + 2000]);
    expect(countInClicks({ ...counting, playback: 'paused' })).toEqual([]);
    expect(countInClicks({ ...counting, countIn: { t: T, beats: 1e9, beatMs: 500 } })).toHaveLength(64);
  });
});

describe('clipsOf', () => {
  const state = {
    playback: 'playing',
    beat: 118,
    beatT: T,
    next: { beat: 119, t: T + 600, audio: { audience: ['/bell.wav'], cello: ['/drone.wav'] } },
    cues: { audience: { audio: { src: '/gong.wav', beat: 118 } } },
  };

  it("the view's clips of the next beat, at its time, and the current beat's own cue", () => {
    expect(clipsOf(state, 'audience')).toEqual([
      { url: '/bell.wav', serverT: T + 600 },
      { url: '/gong.wav', serverT: T },
    ]);
    expect(clipsOf(state, 'cello')).toEqual([{ url: '/drone.wav', serverT: T + 600 }]);
    expect(clipsOf(state, 'viola')).toEqual([]);
  });

  it('an audio cue of an earlier beat (still in the cue state) is not played again', () => {
    expect(clipsOf({ ...state, beat: 119, next: undefined }, 'audience')).toEqual([]);
  });

  it('nothing when not playing, or for a state that is not one', () => {
    expect(clipsOf({ ...state, playback: 'paused' }, 'audience')).toEqual([]);
    for (const bad of [null, 7, {}, { playback: 'playing', next: { t: 'x', audio: { audience: [3] } } }])
      expect(clipsOf(bad, 'audience')).toEqual([]);
  });
});

describe('audio cues leave the speaker on the beat', () => {
  it("with output compensation, a clip starts earlier by the device's output delay", async () => {
    const { createOutputCompensation } = await import('../../../client/src/sound/audio-latency.js');
    const page = { t: 1_000 };
    const { ctx, starts } = fakeContext(page);
    // A Bluetooth headset: 200 ms reported, and no output timestamp.
    const c = /** @type {any} */ (Object.assign(ctx, { outputLatency: 0.2, baseLatency: 0.01 }));
    delete c.getOutputTimestamp;
    const clock = /** @type {any} */ ({ serverNow: () => page.t, toLocal: (/** @type {number} */ t) => t });
    const audio = createAudioCues({
      createContext: () => c,
      fetchBytes: async () => new ArrayBuffer(8),
      clock,
      now: () => page.t,
      output: createOutputCompensation(),
    });
    await audio.unlock();
    // A cue clip is not held back while the mapping forms (only clicks are): it sounds at once.
    expect(await audio.play('/bell.wav', page.t + 640)).toBe(true);
    expect(starts[0].when).toBeCloseTo(c.currentTime + 0.64 - 0.21, 9);
  });
});

describe('stems: clips with a volume that later cues ramp', () => {
  it('a clip with a volume starts through its own gain node at that volume, and ramps when told', async () => {
    const { page, ctx, starts, audio, offset } = setup();
    /** @type {{ value: number, ramps: [number, number][] }[]} */
    const nodes = [];
    Object.assign(ctx, {
      createGain() {
        const gain = {
          value: 1,
          ramps: /** @type {[number, number][]} */ ([]),
          cancelScheduledValues() {},
          setValueAtTime() {},
          linearRampToValueAtTime(/** @type {number} */ v, /** @type {number} */ at) {
            gain.ramps.push([v, at]);
          },
        };
        nodes.push(gain);
        return { gain, connect() {} };
      },
    });
    await audio.unlock();
    expect(audio.setGain('/drone.wav', 0.2, 4)).toBe(false); // not playing yet
    expect(await audio.play('/drone.wav', page.t + offset + 100, 0.8)).toBe(true);
    expect(starts).toHaveLength(1);
    expect(nodes.map((n) => n.value)).toEqual([0.8]);
    expect(audio.setGain('/drone.wav', 0.2, 4)).toBe(true);
    expect(nodes[0].ramps).toEqual([[0.2, ctx.currentTime + 4]]);
  });

  it("takes the volume from the announcement or the cue, and the stems' volumes from the cue state", () => {
    const s = {
      playback: 'playing',
      beat: 3,
      beatT: T,
      next: { beat: 4, t: T + 500, audio: { audience: ['/a.wav', '/b.wav'] }, gains: { '/a.wav': 0.5 } },
      cues: {
        audience: {
          audio: { src: '/c.wav', beat: 3, gain: 0.3 },
          stems: { drone: { src: '/c.wav', gain: 0.1, glide: 4000 }, bad: { src: '/d.wav', gain: 7 } },
        },
      },
    };
    expect(clipsOf(s, 'audience')).toEqual([
      { url: '/a.wav', serverT: T + 500, gain: 0.5 },
      { url: '/b.wav', serverT: T + 500 },
      { url: '/c.wav', serverT: T, gain: 0.3 },
    ]);
    expect(stemGainsOf(s, 'audience')).toEqual([{ url: '/c.wav', gain: 0.1, glide: 4000 }]);
    expect(stemGainsOf({}, 'audience')).toEqual([]);
  });
});

describe("the musicians' click", () => {
  /** A context that also makes oscillators and gains, recording each tone's pitch and start. */
  function clickSetup(/** @type {number} */ outputMs = 0, ready = () => true) {
    const s = setup();
    /** @type {Array<{ hz: number, at: number, stop: number }>} */
    const tones = [];
    const ctx = /** @type {any} */ (s.ctx);
    ctx.createOscillator = () => {
      const tone = {
        frequency: { value: 0 },
        at: 0,
        connect() {},
        start(/** @type {number} */ at) {
          tone.at = at;
        },
        stop(/** @type {number} */ t) {
          tones.push({ hz: tone.frequency.value, at: tone.at, stop: t });
        },
      };
      return tone;
    };
    ctx.createGain = () => ({
      gain: { value: 1, setValueAtTime() {}, exponentialRampToValueAtTime() {} },
      connect() {},
    });
    // The device's output delay, compensated as for clips.
    const audio = cuesWithOutput(s, {
      contextTimeFor: (/** @type {any} */ c, /** @type {number} */ local, /** @type {number} */ now) =>
        c.currentTime + (local - now) / 1000 - outputMs / 1000,
      ready,
    });
    return { ...s, audio, tones };
  }

  it('sounds each beat once at its server time, early by the output delay, higher on the downbeat', async () => {
    const { audio, tones, page, offset, ctx } = clickSetup(40);
    expect(audio.click(page.t + offset + 500, true)).toBe(false); // no audio before the join tap
    await audio.unlock();
    const beat = page.t + offset + 500;
    expect(audio.click(beat, true)).toBe(true);
    expect(audio.click(beat, true)).toBe(false);
    expect(audio.click(beat + 500, false)).toBe(true);
    expect(tones.map((t) => t.hz)).toEqual([CLICK_ACCENT_HZ, CLICK_HZ]);
    // 500 ms ahead on the page's clock, less 40 ms of output delay.
    expect(tones[0].at).toBeCloseTo(ctx.currentTime + 0.46, 6);
    expect(tones[1].at).toBeCloseTo(ctx.currentTime + 0.96, 6);
    expect(tones[0].stop - tones[0].at).toBeLessThan(0.1);
    expect(audio.history.filter((h) => h.url.startsWith('click')).length).toBe(2);
  });

  it('clicks stay silent while the output mapping is not trusted, and sound once it is; a cue clip is not held back', async () => {
    let trusted = false;
    const { audio, tones, page, offset, starts } = clickSetup(0, () => trusted);
    await audio.unlock();
    const beat = page.t + offset + 500;
    expect(audio.click(beat, true)).toBe(false);
    expect(tones).toEqual([]);
    // A sound of the piece, asked for once near its beat: not lost to a mapping still forming.
    expect(await audio.play('/cue.wav', beat)).toBe(true);
    expect(starts.length).toBe(1);
    trusted = true;
    // The same beat, asked for again with the next state, now sounds.
    expect(audio.click(beat, true)).toBe(true);
    expect(tones.length).toBe(1);
  });

  it('each state takes a reading of the output mapping, sound or none (a late first cue finds it trusted)', async () => {
    let readings = 0;
    const { audio } = clickSetup(0, () => {
      readings += 1;
      return true;
    });
    audio.retain([]);
    expect(readings).toBe(0); // no context yet
    await audio.unlock();
    audio.retain([]);
    audio.retain([]);
    expect(readings).toBe(2);
  });

  it('a beat learnt too late is not clicked out of time', async () => {
    const { audio, tones, page, offset } = clickSetup();
    await audio.unlock();
    expect(audio.click(page.t + offset - LATE_LIMIT_MS - 50, false)).toBe(false);
    // A count-in's clicks already past when the page joins: none sounds late, together.
    expect(audio.click(page.t + offset - CLICK_LATE_LIMIT_MS - 10, true)).toBe(false);
    expect(tones).toEqual([]);
    expect(audio.click(page.t + offset - CLICK_LATE_LIMIT_MS + 10, false)).toBe(true);
    expect(tones.length).toBe(1);
  });

  it('a click placed follows the output mapping until it sounds: a step moves it, a wobble under PLACE_AGAIN_MS does not', async () => {
    const s = setup();
    const ctx = /** @type {any} */ (s.ctx);
    /** @type {Array<{ hz: number, at: number, stopped: number | null }>} */
    const tones = [];
    ctx.createOscillator = () => {
      const t = { hz: 0, at: Number.NaN, stopped: /** @type {number | null} */ (null) };
      tones.push(t);
      return {
        frequency: {
          set value(/** @type {number} */ v) {
            t.hz = v;
          },
        },
        connect() {},
        start: (/** @type {number} */ at) => {
          t.at = at;
        },
        // Stopped with no time: at once (placed again); with one, the tick's own end.
        stop: (/** @type {number | undefined} */ at) => {
          if (at === undefined) t.stopped = ctx.currentTime;
        },
      };
    };
    ctx.createGain = () => ({
      gain: { value: 1, setValueAtTime() {}, exponentialRampToValueAtTime() {} },
      connect() {},
    });
    /** The output's offset (ms): where page time lands on the context, moved by the test. */
    let shift = 0;
    /** @type {Array<(m: any) => void>} */
    const watchers = [];
    const at = (/** @type {number} */ local) => ctx.currentTime + (local - s.page.t + shift) / 1000;
    /** A reading of the output by anyone (the page's status report, the next state). */
    const reading = (of = ctx) => {
      for (const w of watchers) w({ ctx: of, at });
    };
    const audio = cuesWithOutput(s, {
      contextTimeFor: (/** @type {any} */ _c, /** @type {number} */ local) => at(local),
      ready: () => true,
      onMapping: (/** @type {(m: any) => void} */ w) => watchers.push(w),
      get trace() {
        return null;
      },
    });
    await audio.unlock();
    const beat = s.page.t + s.offset + 600;
    expect(audio.click(beat, true)).toBe(true);
    expect(audio.click(beat + 500, false)).toBe(true);
    const placed = tones.map((t) => t.at);
    // A wobble of the mapping under the threshold: left where they are.
    shift = PLACE_AGAIN_MS * 0.8;
    reading();
    expect(tones.length).toBe(2);
    // The output stepped 6 ms before they sound: both stopped, both placed again 6 ms later.
    s.page.t += 100;
    shift = 6;
    reading();
    expect(tones.length).toBe(4);
    expect(tones[0].stopped).not.toBeNull();
    expect(tones[1].stopped).not.toBeNull();
    expect(tones[2].at).toBeCloseTo(placed[0] + 0.006, 6);
    expect(tones[3].at).toBeCloseTo(placed[1] + 0.006, 6);
    expect(tones.slice(2).map((t) => t.hz)).toEqual([CLICK_ACCENT_HZ, CLICK_HZ]);
    expect(audio.history.map((h) => [h.when, h.placedAgain])).toEqual([
      [tones[2].at, 1],
      [tones[3].at, 1],
    ]);
    // The first is about to sound (within PLACE_AGAIN_AHEAD_S): left alone; the second still moves.
    s.page.t = beat - s.offset - (PLACE_AGAIN_AHEAD_S * 1000) / 2;
    shift = 12;
    reading();
    expect(tones.length).toBe(5);
    expect(tones[2].stopped).toBeNull();
    expect(tones[4].at).toBeCloseTo(placed[1] + 0.012, 6);
    // Another context's mapping (the page made a new one) moves nothing on this one.
    shift = 30;
    reading(/** @type {any} */ ({}));
    expect(tones.length).toBe(5);
    // A jump of the size that restarts a mapping (80 ms or more) moves the click still ahead too.
    s.page.t += 5;
    shift = 95;
    reading();
    expect(tones.length).toBe(6);
    expect(tones[5].at).toBeCloseTo(placed[1] + 0.095, 6);
  });
});
