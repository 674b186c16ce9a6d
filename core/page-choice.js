// Pages the audience chooses (ZScore's open-form page strategy, as Union Rose uses it): at a
// decision beat, a page slot of every part is filled with a page chosen from a range. The tally
// of a vote window picks the pages (each tile stands for a page, ZScore's pageRangeMapping); when
// too few tiles have votes, a seeded random choice fills in (ZScore's rndStrategy), so a
// performance is reproducible. The parts are dealt into groups (ZScore's sce.setRndStrategy([..])):
// group k plays the k-th chosen page, parts in no group rest (they keep the slot's own page).
// Pure: no I/O, no clock; the conductor calls it (szcore ScoreRandomisationStrategy.recalcStrategy
// and UnionRoseWebAudienceProcessor.prepareNextTilesToPlay were read for the behaviour).

import { hash32, seededRandom } from './random.js';

/**
 * @typedef {object} PageChoice  a decision of the score (manifest `pageChoices`)
 * @property {number} slot      the page (1-based) of every part view that the choice fills
 * @property {number} at        the beat at which it is decided
 * @property {[number, number][]} from  ranges of pages (first, last; 1-based) a random choice takes from
 * @property {number[]} groups  how many parts play each chosen page (ZScore's strategy list)
 * @property {string | null} vote  the vote window whose tally picks the pages, or null
 * @property {Record<string, number>} tiles  tile -> page (1-based) it stands for
 * @property {string[]} next  tiles the composer forces (ZScore's setPlayingNextTiles): their pages
 *   are chosen first, whatever the votes
 * @property {number} seed
 */

/**
 * @typedef {object} Decision
 * @property {number} slot
 * @property {Record<string, number>} parts  part id -> page (1-based) it plays in the slot; a
 *   part that rests is absent
 * @property {string[]} tiles   the tiles whose pages were chosen, in group order (voted ones)
 * @property {number[]} pages   the page of each group
 */

/**
 * Decide a page choice. Tiles forced next (the conductor's, else the score's `next`) come first,
 * as ZScore plays its playing-next tiles instead of the most clicked; the votes fill what they
 * leave, and the seeded random choice the rest.
 * @param {PageChoice} choice
 * @param {{ scoreId: string, parts: string[], tally: Record<string, number> | null, played: Set<string>, forced?: string[] | null }} input
 *   `parts` in score order; `tally` of the choice's vote window (null: none); `played`: tiles
 *   whose pages an earlier choice took (ZScore does not play a tile twice); `forced`: tiles the
 *   conductor forces next (null or absent: the score's `next`)
 * @returns {Decision}
 */
export function decidePageChoice(choice, { scoreId, parts, tally, played, forced = null }) {
  const random = seededRandom(hash32(`${scoreId}:${choice.slot}:${choice.seed}`));
  const need = choice.groups.length;
  const order = Object.keys(choice.tiles);
  const first = [...new Set(forced ?? choice.next ?? [])].filter((t) => choice.tiles[t] !== undefined).slice(0, need);
  const voted = [
    ...first,
    ...Object.entries(tally ?? {})
      .filter(([tile, n]) => n > 0 && choice.tiles[tile] !== undefined && !played.has(tile) && !first.includes(tile))
      .sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]))
      .slice(0, need - first.length)
      .map(([tile]) => tile),
  ];
  const pages = voted.map((t) => choice.tiles[t]);
  const pool = choice.from.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, k) => lo + k));
  while (pages.length < need) pages.push(pool[Math.floor(random() * pool.length)]);
  // Fisher-Yates on a copy: which parts play is the strategy's random part.
  const dealt = [...parts];
  for (let i = dealt.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [dealt[i], dealt[j]] = [dealt[j], dealt[i]];
  }
  /** @type {Record<string, number>} */
  const assigned = {};
  let next = 0;
  choice.groups.forEach((size, k) => {
    for (let n = 0; n < size && next < dealt.length; n++) assigned[dealt[next++]] = pages[k];
  });
  return {
    slot: choice.slot,
    parts: Object.fromEntries(parts.filter((p) => p in assigned).map((p) => [p, assigned[p]])),
    tiles: voted,
    pages,
  };
}
