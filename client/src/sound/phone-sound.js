// The audience cue's `granulator` (doc/score-format.md, "Phones that sound") played on the phone:
// it starts on the beat its cue names, on the server's clock mapped to the Web Audio clock as the
// audio cues are (the conductor announces the start one beat ahead in `next.granulator`), follows
// the cue's gain, and stops when the cue says so or the performance stops. The granulator itself
// (granulator.js) is loaded only when a score uses it, to keep the audience page small.

/**
 * @typedef {object} GranulatorCue
 * @property {string | null} src   the sound file's URL (a package asset)
 * @property {unknown} config      ZScore's granulator parameters (granulator.js checks them)
 * @property {number | null} play  the beat it started on, or null: silent
 * @property {number | null} gain  master gain 0..1, reached over `glide` ms
 * @property {number} glide
 */

/**
 * The granulator of an audience cue state, checked (it comes from the network), or null.
 * @param {unknown} cue
 * @returns {GranulatorCue | null}
 */
export function granulatorCueOf(cue) {
  const g = /** @type {any} */ (cue)?.granulator;
  if (!g || typeof g !== 'object') return null;
  const nat = (/** @type {unknown} */ v) =>
    Number.isInteger(v) && /** @type {number} */ (v) >= 0 ? /** @type {number} */ (v) : null;
  return {
    src: typeof g.src === 'string' && g.src.length <= 512 ? g.src : null,
    config: g.config,
    play: nat(g.play),
    gain: typeof g.gain === 'number' && g.gain >= 0 && g.gain <= 1 ? g.gain : null,
    glide: typeof g.glide === 'number' && g.glide >= 0 && g.glide <= 600_000 ? g.glide : 0,
  };
}

/**
 * When (server time) the granulator of `view` should start for `state`, and on which beat: the
 * next beat's start announced ahead, or the current beat's (a page that learnt it late), or a
 * start before this beat still sounding (a page that joined during it).
 * @param {any} state
 * @param {string} view
 * @param {GranulatorCue | null} g the current cue's granulator
 * @returns {{ beat: number, serverT: number } | null}
 */
export function granulatorStart(state, view, g) {
  if (state?.playback !== 'playing') return null;
  const next = state.next;
  if (Array.isArray(next?.granulator) && next.granulator.includes(view) && typeof next.t === 'number')
    return { beat: next.beat, serverT: next.t };
  if (g && g.play !== null && g.play <= state.beat && typeof state.beatT === 'number')
    return { beat: g.play, serverT: state.beatT };
  return null;
}

/** The note buttons' first note (A4), their range either side (semitones) and a note's length (s). */
export const NOTE_BASE_HZ = 440;
export const NOTE_RANGE = 24;
export const NOTE_S = 0.4;
/** A note starts this far ahead of the context's time, so that its envelope starts at zero. */
const NOTE_AHEAD_S = 0.01;

/**
 * @typedef {object} NoteSounded
 * @property {'up' | 'down'} direction
 * @property {number} step     semitones from the first note
 * @property {'synth' | 'granulator'} engine
 * @property {number} [hz]     the synth's pitch
 * @property {number} [rate]   the granulator's reading rate
 * @property {number} at       context time it starts at
 */

/**
 * A short synth note (a triangle wave under a soft envelope) at `at` on the context.
 * @param {any} c an AudioContext
 * @param {number} at
 * @param {number} hz
 */
function synthNote(c, at, hz) {
  const tone = c.createOscillator();
  tone.type = 'triangle';
  tone.frequency.value = hz;
  const env = c.createGain();
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(0.5, at + 0.02);
  env.gain.exponentialRampToValueAtTime(0.0001, at + NOTE_S);
  tone.connect(env);
  env.connect(c.destination);
  tone.start(at);
  tone.stop(at + NOTE_S + 0.02);
}

/**
 * @param {object} o
 * @param {{ unlocked: boolean, context: any, decode(url: string): Promise<any> | undefined }} o.audio  audio.js
 * @param {{ toLocal(serverT: number): number }} o.clock
 * @param {(ctx: any, localMs: number) => number} o.contextTime  page time -> context time at the speaker
 * @param {{ setInterval: typeof setInterval, clearInterval: typeof clearInterval }} o.timers
 * @param {() => Promise<typeof import('./granulator.js')>} [o.load]
 * @param {(message: string, detail?: unknown) => void} [o.log]
 * @param {string} [o.view]
 */
export function createPhoneSound({
  audio,
  clock,
  contextTime,
  timers,
  load = () => import('./granulator.js'),
  log = () => {},
  view = 'audience',
}) {
  /** @type {ReturnType<typeof import('./granulator.js').createGranulator> | null} */
  let granulator = null;
  /** @type {typeof import('./granulator.js') | null} */
  let lib = null;
  let src = '';
  /** The beat of the start already made, so that a start is made once. */
  let started = '';
  let gain = /** @type {number | null} */ (null);
  /** @type {Promise<void> | null} */
  let loading = null;
  /** @type {{ beat: number, serverT: number, at: number }[]} */
  const history = [];

  /** @param {string} url */
  async function prepare(url) {
    lib ??= await load();
    const buffer = await audio.decode(url);
    if (!buffer || url !== src) return;
    granulator?.stop();
    granulator = lib.createGranulator({ context: audio.context, buffer, timers });
  }

  /** The audience's note buttons: the step from the first note (semitones), and what sounded. */
  let step = 0;
  /** @type {NoteSounded[]} */
  const notes = [];

  return {
    /** Notes sounded by the note buttons (tests, debugging), oldest first. */
    get notes() {
      return notes.slice();
    },
    /**
     * A note-up or note-down button pressed: the next note a semitone higher or lower (within two
     * octaves of the first), sounded at once. Through the granulator's sound, its file read at the
     * note's rate, when the section's cue has one loaded; else a short synth tone.
     * @param {'up' | 'down'} direction
     * @returns {NoteSounded | null} what sounded, or null (no sound yet: the page has not joined)
     */
    note(direction) {
      const c = audio.context;
      if (!audio.unlocked || !c) return null;
      step = Math.max(-NOTE_RANGE, Math.min(NOTE_RANGE, step + (direction === 'up' ? 1 : -1)));
      const at = c.currentTime + NOTE_AHEAD_S;
      const rate = 2 ** (step / 12);
      /** @type {NoteSounded} */
      let sounded;
      if (granulator && lib && src) {
        granulator.note(at, rate, NOTE_S);
        sounded = { direction, step, engine: 'granulator', rate, at };
      } else {
        synthNote(c, at, NOTE_BASE_HZ * rate);
        sounded = { direction, step, engine: 'synth', hz: NOTE_BASE_HZ * rate, at };
      }
      notes.push(sounded);
      if (notes.length > 50) notes.shift();
      return sounded;
    },
    /** Starts made so far (tests, debugging): beat, server time, context time. */
    get history() {
      return history.slice();
    },
    /** Grains started so far. */
    get grains() {
      return granulator?.grains ?? 0;
    },
    /** @param {any} state */
    update(state) {
      const g = granulatorCueOf(state?.cues?.[view]);
      if (!audio.unlocked || !g?.src) {
        granulator?.stop();
        return;
      }
      if (g.src !== src) {
        src = g.src;
        started = '';
        loading = prepare(g.src)
          .catch((err) => log('granulator unavailable', err))
          .finally(() => {
            loading = null;
          });
      }
      if (!granulator || !lib) {
        loading?.then(() => this.update(state));
        return;
      }
      granulator.configure(lib.granulatorConfig(g.config));
      if (g.gain !== null && g.gain !== gain) {
        gain = g.gain;
        granulator.gain(g.gain, g.glide / 1000);
      }
      const start = granulatorStart(state, view, g);
      if (!start) {
        if (g.play === null || state?.playback !== 'playing') {
          granulator.stop();
          started = '';
        }
        return;
      }
      // Once per start beat: the beats after it carry the same start (a seek before it clears it).
      const key = String(start.beat);
      if (key === started) return;
      started = key;
      const at = contextTime(audio.context, clock.toLocal(start.serverT));
      granulator.play(at);
      history.push({ beat: start.beat, serverT: start.serverT, at });
      if (history.length > 50) history.shift();
    },
  };
}
