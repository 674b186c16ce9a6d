// The audience's page choices of a ZScore piece (Union Rose): which tiles the audience sees and
// votes for, and which pages the votes choose. Read from the scripts (webScore.setActiveRows,
// deactivateRows, setTileTexts; sce.setRndStrategy), the page strategy (strategyConfig.yml
// `rndStrategy`) and the tile-to-page mapping (`pageRangeMapping`), as szcore does
// (ScoreRandomisationStrategy, UnionRoseWebAudienceProcessor):
// - a page of a range with isRndActive is a slot: ZScore prepares it when the page before it
//   starts, so that is the decision beat; the groups are the last sce.setRndStrategy([..]) by then
//   (ZScore starts with [2]); the pages come from the range's selectionRange;
// - tiles of the active rows stand for pages (pageRangeMapping: row r, columns -> pages in order);
//   between two decisions the audience votes for one of them (scorecast's vote windows: one vote
//   a phone), and the tally picks the pages (core/page-choice.js).
// Nothing here is particular to Union Rose: any export with these scripts and settings imports so.

import { isObject } from '../../../core/values.js';

/**
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

/**
 * @typedef {object} RoseInput
 * @property {TimedCall[]} calls  in beat order
 * @property {{ value: unknown, line: number, file: string } | null} rndStrategy
 * @property {{ value: unknown, line: number, file: string } | null} pageRangeMapping
 * @property {number[]} pageStarts  first beat of each page (0-based page index) of the parts
 * @property {number} totalBeats
 * @property {number[]} [beatStarts]  when each beat starts (ms, ZScore's startTimeMillis): the
 *   playing tiles fade and sweep over their page's length
 */

/**
 * @typedef {object} RoseResult
 * @property {{ at: number, set?: Record<string, unknown>, vote?: Record<string, unknown> }[]} cues
 * @property {import('../../../core/page-choice.js').PageChoice[]} pageChoices  (seed 0)
 * @property {ReportItem[]} converted
 * @property {{ source: string, what: string }[]} consumed  report items that are converted after all
 * @property {string[]} notes
 */

const TILE_RE = /^t(\d+)-(\d+)$/;

/**
 * Page numbers of a list of {start, end} ranges, in order.
 * @param {unknown} ranges
 * @returns {number[]}
 */
function pagesOf(ranges) {
  const list = Array.isArray(ranges) ? ranges : isObject(ranges) ? [ranges] : [];
  /** @type {number[]} */
  const out = [];
  for (const r of list) {
    if (
      !isObject(r) ||
      !Number.isInteger(r.start) ||
      !Number.isInteger(r.end) ||
      r.end < r.start ||
      r.end - r.start > 10_000
    )
      continue;
    for (let p = r.start; p <= r.end; p++) out.push(p);
  }
  return out;
}

/**
 * Sorted pages as [first, last] runs: [1..8, 17..24] -> [[1, 8], [17, 24]].
 * @param {number[]} pages
 * @returns {[number, number][]}
 */
function rangesOf(pages) {
  /** @type {[number, number][]} */
  const out = [];
  for (const p of [...new Set(pages)].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/**
 * @param {RoseInput} input
 * @returns {RoseResult}
 */
export function readRose({ calls, rndStrategy, pageRangeMapping, pageStarts, totalBeats, beatStarts = [] }) {
  /** @type {RoseResult} */
  const result = { cues: [], pageChoices: [], converted: [], consumed: [], notes: [] };
  const tilePage = tilePages(pageRangeMapping, pageStarts.length);
  const layout = tileLayout(calls, tilePage);
  const timeline = readTileTimeline(calls, tilePage, layout, pageLengths(pageStarts, totalBeats, beatStarts), result);
  readPageChoices({ rndStrategy, pageRangeMapping, pageStarts, totalBeats, tilePage, timeline }, result);
  return result;
}

/**
 * Tile -> page, from pageRangeMapping: an RND row's columns take its pages in order.
 * @param {RoseInput['pageRangeMapping']} pageRangeMapping
 * @param {number} pageCount
 */
function tilePages(pageRangeMapping, pageCount) {
  /** @type {Map<string, number>} */
  const tilePage = new Map();
  if (!pageRangeMapping || !Array.isArray(pageRangeMapping.value)) return tilePage;
  for (const m of pageRangeMapping.value) {
    if (!isObject(m) || !Number.isInteger(m.tileRow) || !isObject(m.tileCols)) continue;
    const pages = pagesOf(m.pageRanges ?? m.pageRange).filter((p) => p <= pageCount);
    if (pages.length === 0) continue;
    for (
      let col = m.tileCols.start;
      Number.isInteger(col) && col <= m.tileCols.end && col - m.tileCols.start < 64;
      col++
    ) {
      tilePage.set(`t${m.tileRow}-${col}`, pages[(col - m.tileCols.start) % pages.length]);
    }
  }
  return tilePage;
}

/**
 * @typedef {object} TileLayout
 * @property {number} maxRow  0 when the scripts draw no tiles
 * @property {number} maxCol
 * @property {boolean} rose   drawn as a rose, else a grid
 */

/**
 * How many tiles the audience sees, and in what shape.
 * @param {TimedCall[]} calls
 * @param {Map<string, number>} tilePage
 * @returns {TileLayout}
 */
function tileLayout(calls, tilePage) {
  const seen = [
    ...tilePage.keys(),
    ...calls.flatMap((c) =>
      c.kind === 'web' && c.method === 'setTileTexts' && Array.isArray(c.args[0]) ? c.args[0].map(String) : [],
    ),
  ]
    .map((id) => TILE_RE.exec(id))
    .filter((m) => m !== null)
    .map((m) => [Number(m[1]), Number(m[2])]);
  // Tiles are drawn when the scripts use them; a pageRangeMapping alone draws nothing.
  const usesTiles = calls.some(
    (c) => c.kind === 'web' && /^(setActiveRows|deactivateRows|setTileTexts|setVisibleRows)$/.test(c.method),
  );
  const maxRow = usesTiles ? Math.min(16, Math.max(0, ...seen.map(([r]) => r))) : 0;
  const maxCol = Math.min(32, Math.max(0, ...seen.map(([, c]) => c)));
  // ZScore draws its tiles as a rose when the page has the rose's shapes (Union Rose's centre and
  // circles, shown with setVisible); other pieces get a grid.
  const rose = calls.some(
    (c) =>
      c.kind === 'web' &&
      c.method === 'setVisible' &&
      Array.isArray(c.args[0]) &&
      c.args[0].some((id) => ['centreShape', 'innerCircle', 'outerCircle'].includes(String(id))),
  );
  return { maxRow, maxCol, rose };
}

/**
 * How long page `page` (1-based) lasts and its last beat, or null when not known.
 * @param {number[]} pageStarts
 * @param {number} totalBeats
 * @param {number[]} beatStarts
 * @returns {(page: number | undefined) => { ms: number, lastBeatMs: number } | null}
 */
function pageLengths(pageStarts, totalBeats, beatStarts) {
  const pageCount = pageStarts.length;
  return (page) => {
    if (page === undefined || page < 1 || page > pageCount) return null;
    const first = pageStarts[page - 1];
    const end = page < pageCount ? pageStarts[page] : totalBeats;
    const startOf = (/** @type {number} */ b) =>
      b < beatStarts.length ? beatStarts[b] : beatStarts[b - 1] + (beatStarts[b - 1] - beatStarts[b - 2]);
    if (!(first >= 0 && end > first && end >= 2 && end - 1 < beatStarts.length)) return null;
    const ms = startOf(end) - startOf(first);
    const lastBeatMs = startOf(end) - startOf(end - 1);
    return Number.isFinite(ms) && ms > 0 ? { ms, lastBeatMs } : null;
  };
}

/**
 * @typedef {object} TileTimeline
 * @property {{ at: number, groups: number[] }[]} strategies  sce.setRndStrategy, in beat order
 * @property {{ at: number, tiles: string[] }[]} activeAt     the votable tiles from each beat on
 * @property {{ at: number, tiles: string[] }[]} nextAt       the playing-next tiles from each beat on
 */

/**
 * The state of the tiles as the scripts change it: ZScore's playing, playing-next and played
 * tiles (playTiles, setPlayingNextTiles), the lit (active) rows, the rows gone, the words.
 */
class TileState {
  /**
   * @param {TileLayout} layout
   */
  constructor(layout) {
    this.layout = layout;
    /** @type {Map<string, string>} */
    this.texts = new Map();
    /** @type {Set<number>} */
    this.active = new Set();
    /** @type {Set<number>} */
    this.gone = new Set();
    /** @type {Set<string>} */
    this.playing = new Set();
    /** @type {Set<string>} */
    this.playingNext = new Set();
    /** @type {Set<string>} */
    this.played = new Set();
  }

  /** Every tile of a row still on show, with its state: lit (votable: an active row) or dim. */
  current() {
    /** @type {Map<string, { state: string, text: string }>} */
    const out = new Map();
    for (let r = 1; r <= this.layout.maxRow; r++) {
      if (this.gone.has(r)) continue;
      for (let c = 1; c <= this.layout.maxCol; c++) {
        const id = `t${r}-${c}`;
        const state = this.playing.has(id)
          ? 'playing'
          : this.playingNext.has(id)
            ? 'next'
            : this.played.has(id)
              ? 'played'
              : this.active.has(r)
                ? 'lit'
                : 'dim';
        out.set(id, { state, text: this.texts.get(id) ?? '' });
      }
    }
    return out;
  }
}

/**
 * The timeline of the tiles: visible and active rows, tile texts, strategy groups. Tiles are
 * keyed by id in the audience state ({ t2-1: { state, text } }): a change is a small patch.
 * @param {TimedCall[]} calls
 * @param {Map<string, number>} tilePage
 * @param {TileLayout} layout
 * @param {ReturnType<typeof pageLengths>} pageLength
 * @param {RoseResult} result
 * @returns {TileTimeline}
 */
function readTileTimeline(calls, tilePage, layout, pageLength, result) {
  const { maxRow, maxCol, rose } = layout;
  const tiles = new TileState(layout);
  /** The playing tiles' fade and play line, one cue a playTiles. */
  /** @type {{ at: number, set: Record<string, unknown> }[]} */
  const playingMoves = [];
  /** @type {TileTimeline} */
  const timeline = { strategies: [], activeAt: [{ at: 0, tiles: [] }], nextAt: [] };
  /** @type {Map<string, { state: string, text: string }>} */
  let shownTiles = new Map();
  const flush = (/** @type {number} */ at) => {
    const next = tiles.current();
    /** @type {Record<string, unknown>} */
    const patch = {};
    for (const [id, t] of next) {
      const was = shownTiles.get(id);
      if (!was) patch[id] = t;
      else if (was.state !== t.state || was.text !== t.text)
        patch[id] = {
          ...(was.state !== t.state ? { state: t.state } : {}),
          ...(was.text !== t.text ? { text: t.text } : {}),
        };
    }
    for (const id of shownTiles.keys()) if (!next.has(id)) patch[id] = null;
    shownTiles = next;
    if (Object.keys(patch).length > 0) result.cues.push({ at, set: { tiles: patch } });
    // The tiles of the active rows (whatever their playing state) make the vote window.
    const lit = [...next]
      .filter(([id]) => tiles.active.has(Number(TILE_RE.exec(id)?.[1])) && tilePage.has(id))
      .map(([id]) => id);
    const { activeAt } = timeline;
    if (JSON.stringify(lit) !== JSON.stringify(activeAt[activeAt.length - 1].tiles)) activeAt.push({ at, tiles: lit });
  };
  if (maxRow > 0 && maxCol > 0) {
    // ZScore starts with every tile visible and none active (resetState).
    shownTiles = tiles.current();
    result.cues.push({
      at: 0,
      set: { ...(rose ? { layout: { rings: maxRow, slices: maxCol } } : {}), tiles: Object.fromEntries(shownTiles) },
    });
    result.notes.push(
      `the audience's ${maxRow * maxCol} tiles (${maxRow} rows of ${maxCol}) are drawn as ${rose ? `a rose of ${maxRow} rings (layout: { rings: ${maxRow}, slices: ${maxCol} }), as ZScore draws the page with the rose's shapes` : 'a grid'}`,
    );
  }
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    const did = applyTileCall(c, tiles, { tilePage, pageLength, playingMoves, strategies: timeline.strategies });
    if (did !== null) {
      result.consumed.push({ source: c.source, what: c.text });
      result.converted.push({ source: c.source, what: c.text, result: did });
    }
    if (maxRow > 0 && calls[i + 1]?.at !== c.at) flush(c.at);
    const { nextAt } = timeline;
    const last = nextAt[nextAt.length - 1]?.tiles ?? [];
    if (JSON.stringify(last) !== JSON.stringify([...tiles.playingNext]))
      nextAt.push({ at: c.at, tiles: [...tiles.playingNext] });
  }
  if (maxRow > 0) result.cues.push(...playingMoves);
  return timeline;
}

/**
 * One script's change to the tiles; what it became for the report, or null when it is not one.
 * @param {TimedCall} c
 * @param {TileState} tiles
 * @param {{ tilePage: Map<string, number>, pageLength: ReturnType<typeof pageLengths>,
 *   playingMoves: { at: number, set: Record<string, unknown> }[], strategies: TileTimeline['strategies'] }} ctx
 * @returns {string | null}
 */
function applyTileCall(c, tiles, { tilePage, pageLength, playingMoves, strategies }) {
  const rows = (/** @type {unknown} */ a) =>
    Array.isArray(a) ? a.filter((r) => Number.isInteger(r) && r >= 1 && r <= 64) : [];
  if (c.kind === 'web' && c.method === 'setActiveRows' && rows(c.args[0]).length > 0) {
    tiles.active = new Set(rows(c.args[0]));
    return `at beat ${c.at} the tiles of row${tiles.active.size > 1 ? 's' : ''} ${[...tiles.active].join(', ')} are lit, to vote for`;
  }
  if (c.kind === 'web' && c.method === 'deactivateRows' && rows(c.args[0]).length > 0) {
    for (const r of rows(c.args[0])) {
      tiles.active.delete(r);
      tiles.gone.add(r);
    }
    return `at beat ${c.at} the tiles of row${rows(c.args[0]).length > 1 ? 's' : ''} ${rows(c.args[0]).join(', ')} leave the audience's page`;
  }
  if (c.kind === 'web' && (c.method === 'playTiles' || c.method === 'setPlayingTiles') && Array.isArray(c.args[0])) {
    // The tiles whose pages sound now; the ones that sounded before are played.
    for (const id of tiles.playing) tiles.played.add(id);
    tiles.playing = new Set(c.args[0].map(String).filter((id) => TILE_RE.test(id)));
    for (const id of tiles.playing) tiles.playingNext.delete(id);
    // playTiles also fades the tiles out over 0.8 of their page and sweeps a play line across
    // them over the page less its last beat (szcore setPlayTileActions).
    const length = c.method === 'playTiles' ? pageLength(tilePage.get([...tiles.playing][0] ?? '')) : null;
    if (length) {
      const fade = Math.round(length.ms * 0.8);
      const sweep = Math.max(0, length.ms - length.lastBeatMs);
      playingMoves.push({ at: c.at, set: { playing: { at: c.at, fade, sweep } } });
    }
    const n = tiles.playing.size;
    return `at beat ${c.at} tile${n === 1 ? '' : 's'} ${[...tiles.playing].join(', ')} playing (the tiles before: played)${length ? `, fading out over ${Math.round(length.ms * 0.8) / 1000} s while a play line sweeps them (playing)` : ''}`;
  }
  if (c.kind === 'web' && c.method === 'setPlayingNextTiles' && Array.isArray(c.args[0])) {
    tiles.playingNext = new Set(c.args[0].map(String).filter((id) => TILE_RE.test(id)));
    const n = tiles.playingNext.size;
    return `at beat ${c.at} tile${n === 1 ? '' : 's'} ${[...tiles.playingNext].join(', ')} playing next`;
  }
  if (
    c.kind === 'web' &&
    (c.method === 'resetPlayingTiles' || c.method === 'resetPlayingNextTiles') &&
    c.args.length === 0
  ) {
    if (c.method === 'resetPlayingTiles') tiles.playing = new Set();
    else tiles.playingNext = new Set();
    return `at beat ${c.at} no tile is ${c.method === 'resetPlayingTiles' ? 'playing' : 'playing next'}`;
  }
  if (c.kind === 'web' && c.method === 'setTileTexts' && Array.isArray(c.args[0]) && Array.isArray(c.args[1])) {
    const ids = c.args[0].map(String);
    const values = c.args[1].map(String);
    ids.forEach((id, k) => {
      tiles.texts.set(id, values[Math.min(k, values.length - 1)] ?? '');
    });
    return `the words of tiles ${ids[0]}..${ids[ids.length - 1]}`;
  }
  if (
    c.kind === 'sce' &&
    c.method === 'setRndStrategy' &&
    Array.isArray(c.args[0]) &&
    c.args[0].length > 0 &&
    c.args[0].every((g) => Number.isInteger(g) && g >= 1 && g <= 64)
  ) {
    strategies.push({ at: c.at, groups: /** @type {number[]} */ (c.args[0]) });
    return `from beat ${c.at}, page choices deal the parts into groups of ${c.args[0].join(', ')}`;
  }
  return null;
}

/**
 * The slots: pages of ranges with isRndActive, decided when the page before starts.
 * @param {{ rndStrategy: RoseInput['rndStrategy'], pageRangeMapping: RoseInput['pageRangeMapping'],
 *   pageStarts: number[], totalBeats: number, tilePage: Map<string, number>, timeline: TileTimeline }} input
 * @param {RoseResult} result
 */
function readPageChoices({ rndStrategy, pageRangeMapping, pageStarts, totalBeats, tilePage, timeline }, result) {
  const pageCount = pageStarts.length;
  const { strategies, activeAt, nextAt } = timeline;
  const strategy = rndStrategy && isObject(rndStrategy.value) ? rndStrategy.value : null;
  if (!strategy) return;
  const src = `${rndStrategy?.file} line ${rndStrategy?.line}`;
  if (strategy.isActive === false) {
    result.notes.push(`${src}: rndStrategy is not active (isActive: false): pages play in order`);
    return;
  }
  let lastDecision = -1;
  for (const range of Array.isArray(strategy.pageRanges) ? strategy.pageRanges : []) {
    if (!isObject(range) || range.isRndActive !== true) continue;
    const from = pagesOf(range.selectionRange).filter((p) => p <= pageCount);
    const instruments = Array.isArray(range.instruments) ? range.instruments.map(String) : ['all'];
    if (!instruments.includes('all'))
      result.notes.push(
        `${src}: a page range names instruments (${instruments.join(', ')}); every part takes part in its choices`,
      );
    for (const slot of pagesOf(range.range)) {
      if (slot > pageCount || from.length === 0) continue;
      const at = slot >= 2 ? pageStarts[slot - 2] : 0;
      if (at === undefined || at >= totalBeats) continue;
      const groups = [...strategies].reverse().find((s) => s.at <= at)?.groups ?? [2];
      // Votes between the previous decision (or the rows' activation) and this one.
      const shown = [...activeAt].reverse().find((a) => a.at <= at);
      const tiles = shown?.tiles ?? [];
      const open = Math.max(lastDecision, shown?.at ?? 0, 0);
      /** @type {Record<string, number>} */
      const tileMap = Object.fromEntries(tiles.map((t) => [t, /** @type {number} */ (tilePage.get(t))]));
      const voteId = `page-${slot}`;
      const voting = tiles.length >= 2 && open < at;
      // ZScore prepares the page from its playing-next tiles, when the composer set some, before
      // the most clicked ones: those set during the page before the slot (a page turn plays
      // them and clears the list).
      const slotStart = pageStarts[slot - 1] ?? totalBeats;
      const set = [...nextAt].reverse().find((n) => n.at < slotStart);
      const next = set && set.at >= at ? set.tiles.filter((t) => tilePage.has(t)) : [];
      if (voting) result.cues.push({ at: open, vote: { id: voteId, tiles, close: { at } } });
      result.pageChoices.push({
        slot,
        at,
        from: rangesOf(from),
        groups,
        vote: voting ? voteId : null,
        tiles: { ...tileMap, ...Object.fromEntries(next.map((t) => [t, /** @type {number} */ (tilePage.get(t))])) },
        next,
        seed: 0,
      });
      lastDecision = at;
    }
  }
  if (pageRangeMapping && result.pageChoices.some((c) => Object.keys(c.tiles).length > 0)) {
    result.converted.push({
      source: `${pageRangeMapping.file} line ${pageRangeMapping.line}`,
      what: 'pageRangeMapping',
      result: `${tilePage.size} tiles stand for pages in the page choices' \`tiles\` (an RND row's columns take its pages in order)`,
    });
    result.consumed.push({
      source: `${pageRangeMapping.file} line ${pageRangeMapping.line}`,
      what: 'pageRangeMapping',
    });
  }
  if (result.pageChoices.length > 0) {
    result.converted.push({
      source: src,
      what: 'rndStrategy',
      result: `${result.pageChoices.length} page choices (pageChoices in score.yaml), ${result.pageChoices.filter((c) => c.vote).length} of them chosen by the audience's votes`,
    });
    result.consumed.push({ source: src, what: 'rndStrategy' });
  }
}
