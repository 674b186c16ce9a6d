// Import a ZScore export folder as a scorecast score package (doc/zscore-import.md): page images
// and BeatInfo CSVs per part and page, the score-level BeatInfo CSV with the script rows, and the
// YAML configuration. Everything is read and checked before anything is written; bad input throws
// SC_ERR_SCORE_INVALID with one problem per line, each naming its file and line. The steps:
// the folder's files (export-folder.js), the views (views.js), the timing (timing.js), the
// scripts as cues (audience.js), the beat maps (beatmaps.js), then the package is written.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPackageWriter, outputDirProblem } from './package-dir.js';
import { SCHEMA_FILE, renderManifest } from './manifest.js';
import { SCHEMA_PATH } from '../../package/manifest-schema.js';
import { renderReport } from './report.js';
import { compareBeatTimes, meterFromBeats } from './timing.js';
import { FULL_SCORE, compareViews, isAvLane, readPageCsv, readViews, slug } from './views.js';
import { bySource, invalid, newImportLog } from './log.js';
import { listExport, readConfigs, readScoreLevel, readSoundOption, sortFiles } from './export-folder.js';
import { readAudience } from './audience.js';
import { buildBeatMaps, noteViews } from './beatmaps.js';
import { indexMaster, isMergedExport, sectionsOf } from './merged.js';
import { readOpenForm } from './open-form.js';

/**
 * Import the ZScore export in `inDir` into a new package folder `outDir` (missing or empty).
 * Writes score.yaml, pages/, beatmaps/ and import-report.md.
 * @param {string} inDir
 * @param {string} outDir
 * @param {{ granulatorSound?: string, beatInfo?: string }} [options]  granulatorSound: the sound
 *   file the phones' granulator plays (ZScore's export has none), copied into the package as
 *   audio/<name>; beatInfo: which score-level BeatInfo file of the folder to read, when several
 *   differ and none is the master `1_<Score>_BeatInfo.csv`
 * @returns {Promise<{ report: import('./report.js').ImportReport }>}
 */
export async function importZScore(inDir, outDir, { granulatorSound, beatInfo } = {}) {
  const outProblem = await outputDirProblem(outDir);
  if (outProblem) throw invalid([outProblem]);
  const sound = await readSoundOption(granulatorSound);
  const entries = await listExport(inDir);
  const log = newImportLog();
  const score = await readScoreLevel(inDir, entries, log, beatInfo);
  const { parts, configFiles } = sortFiles(entries, score, log);
  const { allViews, scriptRows } = await readAllViews(inDir, score, parts, log);
  const { presets, roseConfig } = await readConfigs(inDir, configFiles, score.name, log);
  if (log.problems.length > 0 || allViews.length !== parts.size) throw invalid(log.problems);
  log.problems.push(...compareViews(allViews));
  if (log.problems.length > 0) throw invalid(log.problems);
  const playable = playableViews(inDir, allViews, log);

  // Timing, from the first view (all views agree).
  const ref = playable[0];
  const timing = readTiming(ref, log);
  const { totalBeats } = timing.map;
  const audience = readAudience(
    {
      scriptRows: [...score.csv.rows.filter((r) => r.script), ...scriptRows],
      beatIndex: (instrument, beatNo) => (allViews.find((v) => v.instrument === instrument) ?? ref).index.get(beatNo),
      presets,
      roseConfig,
      beats: ref.beats,
      pageStarts: ref.pages.map((_, k) => ref.beats.findIndex((b) => b.page === k)),
      totalBeats,
      meter: timing.meter.meter,
      soundFile: sound?.out ?? null,
    },
    log,
  );
  const { pages, beatmaps } = buildBeatMaps(playable, totalBeats, log);
  if (log.problems.length > 0) throw invalid(log.problems);
  noteViews(playable, log);
  log.converted.push(...audience.converted);

  // The movements of a merged export, as named sections of the one score.
  const sections = sectionsOf(ref, ref.movements, score.name);
  const openForm = readOpenForm({ view: ref, movements: sections, builder: roseConfig.builderStrategy, log });
  const id = slug(score.name, 'zscore-import');
  const manifest = renderManifest({
    comment: `Imported from ZScore's export of "${score.name}" by scorecast import-zscore; import-report.md lists what was and was not converted.${sections.length ? ` Sections (movements): ${sections.map((x) => `${x.name} from beat ${x.beat} (bar ${x.bar})`).join(', ')}.` : ''}`,
    id,
    title: score.name,
    parts: playable.filter((v) => v.id !== 'score').map((v) => ({ id: v.id, name: v.instrument })),
    pages,
    pickup: timing.meter.pickup,
    bars: timing.meter.bars,
    meter: audience.meter,
    cues: audience.cues,
    osc: audience.osc,
    presets: audience.presets,
    openForm,
    pageChoices: audience.pageChoices.map((c) => ({
      slot: c.slot,
      at: c.at,
      from: c.from.length === 1 ? c.from[0] : c.from,
      groups: c.groups,
      ...(c.vote ? { vote: c.vote } : {}),
      ...(Object.keys(c.tiles).length ? { tiles: c.tiles } : {}),
      ...(c.next.length ? { next: c.next } : {}),
    })),
  });

  log.notConverted.sort(bySource);
  const writer = createPackageWriter(outDir);
  /** @type {import('./report.js').ImportReport} */
  const report = {
    file: path.join(writer.root, 'import-report.md'),
    source: inDir,
    score: {
      id,
      title: score.name,
      totalBeats,
      bars: timing.meter.bars,
      pickup: timing.meter.pickup,
      cues: audience.cueCount,
      views: playable.map((v) => ({ id: v.id, instrument: v.instrument, pages: v.pages.length })),
    },
    converted: log.converted,
    notConverted: log.notConverted,
    timeMismatches: timing.mismatches,
    notes: log.notes,
    ...(sections.length ? { sections } : {}),
  };
  for (const v of playable) for (const p of v.pages) await writer.write(p.out, p.bytes);
  for (const [file, text] of Object.entries(beatmaps)) await writer.write(file, text);
  if (sound && audience.granulatorUsed) await writer.write(sound.out, sound.bytes);
  await writer.write('score.yaml', manifest);
  await writer.write(SCHEMA_FILE, await readFile(SCHEMA_PATH));
  await writer.write('import-report.md', renderReport(report));
  return { report };
}

/**
 * The views in score order (the full score, then the parts as the score-level file lists them),
 * read from their page files; instruments of the score-level file with no pages are listed.
 * @param {string} inDir
 * @param {import('./export-folder.js').ScoreLevel} score
 * @param {Map<string, import('./views.js').PartFiles>} parts
 * @param {import('./log.js').ImportLog} log
 */
async function readAllViews(inDir, score, parts, log) {
  const { filePrefix } = score;
  if (parts.size === 0) {
    log.problems.push(
      `${inDir}: no page files of "${score.name}"; ZScore exports each part's pages as ${filePrefix}_<Part>_page<N>.png with ${filePrefix}_<Part>_page<N>_BeatInfo.csv`,
    );
    throw invalid(log.problems);
  }
  const order = [...new Set(score.csv.rows.map((r) => r.instrumentName))];
  const rank = (/** @type {string} */ name) =>
    name === FULL_SCORE ? -1 : order.includes(name) ? order.indexOf(name) : order.length;
  const partList = [...parts.values()].sort(
    (a, b) => rank(a.instrument) - rank(b.instrument) || (a.instrument < b.instrument ? -1 : 1),
  );
  // A merged export's master is the truth for the pages it has (merged.js).
  /** @type {Map<string, import('./views.js').ParsedCsv>} */
  const parsed = new Map();
  for (const part of partList)
    for (const f of part.pages.values()) if (f.csv) parsed.set(f.csv, await readPageCsv(inDir, f.csv));
  const master = indexMaster(score.file, score.csv.rows);
  const merged = isMergedExport(master, score.name, parsed.values());
  const read = await readViews(inDir, score.name, partList, filePrefix, { parsed, ...(merged ? { master } : {}) });
  log.problems.push(...read.problems);
  log.notes.push(...read.notes);
  for (const name of order) {
    if (parts.has(name)) continue;
    const first = score.csv.rows.find((r) => r.instrumentName === name && !r.script);
    if (first)
      log.notConverted.push({
        source: `${score.file} line ${first.line}`,
        what: `beats of instrument "${name}"`,
        reason: `there are no page files ${filePrefix}_${name}_page<N>.png and _BeatInfo.csv, so it has no view`,
      });
  }
  return { allViews: read.views, scriptRows: read.scriptRows };
}

/**
 * ZScore's AV lane is the composer's script lane (electronics, audience page), not a player's
 * part: its scripts become cues, its pages are not a view.
 * @param {string} inDir
 * @param {import('./views.js').View[]} allViews
 * @param {import('./log.js').ImportLog} log
 */
function playableViews(inDir, allViews, log) {
  const views = allViews.filter((v) => !isAvLane(v.instrument));
  if (views.length === 0)
    throw invalid([
      `${inDir}: the export has only the AV lane (${allViews.map((v) => v.instrument).join(', ')}); export the parts' pages too`,
    ]);
  for (const v of allViews.filter((x) => isAvLane(x.instrument))) {
    const images = v.pages.filter((p) => p.png);
    for (const p of v.pages.filter((x) => !x.png))
      log.notConverted.push({
        source: p.csv,
        what: `page ${p.no} of ${v.instrument} (beat info with no page image)`,
        reason:
          "ZScore's AV lane is the composer's script lane, not shown to anyone: its beats and scripts were read, the missing image is not needed",
      });
    if (images.length === 0) continue;
    log.notConverted.push({
      source: `${images[0].png} … ${images[images.length - 1].png}`,
      what: `the ${images.length} page images of ${v.instrument}`,
      reason:
        "ZScore's AV lane is the composer's script lane, not a part a musician plays: its scripts were read as cues, its pages are not shown",
    });
  }
  return views;
}

/**
 * The metre and tempo of the score from a view's beats, checked against ZScore's times.
 * @param {import('./views.js').View} ref
 * @param {import('./log.js').ImportLog} log
 */
function readTiming(ref, log) {
  const timed = ref.beats.map((b) => ({ bar: b.bar, time: b.time, bpm: b.bpm, startMs: b.startMs, source: b.source }));
  const meter = meterFromBeats(timed);
  if (!meter.ok) throw invalid(meter.problems.map((p) => `${p.source}: ${p.message}`));
  const { map } = meter.value;
  const mismatches = compareBeatTimes(map, timed);
  if (meter.value.pickup > 0)
    log.converted.push({
      source: ref.beats[0].source,
      what: `bar 0: ${meter.value.pickup}-beat upbeat`,
      result: `pickup: ${meter.value.pickup}`,
    });
  meter.value.meter.forEach((e, i) => {
    log.converted.push({
      source: meter.value.sources[i],
      what: meterText(e),
      result: `meter: ${JSON.stringify(e).replace(/"/g, '')}`,
    });
  });
  const firstBeatNo = ref.beats[0].beatNo;
  log.notes.push(
    `ZScore numbers the beats of ${ref.instrument} from ${firstBeatNo}${firstBeatNo === 0 ? ' (the opening upbeat)' : ''}: scorecast beat = beatNo - ${firstBeatNo}, counted in performance order`,
  );
  return { map, meter: meter.value, mismatches };
}

/**
 * @param {import('./timing.js').MeterEntry} e
 */
function meterText(e) {
  return [
    `bar ${e.bar}${e.beat ? ` beat ${e.beat}` : ''}:`,
    e.time ? `time ${e.time}` : '',
    e.tempo !== undefined ? `tempo ${e.tempo}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
