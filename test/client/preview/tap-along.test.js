// The preview's tap-along (tap-along.js) on a fake AudioContext: the recordings offered, taps
// before Play ignored, a tap timed at its event's timeStamp through getOutputTimestamp (output
// latency taken off) or, without it, currentTime less outputLatency; a doubled tap flagged and
// Save held until it is undone; what Save sends; going back in the recording.

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { JSDOM } from 'jsdom';
import { createTapAlong } from '../../../client/src/preview/tap-along.js';

/** A context whose clock and output timestamp the test sets. */
class FakeContext {
  currentTime = 0;
  outputLatency = 0.05;
  /** @type {{ contextTime: number, performanceTime: number }} */
  out = { contextTime: 0, performanceTime: 0 };
  destination = {};
  getOutputTimestamp() {
    return this.out;
  }
  resume() {
    return Promise.resolve();
  }
  /** @param {ArrayBuffer} bytes */
  async decodeAudioData(bytes) {
    return { duration: 60, bytes };
  }
  createBufferSource() {
    return { connect() {}, start() {}, stop() {}, onended: null, buffer: null };
  }
}

/** @type {JSDOM} */
let dom;
/** @type {FakeContext} */
let ctx;
/** @type {string[]} */
const fetched = [];
const saved = /** @type {unknown[]} */ ([]);
/** @type {HTMLElement} */
let root;
beforeAll(() => {
  // The page's clock stands still: a tap's age (now less its timeStamp) is what the test says,
  // not how long a loaded machine took between the press and its handling.
  vi.spyOn(performance, 'now').mockReturnValue(100_000);
  dom = new JSDOM('<main><div id="root"></div></main>');
  const g = /** @type {any} */ (globalThis);
  g.document = dom.window.document;
  g.requestAnimationFrame = () => 0;
  g.AudioContext = function AudioContext() {
    ctx = new FakeContext();
    return ctx;
  };
  g.fetch = async (/** @type {string} */ url) => {
    fetched.push(url);
    return { arrayBuffer: async () => new ArrayBuffer(8) };
  };
  root = /** @type {HTMLElement} */ (dom.window.document.getElementById('root'));
  const api = /** @type {any} */ ({
    saveTempo: async (/** @type {any} */ body) => {
      saved.push(body);
      return { file: 'score.yaml', bars: 6, changes: 2, first: body.times[0] };
    },
  });
  const tap = createTapAlong(root, { api });
  tap.set(
    [1, 2, 3, 4, 5, 6].map((bar) => ({ bar, beats: bar === 6 ? 3 : 4 })),
    [
      { path: 'pages/p1.png', url: '/s/pages/p1.png' },
      { path: 'audio/take.wav', url: '/s/audio/take.wav' },
    ],
  );
});
afterAll(() => {
  vi.restoreAllMocks();
  const g = /** @type {any} */ (globalThis);
  for (const k of ['document', 'requestAnimationFrame', 'AudioContext', 'fetch']) delete g[k];
});

const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
const text = (/** @type {string} */ sel) => $(sel).textContent;

/**
 * A key pressed at `stamp` on the page's clock.
 * @param {string} key
 * @param {number} stamp
 */
function press(key, stamp) {
  const e = new dom.window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
  Object.defineProperty(e, 'timeStamp', { value: stamp });
  dom.window.document.body.dispatchEvent(e);
  return e;
}

describe('preview: tapping along to a recording', () => {
  it('offers the score’s audio files and a file from this computer, and opens the one chosen', async () => {
    const options = [.../** @type {HTMLSelectElement} */ ($('#ta-recording')).options].map((o) => o.textContent);
    expect(options).toEqual(['audio/take.wav', 'A file on this computer…']);
    $('#ta-start').click();
    await expect.poll(() => text('#ta-prompt')).toBe('Press Play, then tap bar 1.');
    expect(fetched).toEqual(['/s/audio/take.wav']);
  });

  it('ignores taps before Play; times a tap by its timeStamp at what was being heard then', () => {
    expect(press(' ', 1000).defaultPrevented).toBe(true);
    expect(text('#ta-count')).toBe('0 of 6 bars tapped');
    ctx.currentTime = 10;
    $('#ta-play').click(); // the recording's 0 at context time 10
    expect(text('#ta-play')).toBe('Pause');
    // Context time 10.95 left the speakers at 5000 ms; the key went down 50 ms later: 1.0 s in.
    ctx.currentTime = 11.2;
    ctx.out = { contextTime: 10.95, performanceTime: 5000 };
    press(' ', 5050);
    // Without an output timestamp: currentTime less outputLatency, less the event's age.
    ctx.out = { contextTime: 0, performanceTime: 0 };
    ctx.currentTime = 13.05;
    press('t', performance.now() - 2);
    for (const t of [15, 17]) {
      ctx.currentTime = t + 0.05;
      press(' ', performance.now());
    }
    expect(text('#ta-count')).toBe('4 of 6 bars tapped');
    expect(text('#ta-prompt')).toBe('Tap bar 5.');
    // A doubled tap: flagged, Save held; Backspace undoes it.
    ctx.currentTime = 17.2;
    press(' ', performance.now());
    expect([...root.querySelectorAll('#ta-flags li')].map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^bar 5: tapped after \d+% .*a doubled tap/),
    ]);
    expect($('#ta-save').hasAttribute('disabled')).toBe(true);
    press('Backspace', performance.now());
    expect(root.querySelectorAll('#ta-flags li')).toHaveLength(0);
    expect(text('#ta-count')).toBe('4 of 6 bars tapped');
  });

  it('saves once every bar is tapped, with the end when tapped, naming the recording', async () => {
    for (const t of [19, 21]) {
      ctx.currentTime = t + 0.05;
      press(' ', performance.now());
    }
    expect(text('#ta-count')).toBe('6 of 6 bars tapped');
    expect($('#ta-save').hasAttribute('disabled')).toBe(false);
    ctx.currentTime = 22.55;
    press(' ', performance.now());
    expect(text('#ta-prompt')).toMatch(/^Every bar and the end are tapped/);
    press(' ', performance.now()); // past the end: ignored
    $('#ta-save').click();
    await expect.poll(() => saved.length).toBe(1);
    const body = /** @type {any} */ (saved[0]);
    expect(body.recording).toBe('audio/take.wav');
    expect(body.times[0]).toBeCloseTo(1, 6);
    expect(body.times.slice(1).map((/** @type {number} */ t) => Math.round(t * 100) / 100)).toEqual([3, 5, 7, 9, 11]);
    expect(body.end).toBeCloseTo(12.5, 2);
    await expect.poll(() => text('#ta-result')).toMatch(/^Saved the tempo map in score\.yaml: 6 bars/);
  });

  it('goes back 5 s (the left arrow) or to a bar, keeping the taps before that point and taking new ones after it', async () => {
    $('#ta-start').click();
    await expect.poll(() => text('#ta-prompt')).toBe('Press Play, then tap bar 1.');
    ctx.currentTime = 30;
    $('#ta-play').click(); // the recording's 0 at context time 30
    /** Taps heard at these seconds of the recording, the recording's 0 at context time `zero`. */
    const tapAt = (/** @type {number} */ zero, /** @type {number[]} */ seconds) => {
      for (const t of seconds) {
        ctx.currentTime = zero + t + ctx.outputLatency;
        press(' ', performance.now());
      }
    };
    tapAt(30, [1, 3, 5, 7, 9]);
    expect(text('#ta-count')).toBe('5 of 6 bars tapped');
    // At 9.05 s: back to 4.05 s, playing on; bars 3-5 are to tap again.
    expect(press('ArrowLeft', performance.now()).defaultPrevented).toBe(true);
    expect(text('#ta-count')).toBe('2 of 6 bars tapped');
    expect(text('#ta-prompt')).toBe('Tap bar 3.');
    tapAt(ctx.currentTime - 4.05, [5.2]);
    expect(text('#ta-count')).toBe('3 of 6 bars tapped');
    // From bar 2: the recording resumes at bar 1's tap, which is kept.
    /** @type {HTMLInputElement} */ ($('#ta-from-bar')).value = '2';
    $('#ta-from').click();
    expect(text('#ta-count')).toBe('1 of 6 bars tapped');
    $('#ta-play').click(); // pause: where it stands is bar 1's tap
    expect(text('#ta-time')).toBe('1.000 s');
    // A bar past the next one to tap: no seek, and why.
    /** @type {HTMLInputElement} */ ($('#ta-from-bar')).value = '5';
    $('#ta-from').click();
    expect(text('#ta-result')).toBe('Cannot tap again from bar 5: choose a bar from 1 to 2 (the next one to tap).');
    expect(text('#ta-count')).toBe('1 of 6 bars tapped');
    // Back while paused, from 1 s: to the start, every tap to tap again.
    $('#ta-back').click();
    expect(text('#ta-time')).toBe('0.000 s');
    expect(text('#ta-count')).toBe('0 of 6 bars tapped');
  });
});
