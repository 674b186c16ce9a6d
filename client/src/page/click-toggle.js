// The musicians' click on a part's page: its toggle in the player strip, what the player is told
// beside it, and the clicks each state announces.

import { DEFAULT_VIEW } from './route.js';
import { countInClicks } from '../sound/audio.js';
import { slowOutputNotice } from '../sound/audio-latency.js';

/**
 * The musicians' click (part and score views): a toggle in the player strip, which also unlocks
 * the page's audio (it is the user's gesture). Each beat is clicked as it is announced, a beat
 * ahead, through the same output compensation as the clips.
 * @param {Document} document
 * @param {string} viewName
 * @param {{ unlock: () => Promise<unknown> }} audio
 * @param {import('../live/transports/index.js').Log} log
 * @param {() => import('../sound/audio-latency.js').OutputLatency | null} latency  the output's delay, once
 *   the audio is unlocked: over SLOW_OUTPUT_MS (a Bluetooth headset) the player is told beside
 *   the toggle (checkOutput)
 * @param {() => void} changed  the toggle moved: clicks scheduled are kept or cancelled
 */
export function clickToggle(document, viewName, audio, log, latency, changed) {
  const state = {
    on: false,
    /** Tell the player whether the output is slow now (called on each beat clicked: the delay is
     * known only once the output runs, and a headset may connect mid-piece). */
    checkOutput() {},
  };
  const toggle = document.getElementById('click-toggle');
  if (!toggle || viewName === DEFAULT_VIEW) return state;
  state.checkOutput = () => {
    const l = latency();
    const notice = l ? slowOutputNotice(l) : null;
    let note = document.getElementById('slow-output');
    if (notice && !note) {
      note = document.createElement('span');
      note.id = 'slow-output';
      note.className = 'slow-output';
      note.setAttribute('role', 'status');
      toggle.after(note);
    }
    if (note && note.textContent !== (notice ?? '')) {
      note.textContent = notice ?? '';
      note.hidden = !notice;
    }
  };
  toggle.hidden = false;
  toggle.addEventListener('click', () => {
    state.on = !state.on;
    toggle.setAttribute('aria-pressed', String(state.on));
    if (state.on) audio.unlock().catch((err) => log('could not start audio for the click', err));
    changed();
  });
  return state;
}

/**
 * The musicians' click for what a state announces: a count-in's clicks (its first accented, all at
 * once: they sound as announced even if the link is lost meanwhile), then the beat they count in
 * to, or the next beat.
 * @param {{ click: (serverT: number, accent: boolean) => boolean }} audio
 * @param {any} state
 * @returns {boolean} whether a click was scheduled
 */
export function clickBeats(audio, state) {
  if (state?.playback !== 'playing' || typeof state.next?.t !== 'number') return false;
  const counted = countInClicks(state).map((t, k) => audio.click(t, k === 0));
  return [...counted, audio.click(state.next.t, state.next.beatInBar === 1)].some(Boolean);
}
