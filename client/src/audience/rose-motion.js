// The rose's motion (ZScore's audience page, zsweb adncUnionRose.js): the view zooms on the inner
// rings (`layout.zoom`, eased over 3 s), a dark disc over the rose fades in or out (`stage:
// { alpha, glide }`), rings swing back into place from a slice's turn, alternately clockwise and
// anticlockwise (`spin: { rings, at }`, 2 s; also the ring of a tile tapped while it cannot be
// chosen, as on ZScore's page). The state says where things end; this module remembers when each
// change was seen, so that a redraw in the middle of a move carries on from where it is. A page
// that lands somewhere (it loads mid-piece, the conductor seeks, the server restarts) shows the
// rose as it is at that beat: a move that began before it and is over is shown ended, one still
// under way (its cue says from where and on which beat: `stage.from`/`stage.at`,
// `layout.zoomFrom`/`layout.zoomAt`, `spin.at`) is shown where it is and plays its rest; nothing
// is animated through from the picture before the jump. With prefers-reduced-motion the zoom and
// the swings are not animated (the fade is kept: nothing moves).

/** ZScore's zoom and swing times. */
export const ZOOM_MS = 3000;
export const SPIN_MS = 2000;

/**
 * The zoom of a cue's layout: rings shown from the centre, or null (automatic).
 * @param {unknown} layout
 * @param {number} rings
 */
export function zoomOf(layout, rings) {
  const z = layout && typeof layout === 'object' ? /** @type {{ zoom?: unknown }} */ (layout).zoom : undefined;
  return Number.isInteger(z) && /** @type {number} */ (z) >= 1 ? Math.min(/** @type {number} */ (z), rings) : null;
}

/** @param {unknown} v */
const beatOf = (v) => (Number.isInteger(v) && /** @type {number} */ (v) >= 0 ? /** @type {number} */ (v) : null);

/**
 * Where a cue's zoom began: the rings shown before it (null: automatic, or not said) and its
 * beat (null: not said).
 * @param {unknown} layout
 * @param {number} rings
 * @returns {{ from: number | null, at: number | null }}
 */
export function zoomStartOf(layout, rings) {
  const l =
    layout && typeof layout === 'object' ? /** @type {{ zoomFrom?: unknown, zoomAt?: unknown }} */ (layout) : {};
  return { from: zoomOf({ zoom: l.zoomFrom }, rings), at: beatOf(l.zoomAt) };
}

/**
 * The disc over the rose: its opacity (0 clear, 1 dark) and fade time, and where the fade began
 * (`from` opacity, beat `at`; null when not said), or null when the score has none.
 * @param {any} cue
 * @returns {{ alpha: number, glide: number, from: number | null, at: number | null } | null}
 */
export function stageOf(cue) {
  const s = cue?.stage;
  if (!s || typeof s !== 'object' || typeof s.alpha !== 'number' || !(s.alpha >= 0 && s.alpha <= 1)) return null;
  const glide = typeof s.glide === 'number' && s.glide > 0 ? Math.min(s.glide, 600_000) : 0;
  const from = typeof s.from === 'number' && s.from >= 0 && s.from <= 1 ? s.from : null;
  return { alpha: s.alpha, glide, from, at: beatOf(s.at) };
}

/**
 * Did the performance land on its beat rather than step to it: the first state, another epoch,
 * or a beat that is neither the one after the last drawn nor the one that was announced next (a
 * seek, a restart, a late join). A vote's jump is announced, so it is a step.
 * @param {{ epoch: string | null, state: any } | null} before  what was drawn last
 * @param {{ epoch: string | null, state: any }} now
 */
export function landed(before, now) {
  if (!before?.state || before.epoch !== now.epoch) return true;
  const b = now.state?.beat;
  const was = before.state.beat;
  return b !== was && b !== was + 1 && b !== before.state.next?.beat;
}

/**
 * Milliseconds since beat `beat` sounded, at server time `serverNow` (at the current tempo; at
 * the beat's start while not playing), or null when the state cannot say.
 * @param {any} state
 * @param {number} beat
 * @param {number} serverNow
 */
export function msSinceBeat(state, beat, serverNow) {
  if (typeof state?.beat !== 'number' || !(typeof state.tempo === 'number' && state.tempo > 0)) return null;
  const inBeat =
    state.playback === 'playing' && typeof state.beatT === 'number' ? Math.max(0, serverNow - state.beatT) : 0;
  return ((state.beat - beat) * 60000) / state.tempo + inBeat;
}

/**
 * The rings a cue swings and what tells this swing from the last, or null.
 * @param {any} cue
 * @param {number} rings
 * @returns {{ rings: number[], key: string } | null}
 */
export function spinOf(cue, rings) {
  const s = cue?.spin;
  if (!s || typeof s !== 'object' || !Array.isArray(s.rings)) return null;
  /** @type {number[]} */
  const list = s.rings.filter((/** @type {any} */ r) => Number.isInteger(r) && r >= 1 && r <= rings);
  return list.length ? { rings: list, key: JSON.stringify([list, s.at ?? null]) } : null;
}

/**
 * The angle (degrees) a ring swings from: one slice, clockwise for odd rings, anticlockwise for
 * even ones (ZScore alternates the direction ring by ring).
 * @param {number} ring @param {number} slices
 */
export function spinFrom(ring, slices) {
  return (ring % 2 === 1 ? 1 : -1) * (360 / slices);
}

/** Ease-out (cubic), as ZScore's zoom eases: fast at first, settling at the end. @param {number} p */
export const easeOut = (p) => 1 - (1 - p) ** 3;

/**
 * @typedef {{ from: number, to: number, start: number, ms: number }} Tween
 * @typedef {object} Moves  what to animate now, each with the time already run (ms)
 * @property {{ from: number, to: number, elapsed: number, ms: number } | null} zoom  view radius
 * @property {{ from: number, to: number, elapsed: number, ms: number } | null} stage  disc opacity
 * @property {{ ring: number, elapsed: number, ms: number }[]} spins
 */

/**
 * Where the moves the cue names began, for a page that lands (`landed`): the zoom's radius before
 * and the time since each move began (ms; null: not said, the move is shown ended).
 * @typedef {object} Landing
 * @property {number | null} zoomFrom  the view's radius before the zoom
 * @property {number | null} zoomSince
 * @property {number | null} alphaFrom  the disc's opacity before the fade
 * @property {number | null} stageSince
 * @property {number | null} spinSince
 */

/**
 * Remember the rose's moves between redraws.
 * @param {{ now: () => number, reduced?: () => boolean }} options  reduced: prefers-reduced-motion
 */
export function createRoseMotion({ now, reduced = () => false }) {
  /** @type {Tween | null} */
  let zoom = null;
  /** @type {Tween | null} */
  let stage = null;
  let lastRadius = /** @type {number | null} */ (null);
  let lastAlpha = /** @type {number | null} */ (null);
  let lastSpin = /** @type {string | null} */ (null);
  /** @type {Map<number, number>} ring -> when its swing started */
  const spins = new Map();

  /** @param {Tween | null} t @param {number} at @param {(p: number) => number} ease */
  const valueAt = (t, at, ease) => (t ? t.from + (t.to - t.from) * ease(Math.min(1, (at - t.start) / t.ms)) : null);

  return {
    /**
     * The state to draw: the view's radius, the disc's opacity (null: none), the swing the cue
     * names. Returns what is moving now. With `landing`, the page landed on this picture: each
     * move is where it is at this beat, not animated from the picture before.
     * @param {{ radius: number, alpha: number | null, glide: number, spin: { rings: number[], key: string } | null }} target
     * @param {Landing | null} [landing]
     * @returns {Moves}
     */
    update({ radius, alpha, glide, spin }, landing = null) {
      const t = now();
      const still = reduced();
      if (landing) {
        /** @param {number | null} since @param {number} ms */
        const under = (since, ms) => since !== null && since >= 0 && since < ms;
        const { zoomFrom, zoomSince, alphaFrom, stageSince, spinSince } = landing;
        zoom =
          !still && zoomFrom !== null && zoomFrom !== radius && under(zoomSince, ZOOM_MS)
            ? { from: zoomFrom, to: radius, start: t - /** @type {number} */ (zoomSince), ms: ZOOM_MS }
            : null;
        stage =
          alpha !== null && alphaFrom !== null && alphaFrom !== alpha && under(stageSince, glide)
            ? { from: alphaFrom, to: alpha, start: t - /** @type {number} */ (stageSince), ms: glide }
            : null;
        spins.clear();
        if (spin && !still && under(spinSince, SPIN_MS))
          for (const r of spin.rings) spins.set(r, t - /** @type {number} */ (spinSince));
        lastRadius = radius;
        lastAlpha = alpha;
        lastSpin = spin?.key ?? '';
        return this.moves();
      }
      if (lastRadius !== null && radius !== lastRadius && !still) {
        const from = valueAt(zoom, t, easeOut) ?? lastRadius;
        zoom = { from, to: radius, start: t, ms: ZOOM_MS };
      } else if (radius !== lastRadius || still) zoom = null;
      lastRadius = radius;
      if (alpha !== null && lastAlpha !== null && alpha !== lastAlpha && glide > 0) {
        const from = valueAt(stage, t, (p) => p) ?? lastAlpha;
        stage = { from, to: alpha, start: t, ms: glide };
      } else if (alpha !== lastAlpha) stage = null;
      lastAlpha = alpha;
      // A swing seen when the page loads has happened already; a new one starts now.
      if (spin && spin.key !== lastSpin && lastSpin !== null && !still) for (const r of spin.rings) spins.set(r, t);
      lastSpin = spin?.key ?? '';
      return this.moves();
    },
    /** Whether the page asks for reduced motion. */
    reduced,
    /** Swing one ring now (a tap on a tile that cannot be chosen). @param {number} ring */
    poke(ring) {
      if (!reduced()) spins.set(ring, now());
      return this.moves();
    },
    /** @returns {Moves} */
    moves() {
      const t = now();
      if (zoom && t - zoom.start >= zoom.ms) zoom = null;
      if (stage && t - stage.start >= stage.ms) stage = null;
      for (const [r, s] of spins) if (t - s >= SPIN_MS) spins.delete(r);
      return {
        zoom: zoom && { from: zoom.from, to: zoom.to, elapsed: t - zoom.start, ms: zoom.ms },
        stage: stage && { from: stage.from, to: stage.to, elapsed: t - stage.start, ms: stage.ms },
        spins: [...spins].map(([ring, s]) => ({ ring, elapsed: t - s, ms: SPIN_MS })),
      };
    },
  };
}
