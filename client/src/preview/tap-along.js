// The beat-map mode's tap-along: the composer plays a recording (an audio file the score
// declares, or one picked on this computer, decoded in the page) and taps each bar's downbeat,
// or each beat, with the space bar, T or the Tap button; the taps become the time each bar
// starts in the recording, and Save writes them as the score's meter (core/tap-tempo.js,
// PUT /api/score/tempo). Where bars are drawn still comes from the bar-line clicks.
//
// A tap is timed at its event's timeStamp (the moment of the key press or touch, on the
// performance.now() clock), mapped to what the listener was hearing then: the AudioContext's
// getOutputTimestamp() pairs the context time leaving the speakers with a performance.now()
// time, so the output latency (tens of ms on Bluetooth and some laptops) is taken off; without
// it, currentTime less outputLatency. An AudioContext and a decoded buffer, not an <audio>
// element: its clock is the samples played, where an element's currentTime is coarse and late.

import {
  addTap,
  barTimesFromTaps,
  describeFlag,
  flagTaps,
  tapTargets,
  tappedBars,
  undoTap,
} from '../../../core/tap-tempo.js';
import { button, h, setText } from '../console/dom.js';
import { saveWithStatus } from './save-status.js';

const AUDIO = /\.(wav|mp3|ogg|oga|opus|flac|m4a|aac|webm)$/i;
const LOCAL = '';

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
  /** @type {AudioContext | null} */
  let ctx = null;
  /** @type {AudioBuffer | null} */
  let buffer = null;
  let name = '';
  /** @type {AudioBufferSourceNode | null} */
  let source = null;
  /** Context time at which the recording's 0 plays, while playing. */
  let startedAt = 0;
  /** Where the recording stands while paused, in its seconds. */
  let offset = 0;
  let open = false;

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
    play: button('ta-play', 'Play', () => (source ? pause() : play())),
    tap: h('button', { id: 'ta-tap', type: 'button', class: 'ta-tap' }, 'Tap'),
    undo: button('ta-undo', 'Undo tap', () => change(undoTap(taps))),
    again: button('ta-again', 'Start again', () => {
      pause();
      offset = 0;
      change([]);
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
      "Play a recording and tap the space bar, T or Tap on each bar's downbeat (or each beat) from bar 1: the taps give the time each bar starts, saved as the score's tempo map (meter in score.yaml). Backspace: undo the last tap.",
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

  /**
   * The recording's second being heard at `stamp` (performance.now() time).
   * @param {number} stamp
   */
  function heardAt(stamp) {
    if (!ctx) return Number.NaN;
    const out = typeof ctx.getOutputTimestamp === 'function' ? ctx.getOutputTimestamp() : null;
    const latency = ctx.outputLatency || ctx.baseLatency || 0;
    const contextTime =
      out?.performanceTime && out.contextTime && out.contextTime <= ctx.currentTime
        ? out.contextTime + (stamp - out.performanceTime) / 1000
        : ctx.currentTime - latency - (performance.now() - stamp) / 1000;
    return contextTime - startedAt;
  }

  /** @param {number} stamp */
  function tapAt(stamp) {
    change(addTap(taps, { time: heardAt(stamp), playing: source !== null }, targets()));
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
    ctx ??= new AudioContext();
    const bytes = url === LOCAL && file ? await file.arrayBuffer() : await (await fetch(url)).arrayBuffer();
    buffer = await ctx.decodeAudioData(bytes);
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
    offset = 0;
    open = true;
    el.keep.checked = false;
    setText(el.result, '');
    el.work.hidden = false;
    draw();
  }

  function play() {
    if (!ctx || !buffer || source) return;
    if (offset >= buffer.duration) offset = 0;
    void ctx.resume();
    source = ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(ctx.destination);
    const played = source;
    played.onended = () => {
      if (source !== played) return;
      offset = buffer?.duration ?? 0;
      source = null;
      draw();
    };
    startedAt = ctx.currentTime - offset;
    played.start(0, offset);
    draw();
    tick();
  }

  function pause() {
    if (!ctx || !source) return;
    offset = Math.max(0, ctx.currentTime - startedAt);
    const s = source;
    source = null;
    s.stop();
    draw();
  }

  function close() {
    pause();
    open = false;
    el.work.hidden = true;
  }

  function tick() {
    if (!source || !ctx) return;
    setText(el.time, `${(ctx.currentTime - startedAt).toFixed(1)} s`);
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
    setText(el.play, source ? 'Pause' : 'Play');
    if (!source && ctx) setText(el.time, `${offset.toFixed(3)} s`);
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
          : `${source ? 'Tap' : 'Press Play, then tap'} bar ${next.bar}${unit === 'beat' ? `, beat ${next.beat}` : ''}.`,
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
