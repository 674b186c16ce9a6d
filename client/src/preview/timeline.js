// The composer's scrubber: the whole piece as one bar, beats spaced evenly, with the bars, the
// time signature and tempo changes, the cues and the vote windows marked and the playhead moving.
// Click or drag seeks to the nearest barline (Shift: to the beat); from the keyboard the arrows
// step a bar (Shift: a beat), Home and End go to the first and last bar.

/** @typedef {{ bar: number, beat: number, time?: string, first?: number }} TimelineBar */
/**
 * @typedef {object} Timeline  as GET /api/score/timeline answers (server/package/routes.js)
 * @property {number} beats
 * @property {TimelineBar[]} bars
 * @property {{ beat: number, bpm: number }[]} tempo
 * @property {{ beat: number, view: string, kind: 'set' | 'audio' | 'vote', text?: string, close?: number }[]} cues
 * @property {{ name: string, beat: number }[]} [marks]  rehearsal marks, every playing
 */

/** Most bar numbers written under the track; more would run into each other. */
const MAX_BAR_LABELS = 40;
/** Keyboard steps taken within this time build on each other, not on the (late) position. */
const KEY_CHAIN_MS = 1000;

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
 */
export function createTimeline(root, { onSeek }) {
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
  ghost.hidden = true;
  cues.setAttribute('aria-hidden', 'true');
  labels.setAttribute('aria-hidden', 'true');
  track.id = 'scrubber';
  track.tabIndex = 0;
  track.setAttribute('role', 'slider');
  track.setAttribute('aria-label', 'Position in the piece');
  track.setAttribute('aria-valuemin', '0');
  track.append(marks, played, head);
  const box = div('div', 'tl');
  box.append(cues, track, labels, ghost);
  root.replaceChildren(box);

  /** @type {Timeline | null} */
  let timeline = null;
  let shown = 0;
  /** @type {{ beat: number, at: number } | null} */
  let keyTarget = null;

  /** @param {number} beat @param {HTMLElement} node */
  const place = (beat, node) => {
    node.style.left = `${(100 * beat) / (timeline?.beats || 1)}%`;
  };

  /** @param {Timeline} t */
  function draw(t) {
    const step = [1, 2, 4, 5, 10, 20, 50, 100, 200, 500].find((s) => t.bars.length / s <= MAX_BAR_LABELS) ?? 1000;
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
      mark.textContent = texts.join(' ');
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
  box.addEventListener('pointerdown', (e) => {
    if (!timeline || e.button !== 0) return;
    dragging = true;
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
    onSeek(beatOfPointer(e));
  });
  box.addEventListener('pointercancel', () => {
    dragging = false;
    ghost.hidden = true;
  });
  track.addEventListener('keydown', (e) => {
    if (!timeline || e.altKey || e.ctrlKey || e.metaKey) return;
    const from = keyTarget && performance.now() - keyTarget.at < KEY_CHAIN_MS ? keyTarget.beat : shown;
    const to = beatForKey(timeline, from, e.key, e.shiftKey);
    if (to === null) return;
    e.preventDefault();
    keyTarget = { beat: to, at: performance.now() };
    onSeek(to);
  });

  return {
    /**
     * Where a beat is, in words ("Bar 9, beat 1").
     * @param {number} beat
     */
    describe: (beat) => (timeline ? describe(timeline, beat) : `Beat ${beat}`),
    /** @param {Timeline} t the piece (again, after a reload) */
    set(t) {
      if (!(t && t.beats > 0 && Array.isArray(t.bars) && t.bars.length > 0)) return;
      timeline = t;
      draw(t);
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
      const x = `${(100 * (beat + fraction)) / timeline.beats}%`;
      head.style.left = x;
      played.style.width = x;
    },
  };
}
