import { describe, it, expect, vi } from 'vitest';
import { RESUME_WAIT_MS, createSoundResume } from '../../../client/src/sound/sound-resume.js';
import { FakeClock, flush } from '../fakes.js';

/**
 * An AudioContext that resumes by itself only when `allowed` says so (iOS after a lock may not),
 * or from a gesture.
 * @param {string} state
 */
function fakeContext(state) {
  const target = new EventTarget();
  const ctx = {
    state,
    allowed: true,
    gesture: false,
    resumes: 0,
    async resume() {
      ctx.resumes += 1;
      if (!ctx.allowed && !ctx.gesture) throw new Error('NotAllowedError');
      ctx.set('running');
    },
    /** @param {string} next */
    set(next) {
      ctx.state = next;
      target.dispatchEvent(new Event('statechange'));
    },
    /** @param {string} type @param {() => void} fn */
    addEventListener: (type, fn) => target.addEventListener(type, fn),
  };
  return ctx;
}

function setup(/** @type {ReturnType<typeof fakeContext> | null} */ ctx) {
  const clock = new FakeClock();
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  const win = new EventTarget();
  const shown = vi.fn();
  const onRunning = vi.fn();
  const resume = createSoundResume({
    getContext: () => ctx,
    document: doc,
    window: win,
    timers: clock,
    onTapNeeded: shown,
    onRunning,
  });
  return { clock, doc, win, shown, onRunning, resume };
}

describe('createSoundResume', () => {
  it('resumes a suspended context at once on return, with no button, and schedules what is due', async () => {
    const ctx = fakeContext('suspended');
    const h = setup(ctx);
    h.doc.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(ctx.state).toBe('running');
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.shown).not.toHaveBeenCalled();
    expect(h.resume.needed).toBe(false);
    expect(h.onRunning).toHaveBeenCalled();
  });

  it('an "interrupted" context (iOS) that will not resume by itself: the button, until a tap resumes it', async () => {
    const ctx = fakeContext('interrupted');
    ctx.allowed = false;
    const h = setup(ctx);
    h.win.dispatchEvent(new Event('pageshow'));
    await flush();
    expect(h.resume.needed).toBe(false);
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.shown).toHaveBeenLastCalledWith(true);
    expect(h.resume.needed).toBe(true);
    // The tap (a gesture) resumes it; the button goes.
    ctx.gesture = true;
    h.resume.tap();
    await flush();
    expect(ctx.state).toBe('running');
    expect(h.shown).toHaveBeenLastCalledWith(false);
    expect(h.onRunning).toHaveBeenCalledTimes(1);
  });

  it('any tap on the page resumes while sound is stopped', async () => {
    const ctx = fakeContext('suspended');
    ctx.allowed = false;
    const h = setup(ctx);
    h.doc.dispatchEvent(new Event('resume'));
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.resume.needed).toBe(true);
    ctx.gesture = true;
    h.doc.dispatchEvent(new Event('click'));
    await flush();
    expect(ctx.state).toBe('running');
    expect(h.resume.needed).toBe(false);
  });

  it('a resume that hangs (no answer) also shows the button', () => {
    const ctx = fakeContext('interrupted');
    ctx.resume = () => new Promise(() => {});
    const h = setup(ctx);
    h.resume.check();
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.resume.needed).toBe(true);
  });

  it('the button goes when the browser resumes the context by itself', async () => {
    const ctx = fakeContext('interrupted');
    ctx.allowed = false;
    const h = setup(ctx);
    h.resume.check();
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.resume.needed).toBe(true);
    ctx.set('running');
    expect(h.resume.needed).toBe(false);
  });

  it('interrupted while in front (a call): asks again, then for a tap', async () => {
    const ctx = fakeContext('running');
    ctx.allowed = false;
    const h = setup(ctx);
    h.resume.check();
    ctx.set('interrupted');
    h.clock.advance(RESUME_WAIT_MS);
    expect(ctx.resumes).toBe(1);
    expect(h.resume.needed).toBe(true);
  });

  it('no button before the join tap made a context, nor while the page is hidden', async () => {
    const h = setup(null);
    h.resume.check();
    h.clock.advance(RESUME_WAIT_MS);
    expect(h.resume.needed).toBe(false);
    const ctx = fakeContext('suspended');
    ctx.allowed = false;
    const g = setup(ctx);
    g.resume.check();
    g.doc.visibilityState = 'hidden';
    g.clock.advance(RESUME_WAIT_MS);
    expect(g.resume.needed).toBe(false);
  });
});
