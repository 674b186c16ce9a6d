import { describe, it, expect } from 'vitest';
import {
  CATCH_S,
  LEARN_STEP_S,
  MAX_NUDGE,
  SEEK_GAP_MS,
  SEEK_S,
  SETTLE_MS,
  seekAim,
  FIRST_SEEK_LEAD_S,
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
    expect(syncStep(video({ busy: true }), playing(22)).seek).toBeNull();
    expect(syncStep(video({ seeking: true }), playing(22)).seek).toBeNull();
    // Within SEEK_GAP_MS of the last seek: the rate alone, at its most.
    expect(syncStep(video({}), playing(22), { canSeek: false })).toMatchObject({ seek: null, rate: 1 + MAX_NUDGE });
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

  it('learns from the drift a seek left once it settled, within its bound', () => {
    const aim = seekAim(0);
    expect(aim.lead).toBe(0);
    expect(aim.canSeek(0)).toBe(true);
    aim.started(0);
    expect(aim.canSeek(SEEK_GAP_MS - 1)).toBe(false);
    expect(aim.canSeek(SEEK_GAP_MS)).toBe(true);
    expect(aim.settling(10)).toBe(true);
    aim.landed(60);
    aim.observe(60 + SETTLE_MS - 1, -0.07, true);
    expect(aim.settling(60 + SETTLE_MS - 1)).toBe(true);
    aim.observe(60 + SETTLE_MS, -0.06, true);
    // Half the error at a time.
    expect(aim.lead).toBeCloseTo(0.03, 9);
    expect(aim.settling(60 + SETTLE_MS)).toBe(false);
    // Landed ahead the next time: aim less far.
    aim.started(1000);
    aim.landed(1050);
    aim.observe(1400, 0.02, true);
    expect(aim.lead).toBeCloseTo(0.02, 9);
    // A seek that met a stall moves it by LEARN_STEP_S at most.
    aim.started(1500);
    aim.landed(1550);
    aim.observe(1900, -2, true);
    expect(aim.lead).toBeCloseTo(0.02 + LEARN_STEP_S, 9);
    // A drift seen while paused teaches nothing; a seek that never lands stops holding corrections back.
    aim.started(2000);
    aim.observe(2500, -1, false);
    expect(aim.lead).toBeCloseTo(0.02 + LEARN_STEP_S, 9);
    expect(aim.settling(2000 + 2001)).toBe(false);
  });
});
