// The console's timeline panel (conduct/timeline-panel.js) on jsdom: a bar chosen while stopped is
// gone to at once; while playing, it waits for "Jump" (or is dropped by "Cancel", by the wait
// running out, or by the performance stopping); the loop region follows the state.

import { describe, it, expect, afterEach, vi } from 'vitest';
import { JSDOM } from 'jsdom';
import { CHOICE_WAITS_MS, createTimelinePanel } from '../../../client/src/conduct/timeline-panel.js';

/** @type {import('../../../client/src/console/timeline.js').Timeline} */
const T = {
  beats: 16,
  bars: [
    { bar: 1, beat: 0, time: '4/4' },
    { bar: 2, beat: 4 },
    { bar: 3, beat: 8 },
    { bar: 4, beat: 12 },
  ],
  tempo: [{ beat: 0, bpm: 120 }],
  cues: [{ beat: 4, view: 'audience', kind: 'vote', close: 12 }],
  marks: [{ name: 'B', beat: 8 }],
};

const saved = /** @type {any} */ (globalThis).document;
afterEach(() => {
  /** @type {any} */ (globalThis).document = saved;
});

function panel() {
  const { window } = new JSDOM('<body></body>');
  /** @type {any} */ (globalThis).document = window.document;
  /** @type {Array<{ target: unknown, words: string }>} */
  const seeks = [];
  /** @type {Map<number, () => void>} */
  const timers = new Map();
  let id = 0;
  const p = createTimelinePanel({
    seek: (target, words) => seeks.push({ target, words }),
    timers: /** @type {any} */ ({
      setTimeout: (/** @type {() => void} */ fn) => {
        timers.set(++id, fn);
        return id;
      },
      clearTimeout: (/** @type {number} */ n) => timers.delete(n),
    }),
  });
  window.document.body.append(p.box);
  p.set(T);
  const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (window.document.querySelector(sel));
  const key = (/** @type {string} */ k) =>
    $('#scrubber').dispatchEvent(new window.KeyboardEvent('keydown', { key: k, bubbles: true }));
  return { p, seeks, timers, $, key };
}

describe('console: the timeline panel', () => {
  it('goes to a bar chosen while stopped at once', () => {
    const { p, seeks, $, key } = panel();
    p.showState({ playback: 'stopped' });
    key('ArrowRight');
    expect(seeks).toEqual([{ target: { beat: 4 }, words: 'bar 2, beat 1' }]);
    expect($('#timeline-confirm').hidden).toBe(true);
  });

  it('two quick presses go two bars on, however late the page handles the second', () => {
    const { p, seeks, $ } = panel();
    p.showState({ playback: 'stopped' });
    const view = /** @type {any} */ ($('#scrubber').ownerDocument.defaultView);
    const first = new view.KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true });
    const second = new view.KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true });
    // The page handles the second press 2 s after the first (a busy main thread); both were
    // pressed together, and the position shown has not moved yet.
    const now = vi.spyOn(performance, 'now').mockReturnValueOnce(0).mockReturnValue(2000);
    try {
      $('#scrubber').dispatchEvent(first);
      $('#scrubber').dispatchEvent(second);
    } finally {
      now.mockRestore();
    }
    expect(seeks.map((s) => s.words)).toEqual(['bar 2, beat 1', 'bar 3, beat 1']);
  });

  it('a press sent only once the page took the last goes on from it until the playhead shows it', () => {
    const { p, seeks, $ } = panel();
    p.showState({ playback: 'stopped' });
    const view = /** @type {any} */ ($('#scrubber').ownerDocument.defaultView);
    /** @param {number} at when the key was pressed */
    const press = (at) => {
      const e = new view.KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true });
      Object.defineProperty(e, 'timeStamp', { value: at });
      $('#scrubber').dispatchEvent(e);
    };
    // The first press took the busy page 2 s to handle; the second was sent after it (a remote
    // control, a test driver): pressed 2 s apart, the first's bar not shown yet.
    press(0);
    press(2000);
    expect(seeks.map((s) => s.words)).toEqual(['bar 2, beat 1', 'bar 3, beat 1']);
    // Once the playhead shows the target, a press long after goes from what is shown.
    p.show(8, 0);
    press(9000);
    p.show(12, 0);
    p.show(2, 0);
    press(20_000);
    expect(seeks.map((s) => s.words).slice(2)).toEqual(['bar 4, beat 1', 'bar 2, beat 1']);
  });

  it('while playing, asks first: "Jump" goes there, "Cancel" does not', () => {
    const { p, seeks, $, key } = panel();
    p.showState({ playback: 'playing' });
    key('End');
    expect(seeks).toEqual([]);
    expect($('#timeline-confirm').hidden).toBe(false);
    expect($('#timeline-question').textContent).toBe('Jump to bar 4, beat 1 now?');
    expect($('.tl-target').hidden).toBe(false);
    $('#timeline-go').click();
    expect(seeks).toEqual([{ target: { beat: 12 }, words: 'bar 4, beat 1' }]);
    expect($('#timeline-confirm').hidden).toBe(true);
    expect($('.tl-target').hidden).toBe(true);
    key('Home');
    $('#timeline-cancel').click();
    expect(seeks).toHaveLength(1);
    expect($('#timeline-confirm').hidden).toBe(true);
  });

  it('drops a question left unanswered, or one the performance stopping overtook', () => {
    const { p, seeks, timers, $, key } = panel();
    p.showState({ playback: 'playing' });
    key('End');
    expect(timers.size).toBe(1);
    for (const fn of timers.values()) fn();
    expect($('#timeline-confirm').hidden).toBe(true);
    key('Home');
    p.showState({ playback: 'paused' });
    expect($('#timeline-confirm').hidden).toBe(true);
    $('#timeline-go').click();
    expect(seeks).toEqual([]);
    expect(CHOICE_WAITS_MS).toBeGreaterThan(0);
  });

  it('shades the loop region the state names, and the rehearsal mark can be chosen', () => {
    const { p, $ } = panel();
    p.showState({ playback: 'stopped', loop: { start: 4, end: 11 } });
    expect($('.tl-loop').hidden).toBe(false);
    expect($('.tl-loop').style.left).toBe('25%');
    expect($('.tl-loop').style.width).toBe('50%');
    p.showState({ playback: 'stopped' });
    expect($('.tl-loop').hidden).toBe(true);
    expect($('.tl-section[data-mark="B"]').dataset.beat).toBe('8');
    expect($('.tl-vote').style.width).toBe('50%');
  });

  it("draws an open-form piece's sections in the order taken and the one chosen next, kept once it ends", () => {
    const { p, $ } = panel();
    const all = () =>
      [...document.querySelectorAll('.tl-order li')].map((li) => `${li.textContent}|${li.getAttribute('data-at')}`);
    expect($('.tl-order').hidden).toBe(true);
    const section = {
      id: 'rhythm',
      options: [{ id: 'pitch', name: 'Pitch' }],
      order: [
        { section: 'intro', by: 'start', name: 'Intro' },
        { section: 'rhythm', by: 'conductor', name: 'Rhythm' },
      ],
    };
    p.showState({ playback: 'playing', section });
    expect($('.tl-order').hidden).toBe(false);
    expect(all()).toEqual(['Intro|played', 'Rhythm|now']);
    expect($('.tl-order [aria-current="step"]').dataset.section).toBe('rhythm');
    p.showState({ playback: 'playing', section: { ...section, chosen: { section: 'pitch', by: 'meter' } } });
    expect(all()).toEqual(['Intro|played', 'Rhythm|now', 'next: Pitch|next']);
    expect($('.tl-order [data-at="next"]').title).toBe('Pitch: chosen by the audience meter');
    // the piece ended (the state drops its section): the order stays, all of it played
    p.showState({ playback: 'stopped' });
    expect(all()).toEqual(['Intro|played', 'Rhythm|played']);
    // another piece: its own order (none)
    p.set({ ...T, bars: T.bars.slice(0, 3), beats: 12 });
    expect($('.tl-order').hidden).toBe(true);
  });
});
