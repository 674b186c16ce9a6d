// The rose's motion (ZScore's audience page, zsweb adncUnionRose.js): the view zooms on the inner
// rings (`layout.zoom`, eased over 3 s), a dark disc over the rose fades in or out (`stage:
// { alpha, glide }`), rings swing back into place from a slice's turn, alternately clockwise and
// anticlockwise (`spin: { rings, at }`, 2 s; also the ring of a tile tapped while it cannot be
// chosen, as on ZScore's page). The state says where things end; this module remembers when each
// change was seen, so that a redraw in the middle of a move carries on from where it is. A page
// that loads in the middle of the piece shows the end of every move; with prefers-reduced-motion
// the zoom and the swings are not animated (the fade is kept: nothing moves).

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

/**
 * The disc over the rose: its opacity (0 clear, 1 dark) and fade time, or null when the score has none.
 * @param {any} cue
 * @returns {{ alpha: number, glide: number } | null}
 */
export function stageOf(cue) {
  const s = cue?.stage;
  if (!s || typeof s !== 'object' || typeof s.alpha !== 'number' || !(s.alpha >= 0 && s.alpha <= 1)) return null;
  const glide = typeof s.glide === 'number' && s.glide > 0 ? Math.min(s.glide, 600_000) : 0;
  return { alpha: s.alpha, glide };
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
     * names. Returns what is moving now.
     * @param {{ radius: number, alpha: number | null, glide: number, spin: { rings: number[], key: string } | null }} target
     * @returns {Moves}
     */
    update({ radius, alpha, glide, spin }) {
      const t = now();
      const still = reduced();
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
