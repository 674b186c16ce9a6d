// The timeline of the piece, shared by the composer preview's scrubber and the conductor's console
// (conduct/timeline-panel.js): the whole piece as one bar, beats spaced evenly, with the bars, the
// rehearsal marks, the time signature and tempo changes, the cues and the vote windows marked, the
// loop region shaded and the playhead moving. Click or drag chooses the nearest barline (Shift:
// the beat), a click on a rehearsal mark's label the mark; from the keyboard the arrows step a bar
// (Shift: a beat), Home and End go to the first and last bar. What is chosen goes to `onSeek`
// (`onMark`); the console may ask before it jumps, and marks the bar chosen meanwhile (`choose`).
// An open-form piece (the state's `section`) also shows its sections in the order taken so far,
// and the one chosen next, under the track (`setSection`): the bars above are the declared order.

/** @typedef {{ bar: number, beat: number, time?: string, first?: number }} TimelineBar */
/**
 * @typedef {object} Timeline  as GET /api/score/timeline answers (server/package/routes.js)
 * @property {number} beats
 * @property {TimelineBar[]} bars
 * @property {{ beat: number, bpm: number }[]} tempo
 * @property {{ beat: number, view: string, kind: 'set' | 'audio' | 'vote', text?: string, close?: number }[]} cues
 * @property {{ name: string, beat: number }[]} [marks]  rehearsal marks, every playing
 */

import { whoWords } from './section-words.js';

/**
 * A section in the order taken: played before, playing now, or chosen to come next.
 * @typedef {{ id: string, name: string, by: string, at: 'played' | 'now' | 'next' }} OrderStep
 */

/**
 * The sections of an open-form piece in the order taken, from the state's `section` (its `order`,
 * the latest sections taken, the last of them the one playing, and its `chosen`): the steps
 * played, the one playing and the one chosen next. None for a state without sections.
 * @param {unknown} section  the state's `section`
 * @returns {OrderStep[]}
 */
export function orderTaken(section) {
  const s = /** @type {any} */ (section);
  if (!s || typeof s !== 'object' || !Array.isArray(s.order)) return [];
  /** @type {OrderStep[]} */
  const steps = s.order
    .filter((/** @type {any} */ o) => o && typeof o.section === 'string')
    .map((/** @type {any} */ o, /** @type {number} */ i, /** @type {any[]} */ all) => ({
      id: o.section,
      name: typeof o.name === 'string' ? o.name : o.section,
      by: typeof o.by === 'string' ? o.by : '',
      at: i === all.length - 1 ? 'now' : 'played',
    }));
  const chosen = s.chosen;
  if (chosen && typeof chosen.section === 'string') {
    const option = Array.isArray(s.options) ? s.options.find((/** @type {any} */ o) => o?.id === chosen.section) : null;
    const name = typeof option?.name === 'string' ? option.name : chosen.section === 'end' ? 'End' : chosen.section;
    steps.push({ id: chosen.section, name, by: typeof chosen.by === 'string' ? chosen.by : '', at: 'next' });
  }
  return steps;
}

/**
 * The order taken once the piece has ended (the state drops its `section`): every step played,
 * nothing to come.
 * @param {OrderStep[]} steps
 * @returns {OrderStep[]}
 */
export function orderEnded(steps) {
  return steps.filter((x) => x.at !== 'next').map((x) => ({ ...x, at: 'played' }));
}

/** Most bar numbers written under the track; more would run into each other. */
const MAX_BAR_LABELS = 40;
/** The room a bar number needs under the track (px): a narrow track (a phone) writes fewer. */
const BAR_LABEL_PX = 28;
/** Keyboard steps taken within this time build on each other, not on the (late) position. */
const KEY_CHAIN_MS = 1000;
/** How long a key's target not yet shown is still gone on from (a seek that never lands is let go). */
const KEY_PENDING_MS = 5000;

/**
 * Index of the bar holding `beat` (the last bar starting at or before it).
 * @param {TimelineBar[]} bars  in performance order
 * @param {number} beat
 */
export function barIndexAt(bars, beat) {
  let lo = 0;
  let hi = bars.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bars[mid].beat <= beat) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Bar and beat in the bar of a global beat index.
 * @param {Timeline} t
 * @param {number} beat
 */
export function positionOf(t, beat) {
  const b = t.bars[barIndexAt(t.bars, beat)];
  return { bar: b.bar, beatInBar: (b.first ?? 1) + beat - b.beat };
}

/**
 * The beat a pointer at `fraction` (0..1) of the track asks for.
 * @param {Timeline} t
 * @param {number} fraction
 * @param {boolean} exact  the beat under the pointer; else the nearest barline
 */
export function beatAtFraction(t, fraction, exact) {
  const x = Math.min(Math.max(fraction, 0), 1) * t.beats;
  if (exact) return Math.min(Math.floor(x), t.beats - 1);
  const i = barIndexAt(t.bars, x);
  const next = t.bars[i + 1];
  return next && next.beat - x < x - t.bars[i].beat ? next.beat : t.bars[i].beat;
}

/**
 * Where a key sends the position from `beat`, or null for a key the scrubber does not use.
 * @param {Timeline} t
 * @param {number} beat
 * @param {string} key  KeyboardEvent.key
 * @param {boolean} shift
 * @returns {number | null}
 */
export function beatForKey(t, beat, key, shift) {
  const last = t.beats - 1;
  const forward = key === 'ArrowRight' || key === 'ArrowUp';
  const back = key === 'ArrowLeft' || key === 'ArrowDown';
  if (key === 'Home') return 0;
  if (key === 'End') return t.bars[t.bars.length - 1].beat;
  if (!forward && !back) return null;
  if (shift) return Math.min(Math.max(beat + (forward ? 1 : -1), 0), last);
  const i = barIndexAt(t.bars, beat);
  // Back from inside a bar goes to its barline, as a player restarts a bar.
  if (back) return t.bars[t.bars[i].beat < beat ? i : Math.max(i - 1, 0)].beat;
  return t.bars[Math.min(i + 1, t.bars.length - 1)].beat;
}

/**
 * @param {Timeline} t
 * @param {number} beat
 */
const describe = (t, beat) => {
  const p = positionOf(t, beat);
  return `Bar ${p.bar}, beat ${p.beatInBar}`;
};

/**
 * @param {HTMLElement} root  the scrubber draws into it
 * @param {object} o
 * @param {(beat: number) => void} o.onSeek
 * @param {(name: string, beat: number) => void} [o.onMark]  a mark's label clicked (without it,
 *   the click chooses the barline under it, as anywhere else)
 */
export function createTimeline(root, { onSeek, onMark }) {
  const doc = root.ownerDocument;
  /** @type {(tag: string, cls: string) => HTMLElement} */
  const div = (tag, cls) => {
    const node = doc.createElement(tag);
    node.className = cls;
    return node;
  };
  const cues = div('div', 'tl-cues');
  const track = div('div', 'tl-track');
  const marks = div('div', 'tl-marks');
  const played = div('div', 'tl-played');
  const head = div('div', 'tl-head');
  const ghost = div('div', 'tl-ghost');
  const labels = div('div', 'tl-labels');
  const loop = div('div', 'tl-loop');
  const target = div('div', 'tl-target');
  const order = div('ol', 'tl-order');
  order.setAttribute('aria-label', 'Sections in the order taken');
  order.hidden = true;
  ghost.hidden = true;
  loop.hidden = true;
  target.hidden = true;
  cues.setAttribute('aria-hidden', 'true');
  labels.setAttribute('aria-hidden', 'true');
  track.id = 'scrubber';
  track.tabIndex = 0;
  track.setAttribute('role', 'slider');
  track.setAttribute('aria-label', 'Position in the piece');
  track.setAttribute('aria-valuemin', '0');
  track.append(marks, loop, played, target, head);
  const box = div('div', 'tl');
  box.append(cues, track, labels, ghost);
  root.replaceChildren(box, order);
  /** The order taken as drawn. @type {OrderStep[]} */
  let steps = [];

  /** @type {Timeline | null} */
  let timeline = null;
  let shown = 0;
  /**
   * The beat the last key went to, when it was pressed (the event's time), when it was handled,
   * and whether the playhead has shown it yet.
   * @type {{ beat: number, at: number, asked: number, landed: boolean } | null}
   */
  let keyTarget = null;
  /** The track's width the labels were written for. */
  let drawnFor = 0;
  // A track that changes width (a tablet turned, a window resized) writes its bar numbers again.
  if (typeof ResizeObserver !== 'undefined')
    new ResizeObserver(() => {
      if (timeline && track.clientWidth !== drawnFor) draw(timeline);
    }).observe(track);
  /** The loop asked for last (drawn once the piece is known). @type {{ start?: unknown, end?: unknown } | null} */
  let loopAsked = null;

  /** @param {number} beat @param {HTMLElement} node */
  const place = (beat, node) => {
    node.style.left = `${(100 * beat) / (timeline?.beats || 1)}%`;
  };

  /** @param {Timeline} t */
  function draw(t) {
    const width = track.clientWidth;
    const most = width > 0 ? Math.max(2, Math.min(MAX_BAR_LABELS, Math.floor(width / BAR_LABEL_PX))) : MAX_BAR_LABELS;
    const step = [1, 2, 4, 5, 10, 20, 50, 100, 200, 500].find((s) => t.bars.length / s <= most) ?? 1000;
    drawnFor = width;
    marks.replaceChildren();
    labels.replaceChildren();
    cues.replaceChildren();
    t.bars.forEach((b, i) => {
      const tick = div('span', 'tl-bar');
      tick.dataset.bar = String(b.bar);
      tick.dataset.beat = String(b.beat);
      place(b.beat, tick);
      marks.append(tick);
      if (i === 0 || b.bar % step === 0) {
        const label = div('span', 'tl-bar-label');
        label.textContent = String(b.bar);
        place(b.beat, label);
        labels.append(label);
      }
    });
    // Sections, as the notation marks them: rehearsal marks (boxed in the views: [C] here), time
    // signature and tempo changes.
    /** @type {Map<number, string[]>} */
    const changes = new Map();
    const add = (/** @type {number} */ beat, /** @type {string} */ text) =>
      changes.set(beat, [...(changes.get(beat) ?? []), text]);
    for (const m of t.marks ?? []) add(m.beat, `[${m.name}]`);
    for (const b of t.bars) if (b.time) add(b.beat, b.time);
    for (const s of t.tempo) add(s.beat, `♩ = ${Math.round(s.bpm * 10) / 10}`);
    for (const [beat, texts] of changes) {
      const mark = div('span', 'tl-section');
      const named = (t.marks ?? []).find((m) => m.beat === beat);
      // The mark first; the time and tempo after it give way on a narrow track (timeline.css).
      const first = named ? 1 : 0;
      const more = div('span', 'tl-section-more');
      more.textContent = `${first > 0 && texts.length > 1 ? ' ' : ''}${texts.slice(first).join(' ')}`;
      mark.append(...(first > 0 ? [texts[0]] : []), more);
      if (named) {
        mark.dataset.mark = named.name;
        mark.dataset.beat = String(beat);
      }
      place(beat, mark);
      labels.append(mark);
    }
    // One marker per beat and kind; its tooltip lists what happens there.
    /** @type {Map<string, { beat: number, kind: string, lines: string[], close?: number }>} */
    const groups = new Map();
    for (const c of t.cues) {
      const key = `${c.beat}|${c.kind}`;
      const g = groups.get(key) ?? { beat: c.beat, kind: c.kind, lines: [] };
      g.lines.push(
        `${c.view}: ${c.kind === 'audio' ? 'sound' : c.kind === 'vote' ? 'vote opens' : (c.text ?? 'changes')}`,
      );
      if (c.close !== undefined) g.close = c.close;
      groups.set(key, g);
    }
    for (const g of groups.values()) {
      if (g.kind === 'vote' && g.close !== undefined) {
        const span = div('span', 'tl-vote');
        place(g.beat, span);
        span.style.width = `${(100 * (g.close - g.beat)) / t.beats}%`;
        cues.append(span);
      }
      const mark = div('span', `tl-cue tl-cue-${g.kind}`);
      mark.dataset.kind = g.kind;
      mark.dataset.beat = String(g.beat);
      mark.title = `${describe(t, g.beat)}\n${g.lines.join('\n')}`;
      place(g.beat, mark);
      cues.append(mark);
    }
    track.setAttribute('aria-valuemax', String(t.beats - 1));
  }

  /** @param {PointerEvent} e */
  const beatOfPointer = (e) => {
    const r = track.getBoundingClientRect();
    return timeline ? beatAtFraction(timeline, (e.clientX - r.left) / r.width, e.shiftKey) : 0;
  };
  /** @param {number} beat */
  const showGhost = (beat) => {
    if (!timeline) return;
    ghost.hidden = false;
    ghost.textContent = describe(timeline, beat);
    place(beat, ghost);
  };

  let dragging = false;
  /** The mark whose label the pointer went down on, with the beat under the pointer then. */
  /** @type {{ name: string, beat: number, at: number } | null} */
  let downOnMark = null;
  box.addEventListener('pointerdown', (e) => {
    if (!timeline || e.button !== 0) return;
    dragging = true;
    const label = /** @type {HTMLElement | null} */ (
      e.target instanceof Element ? e.target.closest('.tl-section[data-mark]') : null
    );
    downOnMark =
      onMark && label?.dataset.mark
        ? { name: label.dataset.mark, beat: Number(label.dataset.beat), at: beatOfPointer(e) }
        : null;
    box.setPointerCapture(e.pointerId);
    track.focus({ preventScroll: true });
    showGhost(beatOfPointer(e));
    e.preventDefault();
  });
  box.addEventListener('pointermove', (e) => {
    if (dragging) showGhost(beatOfPointer(e));
  });
  box.addEventListener('pointerup', (e) => {
    if (!dragging) return;
    dragging = false;
    ghost.hidden = true;
    const beat = beatOfPointer(e);
    // A click on a mark's label (not a drag from it) chooses the mark.
    if (downOnMark && onMark && downOnMark.at === beat) onMark(downOnMark.name, downOnMark.beat);
    else onSeek(beat);
    downOnMark = null;
  });
  box.addEventListener('pointercancel', () => {
    dragging = false;
    ghost.hidden = true;
  });
  track.addEventListener('keydown', (e) => {
    if (!timeline || e.altKey || e.ctrlKey || e.metaKey) return;
    // A key goes on from the last key's target while that is recent by when each key was pressed
    // (the event's time: a busy page can handle two quick presses over KEY_CHAIN_MS apart), or
    // while the playhead has not shown it yet (a key sent only once the page took the last, as a
    // remote or a test sends them, is pressed late too): otherwise the second press went from the
    // position shown, which the first had not moved yet (two presses, one bar).
    const pending = keyTarget && !keyTarget.landed && performance.now() - keyTarget.asked < KEY_PENDING_MS;
    const from = keyTarget && (pending || e.timeStamp - keyTarget.at < KEY_CHAIN_MS) ? keyTarget.beat : shown;
    const to = beatForKey(timeline, from, e.key, e.shiftKey);
    if (to === null) return;
    e.preventDefault();
    keyTarget = { beat: to, at: e.timeStamp, asked: performance.now(), landed: false };
    onSeek(to);
  });

  return {
    /**
     * Where a beat is, in words ("Bar 9, beat 1").
     * @param {number} beat
     */
    describe: (beat) => (timeline ? describe(timeline, beat) : `Beat ${beat}`),
    /**
     * The loop region (the state's `loop`: its first and last beats), or none.
     * @param {{ start?: unknown, end?: unknown } | null | undefined} l
     */
    setLoop(l) {
      loopAsked = l ?? null;
      const ok = timeline && l && Number.isInteger(l.start) && Number.isInteger(l.end);
      loop.hidden = !ok;
      if (!ok || !timeline) return;
      const [start, end] = [Number(l.start), Number(l.end)];
      place(start, loop);
      loop.style.width = `${(100 * (end + 1 - start)) / timeline.beats}%`;
    },
    /**
     * Mark the beat chosen to go to (waiting for a confirmation), or none.
     * @param {number | null} beat
     */
    choose(beat) {
      target.hidden = beat === null || !timeline;
      if (beat !== null) place(beat, target);
    },
    /**
     * An open-form piece's sections in the order taken (the state's `section`; orderTaken): drawn
     * under the track. When the state drops its section (the piece has ended) the order stays,
     * all of it played, until another piece is set.
     * @param {unknown} section
     */
    setSection(section) {
      const next = section === undefined || section === null ? orderEnded(steps) : orderTaken(section);
      if (JSON.stringify(next) === JSON.stringify(steps)) return;
      steps = next;
      order.hidden = steps.length === 0;
      order.replaceChildren(
        ...steps.map((x) => {
          const li = div('li', `tl-step tl-step-${x.at}`);
          li.dataset.section = x.id;
          li.dataset.at = x.at;
          li.dataset.by = x.by;
          li.textContent = x.at === 'next' ? `next: ${x.name}` : x.name;
          li.title = `${x.name}: ${x.by === 'start' ? 'the start' : x.by === 'seek' ? 'gone to by hand' : `chosen by ${whoWords(x.by)}`}`;
          if (x.at === 'now') li.setAttribute('aria-current', 'step');
          return li;
        }),
      );
    },
    /** @param {Timeline} t the piece (again, after a reload) */
    set(t) {
      if (!(t && t.beats > 0 && Array.isArray(t.bars) && t.bars.length > 0)) return;
      // Another piece (not the same one fetched again for a new epoch): its own order, if any.
      if (timeline !== null && JSON.stringify(t.bars) !== JSON.stringify(timeline.bars)) {
        steps = [];
        order.replaceChildren();
        order.hidden = true;
      }
      timeline = t;
      draw(t);
      this.setLoop(loopAsked);
      this.show(Math.min(shown, t.beats - 1), 0);
    },
    /**
     * Move the playhead.
     * @param {number} beat
     * @param {number} fraction  of that beat gone
     */
    show(beat, fraction) {
      if (!timeline) return;
      if (beat !== shown || !track.hasAttribute('aria-valuenow')) {
        track.setAttribute('aria-valuenow', String(beat));
        track.setAttribute('aria-valuetext', describe(timeline, beat));
      }
      shown = beat;
      // The last key's target shown (or the beat after it: a seek while playing lands, then plays on).
      if (keyTarget && beat >= keyTarget.beat && beat <= keyTarget.beat + 1) keyTarget.landed = true;
      const x = `${(100 * (beat + fraction)) / timeline.beats}%`;
      head.style.left = x;
      played.style.width = x;
    },
  };
}
