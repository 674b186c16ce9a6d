// ZScore's presets as package presets the conductor fires from the console. A ZScore preset is
// the operator's picture of a section (audienceScoreConfig.yml, run by webScore.reset(N) or by
// hand): its instructions, the rose's rows (which are gone, shown, active), the zoom and the
// stage's disc. Those become one merge patch of the audience view; what a browser cannot show of
// it (shapes, sound settings sent again, overlays) stays behind.

import { motionOf } from './motion.js';
import { applyOps, convertWebCalls, parseWebCalls } from './script.js';

/**
 * @typedef {import('./script.js').Preset} Preset
 * @typedef {import('./script.js').Call} Call
 */

/**
 * Merge patch `b` applied after `a`, as one patch.
 * @param {Record<string, unknown>} a @param {Record<string, unknown>} b
 * @returns {Record<string, unknown>}
 */
function compose(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev && typeof prev === 'object' && !Array.isArray(prev) && v && typeof v === 'object' && !Array.isArray(v)
        ? compose(/** @type {Record<string, unknown>} */ (prev), /** @type {Record<string, unknown>} */ (v))
        : v;
  }
  return out;
}

/**
 * The calls of a preset, with the presets it runs (webScore.reset(N)) in their place.
 * @param {Preset} preset
 * @param {Map<number, Preset>} presets
 * @param {number[]} [stack]
 * @returns {Call[]}
 */
function callsOf(preset, presets, stack = []) {
  /** @type {Call[]} */
  const out = [];
  for (const s of preset.scripts) {
    const parsed = parseWebCalls(s.text);
    if (!parsed.ok) continue;
    for (const c of parsed.calls) {
      const inner = c.method === 'reset' && Number.isInteger(c.args[0]) ? presets.get(Number(c.args[0])) : undefined;
      if (inner && !stack.includes(inner.id) && inner.id !== preset.id)
        out.push(...callsOf(inner, presets, [...stack, preset.id]));
      else if (c.method !== 'reset') out.push(c);
    }
  }
  return out;
}

/**
 * @param {unknown} a
 * @returns {number[]}
 */
const rowsOf = (a) => (Array.isArray(a) ? a.filter((r) => Number.isInteger(r) && r >= 1 && r <= 64) : []);

/**
 * The audience patch of a preset, or null when it changes nothing scorecast shows.
 * @param {Preset} preset
 * @param {{ presets: Map<number, Preset>, rings: number, slices: number }} ctx
 *   rings, slices: the rose's (0 when the score has no tiles)
 * @returns {Record<string, unknown> | null}
 */
export function presetPatch(preset, { presets, rings, slices }) {
  /** @type {Record<string, unknown>} */
  let set = {};
  /** Rows on show; a row not in it is removed by the preset. */
  let shown = new Set(Array.from({ length: rings }, (_, k) => k + 1));
  for (const c of callsOf(preset, presets)) {
    const motion = rings > 0 ? motionOf({ method: c.method, args: c.args, at: 0 }, rings) : null;
    if (motion && 'set' in motion) {
      // A preset's swing is the operator's: `at` tells it from the score's own.
      set = compose(set, motion.set.spin ? { spin: { ...motion.set.spin, at: `preset-${preset.id}` } } : motion.set);
      continue;
    }
    if (rings > 0 && /^(setActiveRows|setVisibleRows|deactivateRows)$/.test(c.method)) {
      const rows = rowsOf(c.args[0]).filter((r) => r <= rings);
      if (c.method === 'deactivateRows') for (const r of rows) shown.delete(r);
      if (c.method === 'setVisibleRows') shown = new Set(rows);
      const removed = /** @type {Record<string, { state?: unknown } | undefined>} */ (set.tiles ?? {});
      /** @type {Record<string, unknown>} */
      const tiles = {};
      // A removed row is hidden, not deleted: its tiles keep their words for when the score or
      // another preset shows them again (the score's cue then says their state only).
      for (let r = 1; r <= rings; r++)
        for (let k = 1; k <= slices; k++) {
          const id = `t${r}-${k}`;
          if (!shown.has(r)) tiles[id] = { state: 'hidden' };
          else if (c.method === 'setActiveRows') tiles[id] = { state: rows.includes(r) ? 'lit' : 'dim' };
          else if (removed[id]?.state === 'hidden') tiles[id] = { state: 'dim' };
        }
      set = compose(set, { tiles });
      continue;
    }
    const text = convertWebCalls([c], { source: '', presets: new Map(), used: new Set() });
    if (text.ops.length > 0) set = compose(set, applyOps(text.ops));
  }
  return Object.keys(set).length > 0 ? set : null;
}
