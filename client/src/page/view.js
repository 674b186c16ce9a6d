// Renders the connection's state into the page. Plain DOM: the page is a handful of elements.

import { statusWords } from './status-line.js';
import { instructionLines, showFittedLines } from './fit-lines.js';
import { sectionOf, sectionWords } from '../console/section-words.js';
import { loopLabel } from '../../../core/loop.js';

/** Shown where a value is not known yet. */
const UNKNOWN = '–';

const PLAYBACK_STATES = new Set(['playing', 'paused', 'stopped']);

/**
 * @typedef {object} View
 * @property {(source: { state: any, epoch: string | null, seq: number }) => void} renderState
 * @property {(pos: import('../time/beat-clock.js').Position) => void} renderPosition bar, beat and
 *   count-in as the beat clock shows them (on the server's time, not on arrival)
 * @property {(source: { linkState: string, transport: string }) => void} renderLink
 * @property {(title: string) => void} setFallbackTitle title to show until the state has one
 * @property {(state: import('../time/join-gate.js').JoinState) => void} renderJoin whether the page is
 *   still measuring its clock (joining: no beat shown), or shows beats on time (or approximately)
 */

/**
 * Bind to the elements of index.html.
 * @param {Document} doc
 * @param {string} viewName the cue of `state.cues[viewName]` is shown
 * @param {{ debug?: boolean }} [options] show the transport and the held position
 * @returns {View}
 */
export function createView(doc, viewName, { debug = false } = {}) {
  /** @param {string} id */
  const el = (id) => {
    const found = doc.getElementById(id);
    if (!found) throw new Error(`createView: #${id} is missing from index.html`);
    return found;
  };
  const title = el('title');
  const composer = doc.getElementById('composer');
  const bar = el('bar');
  const mark = el('mark');
  const loop = el('loop');
  const beat = el('beat');
  const playbackState = el('playback-state');
  const cue = el('cue');
  const cueText = el('cue-text');
  const link = el('link');
  const via = el('via');
  const seq = el('seq');
  const countIn = el('count-in');
  const joining = el('joining');
  const section = doc.getElementById('section');
  const sectionNow = doc.getElementById('section-now');
  const sectionNext = doc.getElementById('section-next');
  let fallbackTitle = '';
  /** @type {any} */
  let lastState = null;

  el('view-name').textContent = viewName;
  el('diagnostics').hidden = !debug;

  /** @param {any} state */
  const renderTitle = (state) => {
    const text = typeof state?.score?.title === 'string' ? state.score.title : fallbackTitle;
    setText(title, text || 'scorecast');
    doc.title = text ? `${text} · scorecast` : 'scorecast';
    const by = typeof state?.score?.composer === 'string' ? state.score.composer : '';
    if (composer) {
      setText(composer, by);
      composer.hidden = by === '';
    }
  };

  return {
    renderState({ state, epoch, seq: held }) {
      lastState = state;
      renderTitle(state);
      const ts = PLAYBACK_STATES.has(state?.playback) ? state.playback : UNKNOWN;
      setText(playbackState, ts);
      playbackState.dataset.state = ts;
      // The rehearsal mark in force, boxed as on the page ("C").
      const markName = typeof state?.mark === 'string' ? state.mark : '';
      setText(mark, markName);
      if (mark.hidden !== (markName === '')) mark.hidden = markName === '';
      // The passage looped, and which time round ("loop 40-48, 3rd time").
      const looped = loopLabel(state?.loop);
      setText(loop, looped);
      if (loop.hidden !== (looped === '')) loop.hidden = looped === '';
      const c = state?.cues?.[viewName];
      const text = typeof c?.text === 'string' ? c.text : '';
      // The audience's instructions: up to three lines, each fitted to the phone's width.
      if (viewName === 'audience') {
        if (cueText.textContent !== instructionLines(text).join('\n')) showFittedLines(cueText, text);
      } else setText(cueText, text);
      // Colours come from the score; a value the browser does not understand is ignored by it.
      // In the audience view the whole page takes the cue's colours (a phone is one pixel of a
      // hall full of them); elsewhere only the cue box does.
      const painted = viewName === 'audience' ? doc.body : cue;
      painted.style.color = typeof c?.color === 'string' ? c.color : '';
      painted.style.background = typeof c?.background === 'string' ? c.background : '';
      setText(seq, epoch === null ? UNKNOWN : `${epoch}:${held}`);
      // An open-form piece: the section playing and what follows (who chooses, or the choice).
      const s = sectionOf(state?.section);
      if (section && sectionNow && sectionNext) {
        if (section.hidden !== (s === null)) section.hidden = s === null;
        const words = s ? sectionWords(s) : { now: '', next: '' };
        setText(sectionNow, words.now);
        setText(sectionNext, words.next);
      }
    },
    renderPosition(pos) {
      setText(bar, numberText(pos.bar));
      setText(beat, numberText(pos.beatInBar));
      const counting = pos.count > 0;
      if (countIn.hidden === counting) countIn.hidden = !counting;
      setText(countIn, counting ? String(pos.count) : '');
      doc.body.dataset.counting = String(counting);
    },
    renderLink({ linkState, transport }) {
      setText(link, statusWords(linkState));
      link.dataset.state = linkState;
      setText(via, transport);
    },
    renderJoin(state) {
      doc.body.dataset.timing = state;
      joining.hidden = state !== 'joining';
    },
    setFallbackTitle(text) {
      fallbackTitle = text;
      renderTitle(lastState);
    },
  };
}

/**
 * @param {unknown} n
 * @returns {string}
 */
function numberText(n) {
  return typeof n === 'number' && Number.isFinite(n) ? String(n) : UNKNOWN;
}

/**
 * Write only on change: beats arrive several times a second, and unchanged text need not be
 * laid out again (nor re-announced by a screen reader).
 * @param {HTMLElement} node
 * @param {string} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
