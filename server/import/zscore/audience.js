// The scripts of a ZScore export as scorecast's cues: the audience's tiles and the pages their
// votes choose (rose.js), the phones' speech and granulator, scripted tempo, the page's motion,
// the Max patch's page updates, and the presets the conductor can fire. Script rows that one of
// these readers consumes leave the report's "not converted" list.

import { cuesFromScripts } from './cues.js';
import { readGranulator } from './granulator.js';
import { readMotion } from './motion.js';
import { presetPatch } from './preset.js';
import { readRndPageUpdates } from './rnd-pages.js';
import { readRose } from './rose.js';
import { readSpeech } from './speech.js';
import { withTempoRamps } from './tempo.js';

/**
 * @typedef {object} AudienceInput
 * @property {import('./csv.js').BeatInfoRow[]} scriptRows  the score-level file's first, then
 *   those only in page files
 * @property {(instrument: string, beatNo: number) => number | undefined} beatIndex
 * @property {Map<number, import('./script.js').Preset>} presets
 * @property {import('./export-folder.js').RoseConfig} roseConfig
 * @property {import('./views.js').ViewBeat[]} beats  the reference view's
 * @property {number[]} pageStarts
 * @property {number} totalBeats
 * @property {import('./timing.js').MeterEntry[]} meter
 * @property {string | null} soundFile  the granulator's sound in the package
 */

/**
 * @param {AudienceInput} input
 * @param {import('./log.js').ImportLog} log
 */
export function readAudience(input, log) {
  const { presets, roseConfig, pageStarts, totalBeats } = input;
  const { notes, notConverted } = log;
  const beatStarts = input.beats.map((b) => b.startMs);
  const cueResult = cuesFromScripts(input.scriptRows, input.beatIndex, presets);
  notConverted.push(...cueResult.skipped);
  notes.push(...cueResult.notes);
  // The audience's tiles and the pages their votes choose.
  const [rndStrategy = null] = roseConfig.rndStrategy;
  const [pageRangeMapping = null] = roseConfig.pageRangeMapping;
  const rose = readRose({ calls: cueResult.calls, rndStrategy, pageRangeMapping, pageStarts, totalBeats, beatStarts });
  const consumed = new Set(rose.consumed.map((c) => `${c.source}\u0000${c.what}`));
  for (const key of /** @type {const} */ (['rndStrategy', 'pageRangeMapping'])) {
    const [used, ...copies] = roseConfig[key];
    if (!used || !consumed.has(`${used.file} line ${used.line}\u0000${key}`)) continue;
    for (const copy of copies) {
      if (JSON.stringify(copy.value) !== JSON.stringify(used.value)) continue;
      consumed.add(`${copy.file} line ${copy.line}\u0000${key}`);
      notes.push(`${copy.file} line ${copy.line}: ${key} is the same as in ${used.file}; it was read once`);
    }
  }
  notes.push(...rose.notes);
  // Phones that speak the tiles' words.
  const speech = readSpeech(cueResult.calls, presets, beatStarts);
  for (const c of speech.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  // Phones that sound: the granulator.
  const granular = readGranulator(cueResult.calls, presets, input.soundFile);
  for (const c of granular.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  notes.push(...granular.notes);
  // Scripted tempo (sce.timedAction('tempo', ...)) as tempo changes on the grid.
  const ramped = withTempoRamps(cueResult.calls, input.beats, input.meter);
  for (const c of ramped.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  // The page's motion: zoom, the dark disc over the rose, rings swinging into place.
  const roseLayout = /** @type {{ rings?: unknown, slices?: unknown } | undefined} */ (
    rose.cues.find((c) => c.set?.layout)?.set?.layout
  );
  const roseSize = { rings: Number(roseLayout?.rings) || 0, slices: Number(roseLayout?.slices) || 0 };
  const motion = readMotion(cueResult.calls, roseSize.rings);
  for (const c of motion.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  // The Max patch hears the page chosen next (sce.sendMaxMspRndPageUpdates).
  const rndPages = readRndPageUpdates(cueResult.calls, {
    pageStarts,
    slots: new Set(rose.pageChoices.map((c) => c.slot)),
    osc: cueResult.osc,
  });
  for (const c of rndPages.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  for (let i = notConverted.length - 1; i >= 0; i--) {
    if (consumed.has(`${notConverted[i].source}\u0000${notConverted[i].what}`)) notConverted.splice(i, 1);
  }
  notConverted.push(...motion.skipped, ...rndPages.skipped);
  if (ramped.ramps > 0)
    notes.push(
      `${ramped.ramps} scripted tempo ramp${ramped.ramps === 1 ? '' : 's'} (sce.timedAction('tempo', ...)) became tempo changes a beat apart in \`meter\`; ZScore's BeatInfo times do not include them, so the timing check above compares the written tempo`,
    );
  const packagePresets = readPresets(
    presets,
    cueResult.used,
    roseSize,
    {
      speech: speech.cues.length > 0,
      granulator: granular.cues.length > 0,
    },
    log,
  );
  const cues = [...cueResult.cues, ...rose.cues, ...speech.cues, ...granular.cues, ...motion.cues];
  return {
    cueCount: cues.length,
    cues: cues.sort((a, b) => a.at - b.at),
    osc: [...cueResult.osc, ...rndPages.osc].sort((a, b) => a.at - b.at),
    meter: ramped.meter,
    presets: packagePresets,
    pageChoices: rose.pageChoices,
    granulatorUsed: granular.cues.length > 0,
    /** Added to the report after the beat maps, in this order. */
    converted: [
      ...cueResult.converted,
      ...rose.converted,
      ...speech.converted,
      ...granular.converted,
      ...motion.converted,
      ...rndPages.converted,
      ...ramped.converted,
    ],
  };
}

/**
 * Every preset whose scripts change the audience view is one the conductor can fire from the
 * console, as ZScore's operator could run any of them; the others are listed.
 * @param {Map<number, import('./script.js').Preset>} presets
 * @param {Set<number>} used  presets a script at a beat runs
 * @param {{ rings: number, slices: number }} roseSize
 * @param {{ speech: boolean, granulator: boolean }} sounding  the load preset's sound settings
 *   read by the speech and granulator readers
 * @param {import('./log.js').ImportLog} log
 */
function readPresets(presets, used, roseSize, sounding, log) {
  const loadRead = new Set([
    ...(sounding.speech ? ['speechSynth'] : []),
    ...(sounding.granulator ? ['granulator'] : []),
  ]);
  /** @type {{ id: number, name: string, set: Record<string, unknown> }[]} */
  const packagePresets = [];
  for (const p of presets.values()) {
    if (p.scripts.length === 0) continue;
    const set = presetPatch(p, { presets, ...roseSize });
    if (!set) continue;
    packagePresets.push({ id: p.id, name: `ZScore preset ${p.id}`, set });
    log.converted.push({
      source: `${p.file} line ${p.line}`,
      what: `preset ${p.id}`,
      result: `presets: { id: ${p.id}, set: ${JSON.stringify(set)} }, fired from the console`,
    });
  }
  const fireable = new Set(packagePresets.map((p) => p.id));
  for (const p of presets.values()) {
    if (used.has(p.id) || fireable.has(p.id)) continue;
    if (p.id === -2 && p.scripts.length === 0 && p.config.length > 0 && p.config.every((c) => loadRead.has(c.name)))
      continue;
    const what = p.scripts.length
      ? `preset ${p.id}: ${p.scripts.map((s) => s.text).join(' ')}`
      : `preset ${p.id}: config ${p.config.map((c) => c.name).join(', ')}`;
    log.notConverted.push({
      source: `${p.file} line ${p.line}`,
      what,
      reason:
        "no web: script at a beat runs it (ZScore's conductor can also run presets by hand); scorecast has no presets: add a cue to score.yaml where it is needed",
    });
  }
  return packagePresets;
}
