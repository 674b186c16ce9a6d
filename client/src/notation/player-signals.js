// What ZScore's players showed a musician beside the score: a start signal (ready during the
// count-in, go on the first beat played, stop), a beat indicator (one mark per beat of the bar,
// the current one lit, the downbeat larger) and the tempo. Shown on part and score views; the
// audience page hides them (style.css).

/**
 * @typedef {{ signal: '' | 'ready' | 'go' | 'paused' | 'stopped', label: string }} Signal
 */

/**
 * The start signal for a position: `startBeat` is the beat the performance started playing on
 * (null when not known), so that "go" shows on that beat only.
 * @param {string | undefined} playback  playing, paused or stopped
 * @param {{ beat: number | null, count: number }} pos
 * @param {number | null} startBeat
 * @returns {Signal}
 */
export function startSignal(playback, pos, startBeat) {
  if (playback === 'stopped') return { signal: 'stopped', label: 'Stopped' };
  if (playback === 'paused') return { signal: 'paused', label: 'Paused' };
  if (playback !== 'playing') return { signal: '', label: '' };
  if (pos.count > 0) return { signal: 'ready', label: 'Ready' };
  if (pos.beat !== null && pos.beat === startBeat) return { signal: 'go', label: 'Go' };
  return { signal: '', label: '' };
}

/**
 * The beat indicator: one mark a beat of the bar, the current one on.
 * @param {[number, number] | undefined} time  the bar's time signature
 * @param {number | null} beatInBar
 * @returns {{ beats: number, on: number }}  on: 0 for none
 */
export function beatMarks(time, beatInBar) {
  const beats = Array.isArray(time) && Number.isInteger(time[0]) ? Math.min(32, Math.max(1, time[0])) : 0;
  return {
    beats,
    on:
      beats > 0 && Number.isInteger(beatInBar) && /** @type {number} */ (beatInBar) <= beats
        ? /** @type {number} */ (beatInBar)
        : 0,
  };
}

/**
 * The tempo as a musician reads it: beats of the bar's unit a minute, with the conductor's rate.
 * @param {any} state
 */
export function tempoText(state) {
  if (typeof state?.tempo !== 'number' || !Number.isFinite(state.tempo)) return '';
  const rate = typeof state.rate === 'number' && state.rate > 0 ? state.rate : 1;
  const unit = Array.isArray(state.time)
    ? ({ 2: '𝅗𝅥', 4: '♩', 8: '♪', 16: '𝅘𝅥𝅯' }[/** @type {2 | 4 | 8 | 16} */ (state.time[1])] ?? `1/${state.time[1]}`)
    : '♩';
  return `${unit} = ${Math.round(state.tempo * rate)}`;
}

/**
 * Bind to index.html's player strip (#start-signal, #beat-marks, #tempo-readout).
 * @param {Document} doc
 */
export function createPlayerSignals(doc) {
  const signal = /** @type {HTMLElement} */ (doc.getElementById('start-signal'));
  const marks = /** @type {HTMLElement} */ (doc.getElementById('beat-marks'));
  const tempo = /** @type {HTMLElement} */ (doc.getElementById('tempo-readout'));
  /** @type {any} */
  let state = null;
  let startBeat = /** @type {number | null} */ (null);
  let wasPlaying = false;
  let marksKey = '';
  return {
    /** @param {any} s the performance as the stream sent it */
    showState(s) {
      const playing = s?.playback === 'playing';
      // The beat the performance starts on: the one that sounds after a count-in, or at once.
      if (playing && !wasPlaying) startBeat = s.countIn ? (s.next?.beat ?? s.beat) : s.beat;
      wasPlaying = playing;
      state = s;
      const t = tempoText(s);
      if (tempo.textContent !== t) tempo.textContent = t;
    },
    /** @param {import('../time/beat-clock.js').Position} pos */
    showPosition(pos) {
      const sig = startSignal(state?.playback, pos, startBeat);
      if (signal.dataset.signal !== sig.signal) {
        signal.dataset.signal = sig.signal;
        signal.textContent = sig.label;
        signal.hidden = sig.signal === '';
      }
      const m = beatMarks(state?.time, pos.count > 0 ? null : pos.beatInBar);
      const key = `${m.beats}:${m.on}`;
      if (key === marksKey) return;
      marksKey = key;
      const spans = [];
      for (let i = 1; i <= m.beats; i++) {
        const mark = doc.createElement('span');
        mark.className = 'mark';
        if (i === 1) mark.dataset.down = 'true';
        if (i === m.on) mark.dataset.on = 'true';
        spans.push(mark);
      }
      marks.replaceChildren(...spans);
      marks.dataset.on = String(m.on);
    },
  };
}
