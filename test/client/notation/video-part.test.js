// A video part (video-part.js) in a browser whose rate writes stall the element, as WebKitGTK's
// do: the element stands in for the media element, its time moved by the test's frames.

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { createVideoPart } from '../../../client/src/notation/video-part.js';

/**
 * A media element that pauses and unmutes itself at a rate write while playing (WebKitGTK 2.50),
 * loads at once, and lands a seek at once.
 * @param {HTMLVideoElement} el
 */
function stallingElement(el) {
  const s = { time: 0, paused: true, rate: 1, muted: false, readyState: 0, writes: 0, loads: 0 };
  /** @param {string} name @param {PropertyDescriptor} d */
  const def = (name, d) => Object.defineProperty(el, name, { configurable: true, ...d });
  def('currentTime', {
    get: () => s.time,
    set: (v) => {
      s.time = v;
      const landed = el.ownerDocument.createEvent('Event');
      landed.initEvent('seeked');
      el.dispatchEvent(landed);
    },
  });
  def('paused', { get: () => s.paused });
  def('seeking', { get: () => false });
  def('readyState', { get: () => s.readyState });
  def('error', { get: () => null });
  def('duration', { get: () => 100 });
  def('muted', { get: () => s.muted, set: (v) => void (s.muted = v) });
  def('playbackRate', {
    get: () => s.rate,
    set: (v) => {
      s.writes++;
      s.rate = v;
      if (!s.paused) {
        s.paused = true;
        s.muted = false;
      }
    },
  });
  el.play = () => {
    s.paused = false;
    return Promise.resolve();
  };
  el.pause = () => void (s.paused = true);
  // A new pipeline: paused, at its defaultPlaybackRate, with no frame until the next one.
  el.load = () => {
    s.loads++;
    s.paused = true;
    s.rate = 1;
    s.readyState = 0;
  };
  return s;
}

describe('a video part where a rate write stalls the element', () => {
  it('loads the video again once after the first such write, and never writes its rate again', async () => {
    const { window } = new JSDOM('<div></div>');
    const doc = window.document;
    const create = doc.createElement.bind(doc);
    /** @type {ReturnType<typeof stallingElement> | null} */
    let el = null;
    doc.createElement = /** @type {any} */ (
      (/** @type {string} */ tag) => {
        const e = create(tag);
        if (tag === 'video') el = stallingElement(/** @type {HTMLVideoElement} */ (e));
        return e;
      }
    );
    let clock = 0;
    /** The part's next animation frame. @type {{ next: ((t: number) => void) | null }} */
    const frames = { next: null };
    // 120 bpm from beat 0 at 0 ms: the score's time is the clock's.
    const getState = () => {
      const beat = Math.floor(clock / 500);
      return { playback: 'playing', beat, beatT: beat * 500, tempo: 120 };
    };
    const part = createVideoPart(
      /** @type {HTMLElement} */ (doc.body.firstElementChild),
      {
        video: { url: '/v.webm', type: 'video/webm', width: null, height: null, duration: 100, start: 0 },
        tempo: [{ beat: 0, ms: 0, bpm: 120 }],
      },
      {
        getState,
        serverNow: () => clock,
        ready: () => true,
        requestFrame: (fn) => void (frames.next = fn),
        now: () => clock,
      },
    );
    const v = /** @type {ReturnType<typeof stallingElement>} */ (/** @type {unknown} */ (el));
    for (let i = 0; i < 150; i++) {
      clock += 40;
      if (!v.paused) v.time += 0.04 * v.rate;
      // A loaded element has its frame by the next animation frame.
      if (v.readyState === 0) v.readyState = 4;
      frames.next?.(clock);
      // The part's play() settles between frames, as in a browser.
      await new Promise((r) => setImmediate(r));
    }
    const status = part.status();
    expect(v.loads).toBe(1);
    expect(status).toMatchObject({ reloads: 1, nudges: false, paused: false, rate: 1 });
    // The one write that told the stall; then seeks alone, the video kept muted and in step.
    expect(v.writes).toBe(1);
    expect(v.muted).toBe(true);
    expect(Math.abs(status.currentTime - /** @type {number} */ (status.scoreTime))).toBeLessThan(0.1);
    part.destroy();
  });
});
