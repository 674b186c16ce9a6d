// The musicians' click on a part's page: its toggle in the player strip, what the player is told
// beside it, and the clicks each state announces.

import { DEFAULT_VIEW } from './route.js';
import { countInClicks } from '../sound/audio.js';
import { slowOutputNotice } from '../sound/audio-latency.js';

/**
 * How often (ms) the page reads whether the click is held silent, while it is on. The wait lasts
 * seconds (TRUST_WITHIN_MS at most, output-clock.js), and a click is placed a beat ahead: twice a
 * second tells the player soon enough; the line is written only when its words change.
 */
export const CLICK_WAIT_POLL_MS = 500;

/**
 * What the player is told while the click is on and held silent: clicks wait until the output's
 * mapping to the page's clock is trusted, or they would sound off the beat (a joining page's first
 * ones were 40-97 ms early), and the wait is bounded (TRUST_WITHIN_MS).
 * @param {import('../sound/audio-latency.js').OutputTrust | null} trust  null: no sound running
 *   (the page's "Tap to resume sound" speaks then)
 * @returns {string | null}  null when the click is not held
 */
export function clickWaitNotice(trust) {
  if (!trust || trust.trusted) return null;
  if (trust.why === 'stepped') return 'Click waits: the sound output moved (headphones?) and is settling again…';
  return 'Click waits a few seconds for the sound output to settle, so that it sounds on the beat…';
}

/**
 * A line of the player strip, after the toggle: a polite status, there from the start and empty
 * until it has words (a live region added with its first words is missed by some screen readers),
 * drawn only while it has them (style.css `.strip-note:empty`); its words set only when they change.
 * @param {Document} document
 * @param {HTMLElement} after
 * @param {string} id  also its class
 */
function stripNote(document, after, id) {
  const note = document.createElement('span');
  note.id = id;
  note.className = `strip-note ${id}`;
  // Read out when it changes, without taking the player's focus.
  note.setAttribute('role', 'status');
  note.setAttribute('aria-live', 'polite');
  after.after(note);
  /** @param {string | null} words */
  return (words) => {
    if (note.textContent !== (words ?? '')) note.textContent = words ?? '';
  };
}

/**
 * The musicians' click (part and score views): a toggle in the player strip, which also unlocks
 * the page's audio (it is the user's gesture). Each beat is clicked as it is announced, a beat
 * ahead, through the same output compensation as the clips. Beside the toggle the player is told
 * when the output is slow (a Bluetooth headset) and, while the click is on, why it is silent.
 * @param {object} o
 * @param {Document} o.document
 * @param {string} o.viewName
 * @param {{ audio: { unlock: () => Promise<unknown>, context: import('../sound/audio.js').AudioLike | null },
 *   output: Pick<import('../sound/audio-latency.js').OutputCompensation, 'describe' | 'trust'> }} o.sound
 * @param {Pick<import('./page-clock.js').PageClock, 'now' | 'setTimeout' | 'clearTimeout'>} o.time  the page's clock
 * @param {import('../live/transports/index.js').Log} o.log
 * @param {() => void} o.changed  the toggle moved: clicks scheduled are kept or cancelled
 */
export function clickToggle({ document, viewName, sound, time, log, changed }) {
  const state = {
    on: false,
    /** Tell the player whether the output is slow now (called on each beat clicked: the delay is
     * known only once the output runs, and a headset may connect mid-piece). Over SLOW_OUTPUT_MS
     * (audio-latency.js) they are told beside the toggle. */
    checkOutput() {},
  };
  const toggle = document.getElementById('click-toggle');
  if (!toggle || viewName === DEFAULT_VIEW) return state;
  const { audio, output } = sound;
  const slowNote = stripNote(document, toggle, 'slow-output');
  const waitNote = stripNote(document, toggle, 'click-wait');
  state.checkOutput = () => {
    const c = audio.context;
    slowNote(c ? slowOutputNotice(output.describe(c, time.now())) : null);
  };
  // Read, not measured: trust() takes no reading of the output, so asking often changes nothing.
  const running = () => (audio.context?.state === 'running' ? audio.context : null);
  /** @type {any} */
  let poll = null;
  const showWait = () => {
    const c = running();
    waitNote(state.on ? clickWaitNotice(c && output.trust(c, time.now())) : null);
    poll = state.on ? time.setTimeout(showWait, CLICK_WAIT_POLL_MS) : null;
  };
  toggle.hidden = false;
  toggle.addEventListener('click', () => {
    state.on = !state.on;
    toggle.setAttribute('aria-pressed', String(state.on));
    if (state.on) audio.unlock().catch((err) => log('could not start audio for the click', err));
    changed();
    if (poll !== null) time.clearTimeout(poll);
    showWait();
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
