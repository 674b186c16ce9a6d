// The console's timeline (the preview's, console/timeline.js): the piece's bars, marks, vote
// windows, the loop region and where the performance is. A bar or a mark chosen on it is where
// the performance goes: at once while stopped or paused; while playing, a jump the whole ensemble
// hears, so the panel asks first ("Jump to bar 28, beat 1 now?") and only "Jump" goes there.

import { createTimeline } from '../console/timeline.js';
import { h, setText } from '../console/dom.js';

/** How long a choice waits for its confirmation while playing (ms); then it is dropped. */
export const CHOICE_WAITS_MS = 10_000;

/**
 * @typedef {{ beat: number } | { mark: string }} Target  what POST /api/control/seek is asked
 */

/**
 * @param {{ seek: (target: Target, words: string) => void, timers?: Pick<Window, 'setTimeout' | 'clearTimeout'> }} o
 *   seek: go there (the console's act: the request, its result shown)
 */
export function createTimelinePanel({ seek, timers = window }) {
  const holder = h('div', { id: 'timeline', class: 'console-timeline' });
  const question = h('span', { id: 'timeline-question', role: 'status' });
  const go = h('button', { type: 'button', id: 'timeline-go' }, 'Jump');
  const cancel = h('button', { type: 'button', id: 'timeline-cancel' }, 'Cancel');
  const confirm = h('div', { id: 'timeline-confirm', class: 'row', hidden: '' }, question, go, cancel);
  const box = h('div', {}, holder, confirm);
  let playing = false;
  /** @type {{ target: Target, words: string } | null} */
  let pending = null;
  /** @type {number | undefined} */
  let timer;

  const drop = () => {
    pending = null;
    timers.clearTimeout(timer);
    confirm.hidden = true;
    timeline.choose(null);
  };
  /**
   * @param {Target} target
   * @param {number} beat
   * @param {string} words
   */
  const choose = (target, beat, words) => {
    if (!playing) {
      drop();
      seek(target, words);
      return;
    }
    pending = { target, words };
    timeline.choose(beat);
    setText(question, `Jump to ${words} now?`);
    confirm.hidden = false;
    timers.clearTimeout(timer);
    timer = timers.setTimeout(drop, CHOICE_WAITS_MS);
    go.focus({ preventScroll: true });
  };
  const timeline = createTimeline(holder, {
    onSeek: (beat) => choose({ beat }, beat, timeline.describe(beat).replace(/^Bar/, 'bar')),
    onMark: (name, beat) => choose({ mark: name }, beat, `mark ${name}`),
  });
  go.addEventListener('click', () => {
    const chosen = pending;
    drop();
    if (chosen) seek(chosen.target, chosen.words);
  });
  cancel.addEventListener('click', drop);

  return {
    box,
    /** @param {import('../console/timeline.js').Timeline} t  GET /api/score/timeline */
    set: (t) => timeline.set(t),
    /**
     * The performance as it is: whether it plays (a choice then waits for "Jump"), its loop, an
     * open-form piece's sections in the order taken.
     * @param {{ playback?: unknown, loop?: { start?: unknown, end?: unknown }, section?: unknown } | null | undefined} state
     */
    showState(state) {
      playing = state?.playback === 'playing';
      // Stopped or paused meanwhile: the question no longer stands.
      if (!playing && pending) drop();
      timeline.setLoop(state?.loop);
      timeline.setSection(state?.section);
    },
    /**
     * Where the performance is.
     * @param {number} beat
     * @param {number} fraction  of that beat gone
     */
    show: (beat, fraction) => timeline.show(beat, fraction),
  };
}
