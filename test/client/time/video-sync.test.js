import { describe, it, expect } from 'vitest';
import {
  CATCH_S,
  COSTS_KEPT,
  MAX_NUDGE,
  MAX_SEEK_LEAD_S,
  MISS_S,
  NO_RATE_SEEK_S,
  RATE_PROBE_FRAMES,
  rateCost,
  rateStallsHere,
  SEEK_GAP_MS,
  SEEK_S,
  SETTLE_LIMIT_MS,
  SETTLE_MS,
  STEADY_MS,
  STORM_MS,
  STORM_SEEKS,
  seekAim,
  stallWatch,
  STILL_MS,
  STUCK_MS,
  FIRST_SEEK_LEAD_S,
  driftHold,
  HOLD_MS,
  JUMP_S,
  syncStep,
} from '../../../client/src/time/video-sync.js';

/** @param {Partial<import('../../../client/src/time/video-sync.js').VideoNow>} v */
const video = (v) => ({ currentTime: 10, paused: false, seeking: false, playbackRate: 1, duration: 60, ...v });
const playing = (/** @type {number} */ time, rate = 1) => ({ time, playing: true, rate });

describe('keeping a video in step', () => {
  it('leaves a video in step alone, at the performance rate', () => {
    expect(syncStep(video({}), playing(10.005))).toEqual({
      play: null,
      seek: null,
      rate: null,
      drift: expect.closeTo(-0.005, 9),
      reload: false,
      lead: 0,
    });
    // The conductor's tempo at 1.25x: the video follows at that rate.
    expect(syncStep(video({}), playing(10, 1.25)).rate).toBe(1.25);
  });

  it('nudges the rate against a small drift, taking it out over CATCH_S, at most MAX_NUDGE', () => {
    const behind = syncStep(video({}), playing(10.03));
    expect(behind.seek).toBeNull();
    expect(behind.rate).toBeCloseTo(1 + 0.03 / CATCH_S, 9);
    const ahead = syncStep(video({}), playing(9.92));
    expect(ahead.rate).toBeCloseTo(1 - MAX_NUDGE, 9);
    // Back in step: the performance's rate again.
    expect(syncStep(video({ playbackRate: 1.06 }), playing(10)).rate).toBe(1);
  });

  it('seeks past SEEK_S, aimed ahead by what seeks lose here, and not again while one settles', () => {
    const jump = syncStep(video({ playbackRate: 1.05 }), playing(22), { seekLead: 0.08 });
    expect(jump.seek).toBeCloseTo(22.08, 9);
    expect(jump.rate).toBe(1);
    expect(syncStep(video({}), playing(10 + SEEK_S + 0.01)).seek).not.toBeNull();
    expect(syncStep(video({ busy: true }), playing(10.5)).seek).toBeNull();
    expect(syncStep(video({ seeking: true }), playing(10.5)).seek).toBeNull();
    // Within SEEK_GAP_MS of the last seek: the rate alone, at its most.
    expect(syncStep(video({}), playing(10.5), { canSeek: false })).toMatchObject({ seek: null, rate: 1 + MAX_NUDGE });
  });

  it("seeks a jump of the score's at once, even just after a correction seek or while one settles", () => {
    // The score sought from 10 s to 22 s within a second of a correction seek, that seek landing.
    for (const v of [video({}), video({ busy: true }), video({ seeking: true, playbackRate: 1.2 })])
      expect(syncStep(v, playing(22), { canSeek: false, seekLead: 0.05 })).toMatchObject({ seek: 22.05 });
    expect(syncStep(video({ playbackRate: 1.2 }), playing(22), { canSeek: false }).rate).toBe(1);
    expect(syncStep(video({}), playing(22), { canSeek: false, nudge: false }).seek).toBe(22);
    // Not while the seek made for that jump is under way (seekAim.canJump), nor for a drift under JUMP_S.
    expect(syncStep(video({ seeking: true }), playing(22), { canSeek: false, canJump: false }).seek).toBeNull();
    expect(syncStep(video({ busy: true }), playing(10 + JUMP_S - 0.01), { canSeek: false }).seek).toBeNull();
  });

  it('keeps to seeks where a rate write stalls the video, and never writes the rate again', () => {
    // No nudge for a small drift, and no write for a conductor's tempo either: WebKitGTK stood
    // still up to 1.5 s at the one write of a tempo change after its reload.
    const o = { nudge: false, seekLead: 0.03 };
    expect(syncStep(video({}), playing(10.03), o)).toMatchObject({ seek: null, rate: null });
    expect(syncStep(video({ playbackRate: 1.1 }), playing(10.03), o).rate).toBeNull();
    expect(syncStep(video({}), playing(10, 1.2), o).rate).toBeNull();
    for (const v of [video({ paused: true }), video({ busy: true }), video({ currentTime: 30 })])
      expect(syncStep(v, playing(10, 1.2), o).rate).toBeNull();
    // Sought from NO_RATE_SEEK_S, not SEEK_S.
    expect(syncStep(video({}), playing(10 + NO_RATE_SEEK_S + 0.01), o).seek).toBeCloseTo(10.1, 9);
    // The video at 1x under a tempo of 1.05x falls behind 50 ms a second: a seek lands that far
    // ahead (at most NO_RATE_SEEK_S), so the drift crosses 0 before the next one.
    expect(syncStep(video({}), playing(10 + NO_RATE_SEEK_S + 0.01, 1.05), o)).toMatchObject({
      seek: expect.closeTo(10.07 + 0.03 * 1.05 + 0.05, 9),
      lead: 0.03,
      rate: null,
    });
    expect(syncStep(video({}), playing(10.1, 1.5), o).seek).toBeCloseTo(10.1 + 0.045 + NO_RATE_SEEK_S, 9);
    expect(syncStep(video({ paused: true }), playing(10, 0.9), o).seek).toBeCloseTo(10 + 0.027 - NO_RATE_SEEK_S, 9);
  });

  it('seeks a drift where the rate is not nudged only once it has held HOLD_MS', () => {
    // WebKitGTK's currentTime on a loaded machine: 110 ms off for a frame, then back.
    const hold = driftHold();
    const frames = [0.02, 0.11, 0.02, 0.02].map((d, i) => hold.observe(i * 40, d, true));
    expect(frames).toEqual([0, 0, 0, 0]);
    const over = (/** @type {number} */ ms) =>
      syncStep({ ...video({}), overMs: ms }, playing(10.11), { nudge: false, seekLead: 0.03 }).seek;
    expect(over(0)).toBeNull();
    expect(over(HOLD_MS - 1)).toBeNull();
    expect(over(HOLD_MS)).toBeCloseTo(10.14, 9);
    // A drift that stays: held from its first frame; not counted while the video does not play.
    expect(hold.observe(200, 0.08, true)).toBe(0);
    expect(hold.observe(200 + HOLD_MS, 0.08, true)).toBe(HOLD_MS);
    expect(hold.observe(500, 0.5, false)).toBe(0);
    expect(hold.observe(540, 0.5, true)).toBe(0);
    // A jump is not held back, and nudging browsers seek from SEEK_S as before.
    expect(syncStep({ ...video({}), overMs: 0 }, playing(22), { nudge: false }).seek).toBe(22);
    expect(syncStep({ ...video({}), overMs: 0 }, playing(10.2)).seek).toBe(10.2);
  });

  it('puts a nudged rate back while the video is busy, so it does not run on at the nudge', () => {
    expect(syncStep(video({ busy: true, playbackRate: 1 + MAX_NUDGE }), playing(10.3))).toMatchObject({
      seek: null,
      rate: 1,
    });
    expect(syncStep(video({ seeking: true, playbackRate: 0.9 }), playing(10, 1.1)).rate).toBe(1.1);
    expect(syncStep(video({ busy: true }), playing(10.3)).rate).toBeNull();
    // Where nudges work, a nudge left over is put back while paused, before the play().
    expect(syncStep(video({ paused: true, playbackRate: 1.1 }), playing(10))).toMatchObject({ play: 'play', rate: 1 });
    expect(syncStep(video({ paused: true }), playing(10)).rate).toBeNull();
  });

  it('seeks for a small drift where the browser ignores the rate', () => {
    expect(syncStep(video({}), playing(10.07), { rateWorks: false })).toMatchObject({ seek: 10.07, rate: null });
    expect(syncStep(video({}), playing(10.03), { rateWorks: false })).toMatchObject({ seek: null, rate: null });
  });

  it('pauses with the performance and waits where the score waits; plays when it plays', () => {
    expect(syncStep(video({}), { time: 12, playing: false, rate: 1 })).toMatchObject({ play: 'pause', seek: 12 });
    expect(syncStep(video({ paused: true, currentTime: 12 }), { time: 12, playing: false, rate: 1 })).toMatchObject({
      play: null,
      seek: null,
    });
    expect(syncStep(video({ paused: true, currentTime: 12 }), playing(12))).toMatchObject({ play: 'play', seek: null });
    // Where a start is known to come late, it starts that far on.
    expect(syncStep(video({ paused: true, currentTime: 12 }), playing(12), { seekLead: 0.05 })).toMatchObject({
      play: 'play',
      seek: 12.05,
    });
  });

  it('holds the last frame past the video end, and never seeks before its start', () => {
    expect(syncStep(video({ currentTime: 60 }), playing(75))).toMatchObject({ play: 'pause', seek: null });
    expect(syncStep(video({ currentTime: 3, paused: true }), { time: -2, playing: false, rate: 1 }).seek).toBe(0);
  });
});

describe('the aim of a seek', () => {
  it("aims the first seek ahead by a prior under a browser seek's cost", () => {
    expect(seekAim().lead).toBe(FIRST_SEEK_LEAD_S);
    expect(FIRST_SEEK_LEAD_S).toBeGreaterThan(0);
    expect(FIRST_SEEK_LEAD_S).toBeLessThan(0.04);
  });

  /**
   * A seek made at `at` aimed `ahead` (all of it for its cost), landing 40 ms later, the video
   * standing still `costMs` from the seek and then playing on; frames every 40 ms until `until`.
   * @param {import('../../../client/src/time/video-sync.js').SeekAim} aim
   * @param {{ at: number, ahead?: number, costMs: number, until: number, start?: boolean, playing?: boolean }} o
   */
  function seekOnce(aim, { at, costMs, until, start = false, playing = true, ...o }) {
    const ahead = o.ahead ?? aim.lead;
    aim.started(at, { to: 10 + ahead, ahead, lead: ahead, rate: 1, start });
    aim.landed(at + 40);
    for (let t = at + 40; t <= until; t += 40) aim.observe(t, ahead - Math.min(t - at, costMs) / 1000, playing);
  }

  it('measures a landing once the video plays on steadily, and aims by the median of the last costs', () => {
    const aim = seekAim(0.03);
    expect(aim.canSeek(0)).toBe(true);
    // A WebKitGTK seek that stands the video still 0.5 s: read SETTLE_MS after `seeked` it looks
    // 0.3 s late and is not measured yet; it is once the drift stays put.
    seekOnce(aim, { at: 0, costMs: 500, until: 40 + SETTLE_MS });
    expect(aim.canSeek(SEEK_GAP_MS - 1)).toBe(false);
    expect(aim.canSeek(SEEK_GAP_MS)).toBe(true);
    expect(aim.settling(40 + SETTLE_MS)).toBe(true);
    expect(aim.lead).toBe(0.03);
    seekOnce(aim, { at: 0, costMs: 500, until: 500 + STEADY_MS });
    expect(aim.settling(500 + STEADY_MS)).toBe(true);
    seekOnce(aim, { at: 0, costMs: 500, until: 540 + STEADY_MS });
    expect(aim.settling(540 + STEADY_MS)).toBe(false);
    // The median of the last COSTS_KEPT costs, those not yet measured taken as the prior: one
    // alone does not move it (it may be a stall); two that agree do, to the cost itself, not a
    // step toward it.
    expect(aim.lead).toBe(0.03);
    seekOnce(aim, { at: 2000, ahead: 0.03, costMs: 500, until: 3500 });
    expect(aim.lead).toBeCloseTo(0.5, 9);
    // One quick seek among slow ones does not move it, nor one slow among quick ones.
    seekOnce(aim, { at: 4000, costMs: 100, until: 5500 });
    expect(aim.lead).toBeCloseTo(0.5, 9);
    seekOnce(aim, { at: 6000, costMs: 120, until: 7500 });
    expect(aim.lead).toBeCloseTo(0.12, 9);
    seekOnce(aim, { at: 8000, costMs: 110, until: 9500 });
    expect(aim.lead).toBeCloseTo(0.11, 9);
    seekOnce(aim, { at: 10_000, costMs: 400, until: 11_500 });
    expect(aim.lead).toBeCloseTo(0.12, 9);
    expect(COSTS_KEPT).toBe(3);
    // Never past its bound.
    for (let i = 0; i < 3; i++) seekOnce(aim, { at: 12_000 + i * 3000, costMs: 1500, until: 12_000 + i * 3000 + 1900 });
    expect(aim.lead).toBe(MAX_SEEK_LEAD_S);
  });

  it('does not measure a drift that moves, one seen while paused, nor a seek with no aim told', () => {
    const aim = seekAim(0.03);
    // A one-sample jump of WebKitGTK's currentTime in the window starts it again.
    aim.started(0, { to: 10.1, ahead: 0.1, lead: 0.03, rate: 1 });
    aim.landed(40);
    for (let t = 40; t <= 40 + SETTLE_MS + STEADY_MS; t += 40) aim.observe(t, t === 400 ? 0.1 : 0.05, true);
    expect(aim.settling(40 + SETTLE_MS + STEADY_MS)).toBe(true);
    for (let t = 440; t <= 400 + STEADY_MS + 40; t += 40) aim.observe(t, 0.05, true);
    expect(aim.settling(400 + STEADY_MS + 40)).toBe(false);
    seekOnce(aim, { at: 500, ahead: 0.1, costMs: 50, until: 1400 });
    // Measured twice at 50 ms (aimed 0.1 s ahead, landed 0.05 s ahead).
    expect(aim.lead).toBeCloseTo(0.05, 9);
    seekOnce(aim, { at: 1500, costMs: 300, until: 2500, playing: false });
    expect(aim.lead).toBeCloseTo(0.05, 9);
    aim.started(3000);
    aim.landed(3040);
    for (let t = 3040; t < 4000; t += 40) aim.observe(t, -1, true);
    expect(aim.lead).toBeCloseTo(0.05, 9);
    // A seek that never plays on steadily stops holding corrections back after SETTLE_LIMIT_MS.
    aim.started(5000, { to: 20, ahead: 0.05, lead: 0.05, rate: 1 });
    expect(aim.settling(5000 + SETTLE_LIMIT_MS)).toBe(true);
    aim.observe(5000 + SETTLE_LIMIT_MS + 1, -1, true);
    expect(aim.settling(5000 + SETTLE_LIMIT_MS + 1)).toBe(false);
  });

  it('learns the aim of a start from a pause apart from that of a seek while playing', () => {
    // WebKitGTK: a seek while playing lands 20-45 ms late, a start (a seek and a play()) about 80 ms.
    const aim = seekAim(0.03);
    seekOnce(aim, { at: 0, costMs: 80, until: 1500, start: true });
    seekOnce(aim, { at: 1500, ahead: 0.03, costMs: 80, until: 3000, start: true });
    // The seek's aim has the start's as its prior until it has measurements of its own.
    expect(aim.startLead).toBeCloseTo(0.08, 9);
    expect(aim.lead).toBeCloseTo(0.08, 9);
    seekOnce(aim, { at: 3000, costMs: 40, until: 4500 });
    seekOnce(aim, { at: 4500, ahead: 0.08, costMs: 40, until: 6000 });
    expect(aim.lead).toBeCloseTo(0.04, 9);
    expect(aim.startLead).toBeCloseTo(0.08, 9);
    // Each is what syncStep aims by: a start, a seek while playing, a paused video stood still too long.
    const o = { seekLead: aim.lead, startLead: aim.startLead, nudge: false };
    expect(syncStep(video({ paused: true, currentTime: 12 }), playing(12), o)).toMatchObject({
      seek: expect.closeTo(12.08, 9),
      lead: expect.closeTo(0.08, 9),
    });
    expect(syncStep(video({}), playing(12), o).seek).toBeCloseTo(12.04, 9);
    expect(syncStep({ ...video({}), busy: true, stuckMs: STUCK_MS }, playing(11), o)).toMatchObject({
      play: 'restart',
      seek: expect.closeTo(11.08, 9),
    });
    // The stuck rule waits while a seek of ours lands and plays on (seekAim.settling).
    expect(syncStep({ ...video({}), busy: true, stuckMs: STUCK_MS, settling: true }, playing(11), o).seek).toBeNull();
  });

  it('forgets what starts cost once the video is loaded again (a new pipeline), not what seeks cost', () => {
    // WebKitGTK: the first start of each pipeline stood the video still about a third of a
    // second; the seeks and starts after the load cost 0-70 ms.
    const aim = seekAim(0.03);
    seekOnce(aim, { at: 0, costMs: 390, until: 1500, start: true });
    aim.started(1600, { reload: true });
    seekOnce(aim, { at: 2000, ahead: 0.03, costMs: 340, until: 3500, start: true });
    // One slow start of this pipeline alone does not move either aim.
    expect(aim.startLead).toBeCloseTo(0.03, 9);
    expect(aim.lead).toBeCloseTo(0.03, 9);
    seekOnce(aim, { at: 4000, costMs: 60, until: 5500 });
    seekOnce(aim, { at: 6000, costMs: 70, until: 7500 });
    expect(aim.lead).toBeCloseTo(0.06, 9);
    // Loaded again, the seeks' costs stay: the next start is aimed by them.
    aim.started(8000, { reload: true });
    expect(aim.lead).toBeCloseTo(0.06, 9);
    expect(aim.startLead).toBeCloseTo(0.06, 9);
  });

  it('holds correction seeks back after STORM_SEEKS in a row missed, and again after one more miss', () => {
    const aim = seekAim(0.03);
    // Aimed at 0.2 s while it learns, they cost 0.6 s: misses, but not yet counted.
    for (const at of [0, 1500, 3000]) seekOnce(aim, { at, ahead: 0.2, costMs: 600, until: at + 1200 });
    expect(aim.holding(4200)).toBe(false);
    expect(aim.lead).toBeCloseTo(0.6, 9);
    // Landing 80 ms off is not a miss (under MISS_S).
    for (const at of [4000, 4500, 5000]) seekOnce(aim, { at, ahead: 0.6, costMs: 680, until: at + 1300 });
    expect(aim.holding(6300)).toBe(false);
    expect(MISS_S).toBe(0.1);
    // Aimed by what they cost, they now cost 0.75 s: each lands 150 ms late.
    const miss = (/** @type {number} */ at) => seekOnce(aim, { at, ahead: 0.6, costMs: 750, until: at + 1400 });
    miss(5000);
    miss(7000);
    expect(aim.holding(8400)).toBe(false);
    miss(9000);
    // From the third's measurement (its cost, then STEADY_MS of the video playing on).
    expect(aim.holding(10_400)).toBe(true);
    expect(aim.holding(9000 + 750 + STEADY_MS + STORM_MS - 1)).toBe(true);
    expect(aim.holding(10_400 + STORM_MS)).toBe(false);
    expect(aim.lead).toBeCloseTo(0.75, 9);
    miss(16_000);
    expect(aim.holding(16_000 + 750 + STEADY_MS + STORM_MS - 1)).toBe(true);
    // A hit ends it: the next miss alone does not hold.
    seekOnce(aim, { at: 23_000, ahead: 0.75, costMs: 760, until: 24_400 });
    seekOnce(aim, { at: 25_000, ahead: 0.75, costMs: 1100, until: 26_400 });
    expect(aim.holding(26_400)).toBe(false);
    expect(STORM_SEEKS).toBe(3);
    // A seek that never plays on steadily is a miss whatever its aim.
    const fresh = seekAim(0.03);
    for (const at of [0, 3000, 6000]) {
      fresh.started(at, { to: 10, ahead: 0.03, lead: 0.03, rate: 1 });
      fresh.landed(at + 40);
      for (let t = at + 40; t <= at + SETTLE_LIMIT_MS + 40; t += 40) fresh.observe(t, -(t - at) / 1000, true);
    }
    expect(fresh.holding(6000 + SETTLE_LIMIT_MS + 40)).toBe(true);
    // Loaded again (a new pipeline): those misses no longer hold corrections back.
    fresh.started(6000 + SETTLE_LIMIT_MS + 80, { reload: true });
    expect(fresh.holding(6000 + SETTLE_LIMIT_MS + 80)).toBe(false);
    // What holding keeps from syncStep: a correction seek; not a jump, a start or the stuck rule.
    const o = { holding: true, nudge: false };
    expect(syncStep(video({}), playing(10.5), o).seek).toBeNull();
    expect(syncStep(video({}), playing(30), o).seek).toBe(30);
    expect(syncStep(video({ paused: true }), playing(12), o).seek).toBe(12);
    expect(syncStep({ ...video({}), busy: true, stuckMs: STUCK_MS }, playing(11), o).seek).toBe(11);
  });

  it('lets a jump be sought within the gap unless the last seek was made for it', () => {
    const aim = seekAim(0);
    expect(aim.canJump(0, 30)).toBe(true);
    // A correction seek to 10.05 s; 300 ms later the score jumps to 22 s.
    aim.started(1000, { to: 10.05 });
    expect(aim.canSeek(1300)).toBe(false);
    expect(aim.canJump(1300, 22)).toBe(true);
    // The jump's own seek, still under way: not again while the score is where it aimed.
    aim.started(1300, { to: 22.05 });
    expect(aim.canJump(1500, 22.2)).toBe(false);
    expect(aim.canJump(1500, 22.2 + JUMP_S + 0.1)).toBe(true);
    // Past the gap, still settling (WebKitGTK stood a video still a second after a seek): the
    // drift it gathers meanwhile is not a jump; once it is given up on, a jump may come again.
    expect(aim.canJump(1300 + SEEK_GAP_MS + 100, 22 + 1.1)).toBe(false);
    expect(aim.canJump(1300 + SEEK_GAP_MS + 100, 22 + 1.1 + JUMP_S + 0.1)).toBe(true);
    expect(aim.canJump(1300 + SETTLE_LIMIT_MS + 1, 22)).toBe(true);
    // A seek whose aim was not told (a load again): a jump may come.
    aim.started(3000);
    expect(aim.canJump(3100, 40)).toBe(true);
  });
});

describe('a video that stays busy or fails', () => {
  /**
   * A media element that took a seek and never lands it (Chromium after its media cache answered
   * a range with no data): seeking, HAVE_METADATA, its time where the seek put it.
   */
  const stuckElement = () => ({ currentTime: 47.8, paused: false, seeking: true, readyState: 1, playbackRate: 1 });

  /**
   * The sync's frames over `ms` of a playing score at 1x from 48 s, as video-part.js runs them.
   * @param {ReturnType<typeof stuckElement>} el
   * @param {number} ms
   * @param {(at: number) => boolean} canSeek
   */
  function frames(el, ms, canSeek = () => true) {
    const watch = stallWatch();
    /** @type {{ at: number, seek: number }[]} */
    const seeks = [];
    for (let at = 0; at <= ms; at += 50) {
      const { waiting, stuckMs } = watch.observe(at, el, true);
      // The seek under way was made for this place (seekAim.canJump): only the stuck rule seeks again.
      const act = syncStep({ ...el, duration: 130, busy: waiting, stuckMs }, playing(48 + at / 1000), {
        canSeek: canSeek(at),
        canJump: false,
      });
      if (act.seek !== null) seeks.push({ at, seek: act.seek });
    }
    return seeks;
  }

  it('seeks a video busy for STUCK_MS while the score plays again to the score, at most once a gap', () => {
    // Before STUCK_MS: left to land its seek.
    expect(frames(stuckElement(), STUCK_MS - 50)).toEqual([]);
    const seeks = frames(stuckElement(), STUCK_MS);
    expect(seeks).toEqual([{ at: STUCK_MS, seek: expect.closeTo(48 + STUCK_MS / 1000, 9) }]);
    // Within SEEK_GAP_MS of the last seek: not yet.
    expect(frames(stuckElement(), STUCK_MS, (at) => at < STUCK_MS / 2)).toEqual([]);
    // Below HAVE_FUTURE_DATA without a seek under way counts too.
    expect(frames({ ...stuckElement(), seeking: false }, STUCK_MS)).toHaveLength(1);
  });

  it('pauses and plays again a video that stood still without seeking, besides seeking it', () => {
    // WebKitGTK after a rate write: not paused, HAVE_CURRENT_DATA, its time still.
    const still = { ...video({ currentTime: 47 }), busy: true, stuckMs: STUCK_MS };
    expect(syncStep(still, playing(48))).toMatchObject({ play: 'restart', seek: 48 });
    // A seek under way that never lands is sought again, not restarted; nor before the gap.
    expect(syncStep({ ...still, seeking: true }, playing(48))).toMatchObject({ play: null, seek: 48 });
    expect(syncStep(still, playing(48), { canSeek: false })).toMatchObject({ play: null, seek: null });
    // Stuck again within REVIVE_MS of that: loaded again instead (a new pipeline), once a gap.
    const again = { ...still, revived: true };
    expect(syncStep(again, playing(48))).toMatchObject({ reload: true, play: null, seek: null });
    expect(syncStep({ ...again, seeking: true }, playing(48))).toMatchObject({ reload: true, seek: null });
    expect(syncStep(again, playing(48), { canSeek: false })).toMatchObject({ reload: false, seek: null });
    expect(syncStep({ ...video({}), revived: true }, playing(10)).reload).toBe(false);
    // Stood still long enough to have gathered a jump's drift: still the stuck rule, not a seek alone.
    expect(syncStep(still, playing(49.5))).toMatchObject({ play: 'restart', seek: 49.5 });
    expect(syncStep(again, playing(49.5))).toMatchObject({ reload: true, seek: null });
    // While a seek of ours lands it waits (a jump of the score's is still sought at once).
    expect(syncStep({ ...still, settling: true }, playing(48))).toMatchObject({ play: null, seek: null });
    expect(syncStep({ ...again, settling: true }, playing(49.5))).toMatchObject({ reload: false, seek: 49.5 });
  });

  it('counts the time stuck only while the score plays and the element has no data', () => {
    const watch = stallWatch();
    const el = stuckElement();
    const stuck = (/** @type {number} */ at, /** @type {any} */ e, /** @type {boolean} */ p) =>
      watch.observe(at, e, p).stuckMs;
    expect(stuck(0, el, true)).toBe(0);
    expect(stuck(600, el, true)).toBe(600);
    expect(stuck(700, el, false)).toBe(0);
    expect(stuck(800, el, true)).toBe(0);
    expect(stuck(1500, el, true)).toBe(700);
    expect(stuck(1600, { seeking: false, readyState: 4, currentTime: 47.8 }, true)).toBe(0);
    // At HAVE_CURRENT_DATA, not seeking: waiting once its time stood still STILL_MS, counted
    // from when it stopped.
    const still = { seeking: false, readyState: 2, currentTime: 50 };
    expect(watch.observe(2000, still, true)).toEqual({ waiting: false, stuckMs: 0 });
    expect(watch.observe(2000 + STILL_MS - 1, still, true)).toEqual({ waiting: false, stuckMs: 0 });
    expect(watch.observe(2000 + STILL_MS, still, true)).toEqual({ waiting: true, stuckMs: STILL_MS });
  });

  it('does not take a video that plays on at HAVE_CURRENT_DATA for waiting (WebKitGTK)', () => {
    // readyState 2 in 98% of the samples of a video that played on: its time moves every frame.
    const watch = stallWatch();
    for (let at = 0; at <= 3000; at += 50) {
      const el = { seeking: false, readyState: 2, currentTime: 10 + at / 1000 };
      expect(watch.observe(at, el, true)).toEqual({ waiting: false, stuckMs: 0 });
    }
  });

  it('loads a failed video again rather than seeking it, at most once a gap', () => {
    const failed = { ...video({ seeking: true, currentTime: 47.8 }), failed: true, stuckMs: 5000 };
    expect(syncStep(failed, playing(60))).toMatchObject({ reload: true, seek: null, play: null });
    expect(syncStep(failed, playing(60), { canSeek: false })).toMatchObject({ reload: false, seek: null });
    expect(syncStep(video({}), playing(10)).reload).toBe(false);
  });
});

describe('a browser where a rate write stalls the video', () => {
  const playingEl = () => ({ paused: false, muted: true });

  it('keeps to seeks once a rate write paused or unmuted the element, at once or in the next frames', () => {
    // WebKitGTK 2.50: the write pauses the element and unmutes it at once.
    const webkit = rateCost();
    expect(webkit.observe(playingEl())).toBe(false);
    webkit.wrote(playingEl(), { paused: true, muted: false });
    expect(webkit.costly).toBe(true);
    expect(webkit.observe(playingEl())).toBe(true);
    // A few frames later.
    const late = rateCost();
    late.wrote(playingEl(), playingEl());
    expect(late.observe(playingEl())).toBe(false);
    expect(late.observe({ paused: false, muted: false })).toBe(true);
  });

  it('knows the stall before any write where the media engine is GStreamer', () => {
    /** @param {boolean} tracks @param {string[]} owns  the types canPlayType answers 'maybe' to */
    const el = (tracks, owns) => ({
      ...(tracks ? { videoTracks: [] } : {}),
      canPlayType: (/** @type {string} */ t) => (owns.some((o) => t.startsWith(o)) ? 'maybe' : ''),
    });
    const webm = 'video/webm';
    // WebKitGTK 2.50 (what its MiniBrowser answered): track lists, FLV and AVI.
    expect(rateStallsHere(el(true, [webm, 'video/x-flv', 'video/x-msvideo']))).toBe(true);
    // Apple's WebKit (track lists, AVFoundation's types), Chromium and Firefox (no track lists by default).
    expect(rateStallsHere(el(true, [webm, 'video/mp4']))).toBe(false);
    expect(rateStallsHere(el(false, [webm, 'video/mp4']))).toBe(false);
    expect(rateStallsHere(el(false, [webm, 'video/x-flv']))).toBe(false);
    const known = rateCost(true);
    expect(known.costly).toBe(true);
    expect(known.observe(playingEl())).toBe(true);
  });

  it('keeps nudging where a rate write leaves the element as it was', () => {
    const chromium = rateCost();
    for (let i = 0; i < 5; i++) {
      chromium.wrote(playingEl(), playingEl());
      for (let f = 0; f < RATE_PROBE_FRAMES + 2; f++) expect(chromium.observe(playingEl())).toBe(false);
    }
    // Paused by the sync itself (the score paused), or long after the write: not the rate's doing.
    chromium.wrote(playingEl(), playingEl());
    chromium.paused();
    expect(chromium.observe({ paused: true, muted: true })).toBe(false);
    chromium.wrote(playingEl(), playingEl());
    for (let f = 0; f < RATE_PROBE_FRAMES; f++) chromium.observe(playingEl());
    expect(chromium.observe({ paused: true, muted: false })).toBe(false);
  });
});
