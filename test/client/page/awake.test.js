import { describe, it, expect, vi } from 'vitest';
import { LOOP_AT_S, awakeMethod, createAwake } from '../../../client/src/page/awake.js';
import { flush } from '../fakes.js';

/** A WakeLockSentinel the browser (the test) can release, as it does when the page is hidden. */
function fakeSentinel() {
  const listeners = new Set();
  const s = {
    released: false,
    async release() {
      s.released = true;
    },
    /** @param {string} _type @param {() => void} fn */
    addEventListener(_type, fn) {
      listeners.add(fn);
    },
    /** The browser releases it. */
    browserRelease() {
      s.released = true;
      for (const fn of listeners) fn();
    },
  };
  return s;
}

/** A <video> whose play() succeeds, or is refused while `refuse` says so. */
function fakeVideo(/** @type {{ refuseUnmuted?: boolean }} */ o = {}) {
  /** @type {Map<string, Set<() => void>>} */
  const listeners = new Map();
  const v = {
    paused: true,
    muted: false,
    currentTime: 0,
    plays: 0,
    play() {
      v.plays += 1;
      if (o.refuseUnmuted && !v.muted) return Promise.reject(new Error('NotAllowedError'));
      v.paused = false;
      return Promise.resolve();
    },
    pause() {
      v.paused = true;
    },
    /** @param {string} type @param {() => void} fn */
    addEventListener(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)?.add(fn);
    },
    /** @param {string} type */
    fire(type) {
      for (const fn of listeners.get(type) ?? []) fn();
    },
  };
  return v;
}

/**
 * @param {{ secure?: boolean, lock?: 'grant' | 'refuse' | 'none', standalone?: boolean, refuseUnmuted?: boolean }} [o]
 */
function setup(o = {}) {
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  const win = new EventTarget();
  /** @type {ReturnType<typeof fakeSentinel>[]} */
  const sentinels = [];
  const request = vi.fn(async () => {
    // The browser answers later: the page may be hidden by then.
    await Promise.resolve();
    if (o.lock === 'refuse' || doc.visibilityState !== 'visible') throw new Error('NotAllowedError');
    const s = fakeSentinel();
    sentinels.push(s);
    return s;
  });
  /** @type {ReturnType<typeof fakeVideo>[]} */
  const videos = [];
  const awake = createAwake({
    secure: o.secure ?? true,
    wakeLock: o.lock === 'none' ? undefined : { request },
    standalone: o.standalone,
    createVideo: () => {
      const v = fakeVideo({ refuseUnmuted: o.refuseUnmuted });
      videos.push(v);
      return v;
    },
    document: doc,
    window: win,
    log: () => {},
  });
  return {
    awake,
    doc,
    win,
    request,
    sentinels,
    videos,
    /** @param {'visible' | 'hidden'} state */
    async visibility(state) {
      doc.visibilityState = state;
      doc.dispatchEvent(new Event('visibilitychange'));
      await flush();
    },
    /** @param {string} type */
    async fire(type, target = /** @type {EventTarget} */ (win)) {
      target.dispatchEvent(new Event(type));
      await flush();
    },
  };
}

describe('awakeMethod', () => {
  const request = async () => /** @type {any} */ ({});
  it('the Screen Wake Lock in a secure context that has it', () => {
    expect(awakeMethod({ secure: true, wakeLock: { request }, createVideo: () => /** @type {any} */ ({}) })).toBe(
      'wake-lock',
    );
  });
  it('the video over plain HTTP (no secure context, no Wake Lock)', () => {
    expect(awakeMethod({ secure: false, createVideo: () => /** @type {any} */ ({}) })).toBe('video');
    expect(awakeMethod({ secure: false, wakeLock: { request }, createVideo: () => /** @type {any} */ ({}) })).toBe(
      'video',
    );
  });
  it('the video in an iOS Home Screen web app, where the lock is granted but the screen sleeps', () => {
    expect(
      awakeMethod({
        secure: true,
        wakeLock: { request },
        standalone: true,
        createVideo: () => /** @type {any} */ ({}),
      }),
    ).toBe('video');
  });
  it('none without either', () => {
    expect(awakeMethod({ secure: false })).toBe('none');
  });
});

describe('createAwake', () => {
  it('holds nothing before the join tap, then the wake lock', async () => {
    const h = setup();
    h.awake.update({ playback: 'playing' });
    await flush();
    expect(h.awake.status).toEqual({ method: 'wake-lock', held: false });
    expect(h.request).not.toHaveBeenCalled();
    h.awake.start();
    await flush();
    expect(h.awake.status).toEqual({ method: 'wake-lock', held: true });
    expect(h.request).toHaveBeenCalledTimes(1);
  });

  it('status is a fresh plain object each time (a test cannot change the page through it)', () => {
    const h = setup();
    const a = h.awake.status;
    a.held = true;
    expect(h.awake.status).not.toBe(a);
    expect(h.awake.status.held).toBe(false);
  });

  it('asks for the lock again on every return: shown, back/forward cache, unfrozen', async () => {
    const h = setup();
    h.awake.start();
    await flush();
    // A page restored from the back/forward cache or unfrozen in front: no visibilitychange to go by.
    const silently = (/** @type {string} */ type, /** @type {EventTarget} */ target) => () => {
      h.doc.visibilityState = 'visible';
      return h.fire(type, target);
    };
    for (const back of [() => h.visibility('visible'), silently('pageshow', h.win), silently('resume', h.doc)]) {
      await h.visibility('hidden');
      h.sentinels.at(-1)?.browserRelease();
      expect(h.awake.status.held).toBe(false);
      await back();
      expect(h.awake.status).toEqual({ method: 'wake-lock', held: true });
    }
    expect(h.request).toHaveBeenCalledTimes(4);
  });

  it('does not ask twice while a lock is held or asked for', async () => {
    const h = setup();
    h.awake.start();
    h.awake.start();
    await h.fire('pageshow');
    await h.visibility('visible');
    expect(h.request).toHaveBeenCalledTimes(1);
  });

  it('a refused lock falls back to the video', async () => {
    const h = setup({ lock: 'refuse' });
    h.awake.start();
    await flush();
    expect(h.awake.status).toEqual({ method: 'video', held: true });
    expect(h.videos).toHaveLength(1);
    expect(h.videos[0].muted).toBe(false);
  });

  it('a lock refused because the page was hidden meanwhile is asked for again on return, not replaced', async () => {
    const h = setup();
    h.awake.start();
    h.doc.visibilityState = 'hidden';
    await flush();
    expect(h.awake.status).toEqual({ method: 'wake-lock', held: false });
    await h.visibility('visible');
    expect(h.awake.status).toEqual({ method: 'wake-lock', held: true });
    expect(h.videos).toHaveLength(0);
  });

  it('over plain HTTP: the video plays from the join tap, loops by seeking, pauses hidden, plays again on return', async () => {
    const h = setup({ secure: false });
    h.awake.start();
    await flush();
    expect(h.awake.status).toEqual({ method: 'video', held: true });
    const v = h.videos[0];
    v.currentTime = LOOP_AT_S + 0.1;
    v.fire('timeupdate');
    expect(v.currentTime).toBe(0);
    await h.visibility('hidden');
    expect(h.awake.status.held).toBe(false);
    await h.visibility('visible');
    expect(h.awake.status).toEqual({ method: 'video', held: true });
    expect(h.videos).toHaveLength(1);
  });

  it('a video refused with sound (no gesture) plays muted, and with sound again at the next tap', async () => {
    const h = setup({ secure: false, refuseUnmuted: true });
    h.awake.start();
    await flush();
    const v = h.videos[0];
    expect(v.muted).toBe(true);
    expect(h.awake.status).toEqual({ method: 'video', held: true });
    v.pause();
    h.awake.start();
    expect(v.muted).toBe(false);
  });

  it('releases when the piece ends, and holds again when it plays again', async () => {
    const h = setup();
    h.awake.start();
    h.awake.update({ playback: 'playing' });
    await flush();
    expect(h.awake.status.held).toBe(true);
    h.awake.update({ playback: 'stopped' });
    await flush();
    expect(h.awake.status.held).toBe(false);
    expect(h.sentinels[0].released).toBe(true);
    // No lock asked for on a return while the piece is over.
    await h.fire('pageshow');
    expect(h.request).toHaveBeenCalledTimes(1);
    h.awake.update({ playback: 'playing' });
    await flush();
    expect(h.awake.status.held).toBe(true);
  });

  it('a page that joins before the piece starts holds the screen while it waits', async () => {
    const h = setup({ secure: false });
    h.awake.update({ playback: 'stopped' });
    h.awake.start();
    await flush();
    expect(h.awake.status).toEqual({ method: 'video', held: true });
  });

  it('stop() releases and stops listening', async () => {
    const h = setup();
    h.awake.start();
    await flush();
    h.awake.stop();
    expect(h.awake.status.held).toBe(false);
    await h.fire('pageshow');
    expect(h.request).toHaveBeenCalledTimes(1);
  });
});
