// ZScore's sce.sendMaxMspRndPageUpdates(N): its Max patch hears which page the audience (or the
// strategy) chose next, as the sound file of that page loaded into buffer N (szcore
// ScoreProcessorImpl.sendOscInstrumentRndPageUpdate, MaxMspConfig.createSetFileInNextBufferScript:
// `/zs/b<N> setFile <prefix>b<page>.wav`, the page being the first one chosen for the page after
// the current one; nothing is sent when that page is not chosen). The file prefix lives in szcore's
// MaxMspConfig, not in the export; the export's own setFile lines name the files
// (`max:setFile|b1|UnionRose_b7.wav`), so the prefix is read from them. The page is known only when
// the choice is made, so the cue's argument names it: `{page:<slot>}` (core/osc-cues.js).
// Buffer 0 is the patch's page buffer: szcore loads the file into the buffer its MaxMspScoreConfig
// names next (getNextPageBufferNo: the page buffers start after 2, and szcore never moves its
// counter on, so b3) and also tells that buffer to play on the first beat of the next page
// (sendOscPlayerRndPageUpdate: createPlayNextBufferScript).

/**
 * @typedef {import('./cues.js').TimedCall} TimedCall
 * @typedef {import('./cues.js').ReportItem} ReportItem
 */

const FILE_RE = /^(.*)b\d+\.wav$/;
/** szcore MaxMspScoreConfig: pageBufferStartOffsetNo 2 + currentBufferNo 1. */
const PAGE_BUFFER = 3;

/**
 * @param {TimedCall[]} calls  in beat order
 * @param {{ pageStarts: number[], slots: Set<number>, osc: { args: (string | number)[] }[] }} ctx
 *   pageStarts: first beat of each page (0-based index); slots: pages the score chooses;
 *   osc: the export's Max lines as OSC cues (for the file names)
 * @returns {{ osc: { at: number, address: string, args: (string | number)[] }[], converted: ReportItem[], consumed: { source: string, what: string }[], skipped: ReportItem[] }}
 */
export function readRndPageUpdates(calls, { pageStarts, slots, osc }) {
  /** @type {{ at: number, address: string, args: (string | number)[] }[]} */
  const out = [];
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {{ source: string, what: string }[]} */
  const consumed = [];
  /** @type {ReportItem[]} */
  const skipped = [];
  const named = osc
    .filter((c) => c.args[0] === 'setFile' && typeof c.args[1] === 'string')
    .map((c) => FILE_RE.exec(String(c.args[1]))?.[1])
    .find((p) => p !== undefined);
  for (const c of calls) {
    if (c.kind !== 'sce' || c.method !== 'sendMaxMspRndPageUpdates') continue;
    consumed.push({ source: c.source, what: c.text });
    const buffer = c.args[0];
    // The page holding the beat (1-based), and the page after it, whose choice is sent.
    const page = pageStarts.filter((start) => start <= c.at).length;
    const slot = page + 1;
    const why =
      !Number.isInteger(buffer) || /** @type {number} */ (buffer) < 0
        ? 'the buffer is not a whole number from 0'
        : !slots.has(slot)
          ? `page ${slot}, after the page of beat ${c.at}, is not chosen by the audience or the strategy: ZScore sends nothing then`
          : named === undefined
            ? "no setFile line of the export names the sound files (their prefix is in szcore's MaxMspConfig, not in the export)"
            : null;
    if (why) {
      skipped.push({ source: c.source, what: c.text, reason: why });
      continue;
    }
    const args = ['setFile', `${named}b{page:${slot}}.wav`];
    const target = buffer === 0 ? PAGE_BUFFER : /** @type {number} */ (buffer);
    out.push({ at: c.at, address: `/zs/b${target}`, args });
    const next = pageStarts[slot - 1];
    const plays = buffer === 0 && next !== undefined;
    if (plays) out.push({ at: next, address: `/zs/b${target}`, args: ['play'] });
    converted.push({
      source: c.source,
      what: c.text,
      result: `OSC cue at beat ${c.at}: /zs/b${target} ${args.join(' ')} (the page chosen for page ${slot})${plays ? `; /zs/b${target} play at beat ${next}, the first of page ${slot} (buffer 0: ZScore's page buffer)` : ''}`,
    });
  }
  return { osc: out, converted, consumed, skipped };
}
