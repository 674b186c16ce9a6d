// The beat-map mode's tap-along: the composer plays a recording (an audio file the score
// declares, or one picked on this computer, decoded in the page) and taps each bar's downbeat,
// or each beat, with the space bar, T or the Tap button; the taps become the time each bar
// starts in the recording, and Save writes them as the score's meter (core/tap-tempo.js,
// PUT /api/score/tempo). Where bars are drawn still comes from the bar-line clicks. A composer who
// missed a passage goes back (Back 5 s, the left arrow, or Tap again from bar N) and taps on from
// there: the taps before the point sought are kept, those after it dropped (core/tap-tempo.js).
//
// A tap is timed at its event's timeStamp, at what the listener was hearing then
// (recording-player.js): a late handler does not make it late.

import {
  addTap,
  barTimesFromTaps,
  describeFlag,
  flagTaps,
  seekToBar,
  tapTargets,
  tappedBars,
  tapsUpTo,
  undoTap,
} from '../../../core/tap-tempo.js';
import { button, h, setText } from '../console/dom.js';
import { createRecordingPlayer } from './recording-player.js';
import { saveWithStatus } from './save-status.js';

const AUDIO = /\.(wav|mp3|ogg|oga|opus|flac|m4a|aac|webm)$/i;
const LOCAL = '';
/** How far "Back" (and the left arrow) goes back in the recording, in seconds. */
export const BACK_S = 5;

/**
 * @param {HTMLElement} root  filled with the tap-along's controls
 * @param {{ api: import('../console/control-api.js').ControlApi }} deps
 */
export function createTapAlong(root, { api }) {
  /** @type {import('../../../core/tap-tempo.js').TapBar[]} */
  let bars = [];
  /** @type {import('../../../core/tap-tempo.js').TapUnit} */
  let unit = 'bar';
  /** @type {number[]} */
  let taps = [];
  let name = '';
  let open = false;
  const player = createRecordingPlayer({ changed: () => draw() });

  const el = {
    recording: /** @type {HTMLSelectElement} */ (h('select', { id: 'ta-recording', 'aria-label': 'Recording' })),
    file: /** @type {HTMLInputElement} */ (
      h('input', { id: 'ta-file', type: 'file', accept: 'audio/*', 'aria-label': 'A recording on this computer' })
    ),
    unit: /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id: 'ta-unit', 'aria-label': 'Tap on' },
        h('option', { value: 'bar' }, "each bar's downbeat"),
        h('option', { value: 'beat' }, 'each beat'),
      )
    ),
    start: button('ta-start', 'Tap along', () => begin()),
    work: h('div', { id: 'ta-work', class: 'bl-work', hidden: true }),
    play: button('ta-play', 'Play', () => (player.playing ? pause() : play())),
    tap: h('button', { id: 'ta-tap', type: 'button', class: 'ta-tap' }, 'Tap'),
    undo: button('ta-undo', 'Undo tap', () => change(undoTap(taps))),
    back: button('ta-back', `Back ${BACK_S} s`, () => back()),
    fromBar: /** @type {HTMLInputElement} */ (
      h('input', { id: 'ta-from-bar', type: 'number', min: '1', step: '1', 'aria-label': 'Bar to tap again from' })
    ),
    from: button('ta-from', 'Tap again from bar', () => fromBar()),
    again: button('ta-again', 'Start again', () => {
      player.pause();
      seek(0, []);
    }),
    save: button('ta-save', 'Save tempo map', () => save()),
    close: button('ta-close', 'Close', () => close()),
    time: h('span', { id: 'ta-time', class: 'muted' }),
    count: h('span', { id: 'ta-count', class: 'muted' }),
    prompt: h('p', { id: 'ta-prompt', role: 'status' }),
    flags: h('ul', { id: 'ta-flags' }),
    keep: /** @type {HTMLInputElement} */ (h('input', { id: 'ta-keep', type: 'checkbox' })),
    result: h('p', { id: 'ta-result', role: 'status' }),
  };
  el.keep.addEventListener('change', () => draw());
  el.work.append(
    h('div', { class: 'row' }, el.play, el.tap, el.undo, el.again, el.save, el.close, el.time, el.count),
    h('div', { class: 'row' }, el.back, el.from, el.fromBar),
    el.prompt,
    el.flags,
    h('label', { class: 'muted' }, el.keep, ' Keep the flagged taps (a real pause or fermata)'),
  );
  root.append(
    h('h3', {}, 'Tap along to a recording'),
    h('div', { class: 'row' }, el.recording, el.file, el.unit, el.start),
    h(
      'p',
      { class: 'muted hint' },
      "Play a recording and tap the space bar, T or Tap on each bar's downbeat (or each beat) from bar 1: the taps give the time each bar starts, saved as the score's tempo map (meter in score.yaml). Backspace: undo the last tap. Missed a passage? Back 5 s (or the left arrow) goes back in the recording, and Tap again from bar N resumes at the tap before bar N: the taps before that point are kept, the ones after it are tapped again.",
    ),
    el.result,
    el.work,
  );

  // The tap: its event's own time, so a late handler does not make it late.
  el.tap.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    tapAt(e.timeStamp);
  });
  root.ownerDocument.addEventListener('keydown', (e) => {
    if (!open || e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) && target.id !== 'ta-keep') return;
    if (e.key === ' ' || e.key.toLowerCase() === 't') {
      e.preventDefault();
      tapAt(e.timeStamp);
    } else if (e.key === 'Backspace') {
      e.preventDefault();
      change(undoTap(taps));
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      back();
    }
  });

  // A space bar's keyup would press the focused button (Play, say): not while tapping.
  root.ownerDocument.addEventListener('keyup', (e) => {
    if (
      open &&
      e.key === ' ' &&
      !/^(INPUT|SELECT|TEXTAREA)$/.test(/** @type {HTMLElement} */ (e.target)?.tagName ?? '')
    )
      e.preventDefault();
  });

  const targets = () => tapTargets(bars, unit).length;

  /** @param {number} stamp */
  function tapAt(stamp) {
    change(addTap(taps, { time: player.heardAt(stamp), playing: player.playing }, targets()));
  }

  /** @param {number[]} next */
  function change(next) {
    taps = next;
    draw();
  }

  async function load() {
    const file = el.file.files?.[0];
    const url = el.recording.value;
    if (url === LOCAL && !file) throw new Error('choose a recording, or a file on this computer');
    await player.load(async () => (url === LOCAL && file ? file.arrayBuffer() : (await fetch(url)).arrayBuffer()));
    name = url === LOCAL && file ? file.name : (el.recording.selectedOptions[0]?.textContent ?? url);
  }

  async function begin() {
    setText(el.result, 'Opening the recording…');
    delete el.result.dataset.state;
    try {
      pause();
      await load();
    } catch (err) {
      setText(el.result, `Cannot play it: ${/** @type {Error} */ (err).message}`);
      el.result.dataset.state = 'refused';
      return;
    }
    unit = el.unit.value === 'beat' ? 'beat' : 'bar';
    taps = [];
    open = true;
    el.keep.checked = false;
    setText(el.result, '');
    el.work.hidden = false;
    draw();
  }

  function play() {
    player.play();
    draw();
    tick();
  }

  function pause() {
    player.pause();
    draw();
  }

  /**
   * Go to `time` in the recording (playing on if it played), the taps after it dropped to be
   * tapped again.
   * @param {number} time
   * @param {number[]} kept
   */
  function seek(time, kept) {
    player.seek(time);
    taps = kept;
    draw();
  }

  function back() {
    if (!open) return;
    const time = Math.max(0, player.position() - BACK_S);
    seek(time, tapsUpTo(taps, time));
  }

  function fromBar() {
    const bar = Number(el.fromBar.value);
    const to = Number.isInteger(bar) ? seekToBar(taps, bars, unit, bar) : null;
    if (!to) {
      const next = tapTargets(bars, unit)[taps.length];
      setText(
        el.result,
        `Cannot tap again from bar ${el.fromBar.value}: choose a bar from 1 to ${next ? next.bar : 'the last'} (the next one to tap).`,
      );
      el.result.dataset.state = 'refused';
      return;
    }
    setText(el.result, '');
    delete el.result.dataset.state;
    seek(to.time, to.taps);
  }

  function close() {
    pause();
    open = false;
    el.work.hidden = true;
  }

  function tick() {
    if (!player.playing) return;
    setText(el.time, `${player.position().toFixed(1)} s`);
    requestAnimationFrame(tick);
  }

  async function save() {
    const { times, end } = barTimesFromTaps(taps, bars, unit);
    const recording = name;
    const saved = await saveWithStatus(
      el,
      () => api.saveTempo({ times, end, recording }),
      (r) =>
        `Saved the tempo map in ${r.file}: ${r.bars} bars, ${r.changes} meter entries; bar 1 at ${r.first.toFixed(2)} s of ${recording}. The package reloads with it.`,
    );
    if (saved) close();
  }

  function draw() {
    if (!open) return;
    const list = tapTargets(bars, unit);
    const flags = flagTaps(taps, bars, unit);
    const { times } = barTimesFromTaps(taps, bars, unit);
    const total = tappedBars(bars).length;
    const next = list[taps.length];
    setText(el.play, player.playing ? 'Pause' : 'Play');
    if (!player.playing && player.loaded) setText(el.time, `${player.position().toFixed(3)} s`);
    el.undo.toggleAttribute('disabled', taps.length === 0);
    el.flags.replaceChildren(...flags.map((f) => h('li', { class: 'ta-flag' }, describeFlag(f))));
    el.flags.dataset.flags = String(flags.length);
    el.save.toggleAttribute('disabled', times.length < total || (flags.length > 0 && !el.keep.checked));
    setText(el.count, `${times.length} of ${total} bars tapped`);
    el.count.dataset.tapped = String(times.length);
    setText(
      el.prompt,
      !next
        ? 'Every bar and the end are tapped: save the tempo map.'
        : next.end
          ? `Tap the end of bar ${next.bar} (or save: it keeps the tempo before it).`
          : `${player.playing ? 'Tap' : 'Press Play, then tap'} bar ${next.bar}${unit === 'beat' ? `, beat ${next.beat}` : ''}.`,
    );
  }

  return {
    /**
     * The score's bars and its recordings (a new version of the score).
     * @param {import('../../../core/tap-tempo.js').TapBar[]} timed  the tempo map's bars
     * @param {{ path: string, url: string }[]} assets  the score's files
     */
    set(timed, assets) {
      bars = timed;
      // The recording chosen before stays chosen; the first time, the score's own first.
      const chosen = el.recording.options.length > 0 ? el.recording.value : null;
      el.recording.replaceChildren(
        ...assets.filter((a) => AUDIO.test(a.path)).map((a) => h('option', { value: a.url }, a.path)),
        h('option', { value: LOCAL }, 'A file on this computer…'),
      );
      if (chosen !== null && [...el.recording.options].some((o) => o.value === chosen)) el.recording.value = chosen;
      root.hidden = bars.length === 0;
      if (open) draw();
    },
  };
}
