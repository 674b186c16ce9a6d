// The motion of ZScore's audience page (zsweb src/js/adncUnionRose.js; szcore
// WebAudienceScoreProcessor.setAction / setStageAlpha, UnionRoseWebAudienceProcessor.setZoomLevel)
// as audience state a phone draws (client/src/audience/rose-motion.js):
// - setZoomLevel(name): ZScore's client eases its SVG viewBox to a named box around the rose's
//   centre over 3 s. Each named box shows the rings inside it, so the name becomes
//   `layout.zoom`: how many rings (from the centre) fill the view.
// - setStageAlpha(alpha, seconds): a dark disc over the rose (opaque when ZScore's page loads)
//   fades to `alpha` over `seconds`: `stage: { alpha, glide: ms, from, at }`, `from` the opacity
//   before and `at` the beat the fade starts (a phone landing mid-fade shows it where it is); a
//   zoom after another also says where it starts (`layout.zoomFrom`, `layout.zoomAt`).
// - setAction('start', 'ROTATE', ['ctg1', 'ctg2']): rings 1 and 2 swing back into place from a
//   slice's turn, alternately clockwise and anticlockwise (2 s): `spin: { rings: [1, 2], at }`,
//   `at` (the beat) telling one spin from the next.
// - setAction('display', 'ACTIVATE', ['selectedTiles'], {duration}): the closing picture, each
//   phone's selected tiles outlined and joined, flying in over `duration` seconds:
//   `showSelected: { at, ms }` (client/src/audience/rose-overlays.js).
// Nothing here is particular to Union Rose: any ZScore piece on the rose page imports so.

/**
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

/**
 * ZScore's named zoom levels as the rings each shows: its client's viewBox for the name, half its
 * width against the radii of its eight rings (55, 92, 125, 194, 291, 401, 552, 750 around 762):
 * centreSmall 62 -> 1, centreShape 102 -> 2, innerCircleSmall 222 -> 4, innerCircle 291 -> 5,
 * outerCircleSmall 412 -> 6; outerCircle and any other name show the whole rose.
 */
const ZOOM_RINGS = /** @type {Record<string, number>} */ ({
  centreSmall: 1,
  centreShape: 2,
  innerCircleSmall: 4,
  innerCircle: 5,
  outerCircleSmall: 6,
});

const RING_GROUP_RE = /^ctg(\d+)$/;

/**
 * The audience-state patch of one motion call, or the reason it has none; null for a call that
 * is not about motion.
 * @param {{ method: string, args: unknown[], at: number }} call
 * @param {number} rings  rings of the rose (the whole view)
 * @returns {{ set: Record<string, unknown>, result: string } | { reason: string } | null}
 */
export function motionOf({ method, args, at }, rings) {
  if (method === 'setZoomLevel') {
    const name = args[0];
    if (typeof name !== 'string' || args.length !== 1) return { reason: 'setZoomLevel takes one zoom level name' };
    const known = ZOOM_RINGS[name];
    const zoom = Math.min(known ?? rings, rings);
    return {
      set: { layout: { zoom } },
      result: `the view zooms to ${zoom === rings ? 'the whole rose' : `ring ${zoom} and the rings inside it`} (layout.zoom: ${zoom})${known === undefined && name !== 'outerCircle' ? `; ZScore shows the whole rose for a zoom level it does not name ("${name}")` : ''}`,
    };
  }
  if (method === 'setStageAlpha') {
    const [alpha, seconds = 0] = args;
    if (typeof alpha !== 'number' || alpha < 0 || alpha > 1 || typeof seconds !== 'number' || seconds < 0)
      return { reason: 'setStageAlpha takes an opacity from 0 to 1 and a fade time in seconds' };
    const glide = Math.round(Math.min(seconds, 600) * 1000);
    return {
      set: { stage: { alpha, glide } },
      result: `the dark disc over the rose fades to ${alpha} over ${glide / 1000} s (stage)`,
    };
  }
  if (method === 'setAction' && args[1] === 'ROTATE') {
    const [id, , targets] = args;
    const ids = Array.isArray(targets) ? targets.map(String) : [];
    const ringsOf = ids.map((t) => Number(RING_GROUP_RE.exec(t)?.[1])).filter((r) => r >= 1 && r <= rings);
    if (id !== 'start' || ringsOf.length === 0 || ringsOf.length !== ids.length)
      return {
        reason:
          "only setAction('start', 'ROTATE', ['ctg<ring>', ...]) (rings of the rose swinging into place) is converted; rotations of single tiles and play lines are moves ZScore's page makes by itself",
      };
    const unique = [...new Set(ringsOf)].sort((a, b) => a - b);
    return {
      set: { spin: { rings: unique, at } },
      result: `ring${unique.length === 1 ? '' : 's'} ${unique.join(', ')} swing into place (spin)`,
    };
  }
  if (method === 'setAction' && args[1] === 'TIMELINE') {
    const drawings = Array.isArray(args[2]) ? args[2].map(String).join(', ') : String(args[2]);
    return {
      reason: `animates ZScore's own drawings over the rose (${drawings}, assembling or exploding): their artwork is drawn inside ZScore's audience page (zsweb src/adncUnionRose.html), not a file of the export, and the export names no file for it, so there is nothing to show`,
    };
  }
  if (method === 'setAction' && args[1] === 'ACTIVATE') {
    const [id, , targets, params] = args;
    const seconds = /** @type {{ duration?: unknown } | undefined} */ (params)?.duration ?? 12;
    if (
      id !== 'display' ||
      !Array.isArray(targets) ||
      targets.length !== 1 ||
      targets[0] !== 'selectedTiles' ||
      typeof seconds !== 'number' ||
      !(seconds >= 0)
    )
      return { reason: "only setAction('display', 'ACTIVATE', ['selectedTiles'], {duration}) is converted" };
    // ZScore's page flies the overlays in over `duration` seconds (12 without one: overlayInDuration).
    const ms = Math.round(Math.min(seconds, 600) * 1000);
    return {
      set: { showSelected: { at, ms } },
      result: `every phone shows the tiles it selected, outlined and joined, flying in over ${ms / 1000} s (showSelected)`,
    };
  }
  if (method === 'setAction' && args[1] === 'DEACTIVATE' && Array.isArray(args[2]) && args[2][0] === 'overlays')
    return { set: { showSelected: null }, result: 'the tiles the phones selected are no longer shown (showSelected)' };
  return null;
}

/**
 * Cues of the motion calls of a score's scripts.
 * @param {TimedCall[]} calls  in beat order
 * @param {number} rings  rings of the rose; 0 when the tiles are not drawn as a rose
 * @returns {{ cues: { at: number, set: Record<string, unknown> }[], converted: ReportItem[], consumed: { source: string, what: string }[], skipped: ReportItem[] }}
 */
export function readMotion(calls, rings) {
  /** @type {{ at: number, set: Record<string, unknown> }[]} */
  const cues = [];
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {{ source: string, what: string }[]} */
  const consumed = [];
  /** @type {ReportItem[]} */
  const skipped = [];
  if (rings === 0) return { cues, converted, consumed, skipped };
  const web = calls.filter((c) => c.kind === 'web');
  // Where each move starts from, so that a phone landing in the middle of one (a seek, a restart)
  // shows it where it is: ZScore's disc starts opaque; the zoom before the first is not known.
  let alpha = 1;
  /** @type {number | null} */
  let zoom = null;
  for (const c of web) {
    const m = motionOf(c, rings);
    if (!m) continue;
    consumed.push({ source: c.source, what: c.text });
    if ('reason' in m) {
      skipped.push({ source: c.source, what: c.text, reason: m.reason });
      continue;
    }
    // ZScore's page loads with the disc opaque (stageAlpha 1): a score that fades it starts dark.
    if (m.set.stage && !cues.some((q) => q.set.stage)) cues.unshift({ at: 0, set: { stage: { alpha: 1, glide: 0 } } });
    let set = m.set;
    const stage = /** @type {{ alpha: number, glide: number } | undefined} */ (set.stage);
    if (stage) {
      if (stage.glide > 0) set = { stage: { ...stage, from: alpha, at: c.at } };
      alpha = stage.alpha;
    }
    const layout = /** @type {{ zoom: number } | undefined} */ (set.layout);
    if (layout) {
      if (zoom !== null && zoom !== layout.zoom) set = { layout: { ...layout, zoomFrom: zoom, zoomAt: c.at } };
      zoom = layout.zoom;
    }
    cues.push({ at: c.at, set });
    converted.push({ source: c.source, what: c.text, result: `cue at beat ${c.at}: ${m.result}` });
  }
  return { cues, converted, consumed, skipped };
}
