// Where the performance is, for the console and the composer preview: bar, beat and count-in
// as the beat clock shows them, and the playback (playing, paused, stopped) and tempo from the last state.

import { h, setText } from './dom.js';

/** The readout's elements (each page places them), and what updates them. */
export function createPositionReadout() {
  const bar = h('span', { id: 'bar', class: 'big' }, '–');
  const beat = h('span', { id: 'beat', class: 'big' }, '–');
  const count = h('span', { id: 'count-in' }, '');
  const playback = h('span', { id: 'playback-state', 'data-state': '–' }, '–');
  const tempo = h('span', { id: 'tempo' }, '–');
  return {
    bar,
    beat,
    count,
    playback,
    tempo,
    /** @param {import('../time/beat-clock.js').Position} pos */
    showPosition(pos) {
      setText(bar, pos.bar === null ? '–' : String(pos.bar));
      setText(beat, pos.beatInBar === null ? '–' : String(pos.beatInBar));
      setText(count, pos.count > 0 ? `count-in ${pos.count}/${pos.countOf}` : '');
    },
    /** @param {any} state the performance, as the stream sent it (null before the first) */
    showState(state) {
      setText(playback, String(state?.playback ?? '–'));
      playback.dataset.state = String(state?.playback ?? '–');
      setText(
        tempo,
        typeof state?.tempo === 'number' ? `♩ = ${Math.round(state.tempo * 10) / 10} (× ${state.rate})` : '–',
      );
    },
  };
}

/** @typedef {ReturnType<typeof createPositionReadout>} PositionReadout */
