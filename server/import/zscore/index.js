// Import a ZScore export folder as a scorecast score package (doc/zscore-import.md): page images
// and BeatInfo CSVs per part and page, the score-level BeatInfo CSV with the script rows, and the
// YAML configuration. Everything is read and checked before anything is written; bad input throws
// SC_ERR_SCORE_INVALID with one problem per line, each naming its file and line.

import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { checkBeatMap, describeBeatMapProblem } from '../../../core/beatmap.js';
import { ScorecastError } from '../../../core/errors.js';
import { createPackageWriter, outputDirProblem } from './package-dir.js';
import { readZScoreConfig } from './config.js';
import { readRose } from './rose.js';
import { readSpeech } from './speech.js';
import { withTempoRamps } from './tempo.js';
import { readGranulator } from './granulator.js';
import { readMotion } from './motion.js';
import { presetPatch } from './preset.js';
import { readRndPageUpdates } from './rnd-pages.js';
import { cuesFromScripts } from './cues.js';
import { parseBeatInfoCsv } from './csv.js';
import { SCHEMA_FILE, renderManifest } from './manifest.js';
import { SCHEMA_PATH } from '../../package/manifest-schema.js';
import { renderReport } from './report.js';
import { readInput } from './input-file.js';
import { compareBeatTimes, meterFromBeats } from './timing.js';
import { FULL_SCORE, compareViews, readViews, slug } from './views.js';

const PAGE_FILE_RE = /^(.+)_page(\d+)(_BeatInfo\.csv|\.png)$/;
const SCORE_FILE_RE = /_BeatInfo\.csv$/;
/** ZScore's blank page per instrument (`Violin1_pagex.png`), and its INScore map. */
const PAGEX_RE = /^[^_]+_pagex(\.png|_InScoreMap\.txt)$/;
/** Problems listed in one error; a broken export can have thousands of rows. */
const MAX_PROBLEMS = 40;

/**
 * Import the ZScore export in `inDir` into a new package folder `outDir` (missing or empty).
 * Writes score.yaml, pages/, beatmaps/ and import-report.md.
 * @param {string} inDir
 * @param {string} outDir
 * @param {{ granulatorSound?: string }} [options]  granulatorSound: the sound file the phones'
 *   granulator plays (ZScore's export has none), copied into the package as audio/<name>
 * @returns {Promise<{ report: import('./report.js').ImportReport }>}
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split into a pipeline of steps each returning its problems (read, timing, views, cues, write)
export async function importZScore(inDir, outDir, { granulatorSound } = {}) {
  const outProblem = await outputDirProblem(outDir);
  if (outProblem) throw invalid([outProblem]);
  /** @type {{ out: string, bytes: Buffer } | null} */
  let sound = null;
  if (granulatorSound !== undefined) {
    const ext = /\.(mp3|wav|ogg|oga|m4a|aac|flac|opus|webm)$/i.exec(granulatorSound)?.[1]?.toLowerCase();
    if (!ext)
      throw invalid([
        `${granulatorSound}: the granulator's sound must be an audio file (.mp3, .wav, .ogg, .m4a, .aac, .flac, .opus or .webm)`,
      ]);
    let bytes;
    try {
      bytes = await readInput(granulatorSound, 'sound');
    } catch (err) {
      if (err instanceof ScorecastError) throw err;
      throw invalid([
        `${granulatorSound}: ${/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT' ? 'no such file' : /** @type {Error} */ (err).message}`,
      ]);
    }
    sound = {
      out: `audio/${slug(path.basename(granulatorSound, path.extname(granulatorSound)), 'granulator')}.${ext}`,
      bytes,
    };
  }

  let entries;
  try {
    entries = (await readdir(inDir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    const what =
      code === 'ENOENT'
        ? 'no such folder'
        : code === 'ENOTDIR'
          ? 'is not a folder'
          : /** @type {Error} */ (err).message;
    throw new ScorecastError('SC_ERR_EXPORT_NOT_FOUND', `${inDir}: ${what}`);
  }

  /** @type {string[]} */
  const problems = [];
  /** @type {import('./cues.js').ReportItem[]} */
  const converted = [];
  /** @type {import('./cues.js').ReportItem[]} */
  const notConverted = [];
  /** @type {string[]} */
  const notes = [];

  // The score-level file: its name is the score's, its rows carry every part and the scripts.
  // ZScore's export folder can hold it twice (`1_Union_Rose_BeatInfo.csv` beside
  // `Union_Rose_BeatInfo.csv`, byte for byte the same): identical copies are read once.
  const scoreFiles = entries
    .filter((e) => e.isFile() && SCORE_FILE_RE.test(e.name) && !PAGE_FILE_RE.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(/^\d+_/.test(a)) - Number(/^\d+_/.test(b)) || (a < b ? -1 : 1));
  if (scoreFiles.length === 0)
    throw invalid([
      `${inDir}: there is no score-level <Score>_BeatInfo.csv; ZScore's export writes one beside the page files (for a score "Mini": Mini_BeatInfo.csv)`,
    ]);
  const scoreFile = scoreFiles[0];
  const scoreBytes = await readInput(path.join(inDir, scoreFile), 'scoreCsv');
  if (scoreFiles.length > 1) {
    const differ = [];
    for (const other of scoreFiles.slice(1)) {
      if (scoreBytes.equals(await readInput(path.join(inDir, other), 'scoreCsv')))
        notes.push(
          `${other} is a byte-identical copy of ${scoreFile} (ZScore's export can write the score-level file twice); it was read once`,
        );
      else differ.push(other);
    }
    if (differ.length > 0)
      throw invalid([
        `${inDir}: there are ${differ.length + 1} different score-level BeatInfo files (${[scoreFile, ...differ].join(', ')}); keep only the one of the score to import (identical copies may stay)`,
      ]);
  }
  const scoreCsv = parseBeatInfoCsv(scoreBytes.toString('utf8'), scoreFile);
  problems.push(...scoreCsv.problems.map(describe));
  const scoreName = scoreCsv.rows[0]?.scoreName || scoreFile.replace(SCORE_FILE_RE, '').replace(/^\d+_/, '');
  for (const row of scoreCsv.rows) {
    if (row.scoreName !== scoreName)
      problems.push(
        `${row.file} line ${row.line}: scoreName is "${row.scoreName}" but the file's first row says "${scoreName}"; keep one score per export`,
      );
  }
  // ZScore names the files after the score with its spaces turned into underscores
  // ("Union Rose" -> Union_Rose_Violin1_page1.png); the title keeps its spaces.
  const filePrefixes = [...new Set([scoreName, fileName(scoreName)])];
  const filePrefix = fileName(scoreName);

  // Page files by part; YAML configuration; everything else is listed, not dropped.
  /** @type {Map<string, import('./views.js').PartFiles>} */
  const parts = new Map();
  /** @type {string[]} */
  const configFiles = [];
  for (const e of entries) {
    if (scoreFiles.includes(e.name)) continue;
    const m = PAGE_FILE_RE.exec(e.name);
    if (!e.isFile())
      notConverted.push({
        source: e.name,
        what: `${e.name}/`,
        reason: 'a folder: the importer reads the files of the export folder itself',
      });
    else if (m && filePrefixes.some((p) => m[1].startsWith(`${p}_`) && m[1].length > p.length + 1)) {
      const prefix = /** @type {string} */ (filePrefixes.find((p) => m[1].startsWith(`${p}_`)));
      const instrument = m[1].slice(prefix.length + 1);
      const part = parts.get(instrument) ?? { instrument, pages: new Map() };
      parts.set(instrument, part);
      const page = part.pages.get(Number(m[2])) ?? {};
      if (m[3] === '.png') page.png = e.name;
      else page.csv = e.name;
      part.pages.set(Number(m[2]), page);
    } else if (m)
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: `a page of another score: this export is of "${scoreName}", whose pages are named ${filePrefix}_<Part>_page<N>`,
      });
    else if (/\.ya?ml$/i.test(e.name)) configFiles.push(e.name);
    else if (PAGEX_RE.test(e.name))
      notConverted.push({
        source: e.name,
        what: e.name,
        reason:
          "ZScore's blank page of an instrument, which its players show while a part has no page to play; scorecast shows the part's own pages",
      });
    else if (/_InScoreMap\.txt$/.test(e.name))
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: "an INScore map: the beat positions of the BeatInfo CSV again, for ZScore's INScore clients",
      });
    else
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: "not part of ZScore's page export (page PNGs, BeatInfo CSVs, YAML configuration)",
      });
  }
  if (parts.size === 0) {
    problems.push(
      `${inDir}: no page files of "${scoreName}"; ZScore exports each part's pages as ${filePrefix}_<Part>_page<N>.png with ${filePrefix}_<Part>_page<N>_BeatInfo.csv`,
    );
    throw invalid(problems);
  }

  // Views in score order: the full score, then parts as the score-level file lists them.
  const order = [...new Set(scoreCsv.rows.map((r) => r.instrumentName))];
  const rank = (/** @type {string} */ name) =>
    name === FULL_SCORE ? -1 : order.includes(name) ? order.indexOf(name) : order.length;
  const partList = [...parts.values()].sort(
    (a, b) => rank(a.instrument) - rank(b.instrument) || (a.instrument < b.instrument ? -1 : 1),
  );
  const read = await readViews(inDir, scoreName, partList, filePrefix);
  problems.push(...read.problems);
  notes.push(...read.notes);
  const allViews = read.views;
  for (const name of order) {
    if (parts.has(name)) continue;
    const first = scoreCsv.rows.find((r) => r.instrumentName === name && !r.script);
    if (first)
      notConverted.push({
        source: `${scoreFile} line ${first.line}`,
        what: `beats of instrument "${name}"`,
        reason: `there are no page files ${filePrefix}_${name}_page<N>.png and _BeatInfo.csv, so it has no view`,
      });
  }

  // YAML configuration: presets for webScore.reset(N); the rest is listed.
  /** @type {Map<number, import('./script.js').Preset>} */
  const presets = new Map();
  /** The page strategy and the tile-to-page mapping, for the page choices (rose.js). */
  /** @type {Record<'rndStrategy' | 'pageRangeMapping', { value: unknown, line: number, file: string }[]>} */
  const roseConfig = { rndStrategy: [], pageRangeMapping: [] };
  for (const file of configFiles) {
    const config = readZScoreConfig((await readInput(path.join(inDir, file), 'config')).toString('utf8'), file);
    for (const key of /** @type {const} */ (['rndStrategy', 'pageRangeMapping'])) {
      const found = config[key];
      if (found) roseConfig[key].push({ ...found, file });
    }
    problems.push(...config.problems.map(describe));
    notConverted.push(...config.skipped);
    notes.push(...config.notes);
    if (config.scoreName !== null && config.scoreName !== scoreName && config.presets.length > 0)
      notes.push(
        `${file}: scoreName is "${config.scoreName}" but the BeatInfo files are of "${scoreName}"; its presets were used anyway`,
      );
    for (const p of config.presets) {
      if (presets.has(p.id))
        notes.push(
          `${p.file} line ${p.line}: preset ${p.id} is also in ${presets.get(p.id)?.file}; the first one is used`,
        );
      else presets.set(p.id, p);
    }
  }
  if (configFiles.length === 0)
    notes.push('no YAML configuration in the export folder: webScore.reset(N) scripts have no presets to run');

  if (problems.length > 0 || allViews.length !== partList.length) throw invalid(problems);
  problems.push(...compareViews(allViews));
  if (problems.length > 0) throw invalid(problems);
  // ZScore's AV lane is the composer's script lane (electronics, audience page), not a player's
  // part: its scripts become cues, its pages are not a view.
  const views = allViews.filter((v) => !isAvLane(v.instrument));
  if (views.length === 0)
    throw invalid([
      `${inDir}: the export has only the AV lane (${allViews.map((v) => v.instrument).join(', ')}); export the parts' pages too`,
    ]);
  for (const v of allViews.filter((x) => isAvLane(x.instrument))) {
    notConverted.push({
      source: `${v.pages[0].png} … ${v.pages[v.pages.length - 1].png}`,
      what: `the ${v.pages.length} page images of ${v.instrument}`,
      reason:
        "ZScore's AV lane is the composer's script lane, not a part a musician plays: its scripts were read as cues, its pages are not shown",
    });
  }

  // Timing, from the first view (all views agree).
  const ref = views[0];
  const timed = ref.beats.map((b) => ({ bar: b.bar, time: b.time, bpm: b.bpm, startMs: b.startMs, source: b.source }));
  const meter = meterFromBeats(timed);
  if (!meter.ok) throw invalid(meter.problems.map((p) => `${p.source}: ${p.message}`));
  const { map } = meter.value;
  const totalBeats = map.totalBeats;
  const timeMismatches = compareBeatTimes(map, timed);
  if (meter.value.pickup > 0)
    converted.push({
      source: ref.beats[0].source,
      what: `bar 0: ${meter.value.pickup}-beat upbeat`,
      result: `pickup: ${meter.value.pickup}`,
    });
  meter.value.meter.forEach((e, i) => {
    converted.push({
      source: meter.value.sources[i],
      what: meterText(e),
      result: `meter: ${JSON.stringify(e).replace(/"/g, '')}`,
    });
  });
  const firstBeatNo = ref.beats[0].beatNo;
  notes.push(
    `ZScore numbers the beats of ${ref.instrument} from ${firstBeatNo}${firstBeatNo === 0 ? ' (the opening upbeat)' : ''}: scorecast beat = beatNo - ${firstBeatNo}, counted in performance order`,
  );

  // Cues from the script rows: the score-level file's first, then those only in page files.
  const beatIndex = (/** @type {string} */ instrument, /** @type {number} */ beatNo) =>
    (allViews.find((v) => v.instrument === instrument) ?? ref).index.get(beatNo);
  const cueResult = cuesFromScripts([...scoreCsv.rows.filter((r) => r.script), ...read.scriptRows], beatIndex, presets);
  notConverted.push(...cueResult.skipped);
  notes.push(...cueResult.notes);
  // The audience's tiles and the pages their votes choose.
  const pageStarts = ref.pages.map((_, k) => ref.beats.findIndex((b) => b.page === k));
  const [rndStrategy = null] = roseConfig.rndStrategy;
  const [pageRangeMapping = null] = roseConfig.pageRangeMapping;
  const rose = readRose({
    calls: cueResult.calls,
    rndStrategy,
    pageRangeMapping,
    pageStarts,
    totalBeats,
    beatStarts: ref.beats.map((b) => b.startMs),
  });
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
  const speech = readSpeech(
    cueResult.calls,
    presets,
    ref.beats.map((b) => b.startMs),
  );
  for (const c of speech.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  // Phones that sound: the granulator.
  const granular = readGranulator(cueResult.calls, presets, sound?.out ?? null);
  for (const c of granular.consumed) consumed.add(`${c.source}\u0000${c.what}`);
  notes.push(...granular.notes);
  // Scripted tempo (sce.timedAction('tempo', ...)) as tempo changes on the grid.
  const ramped = withTempoRamps(cueResult.calls, ref.beats, meter.value.meter);
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
  // The load preset's sound settings are read by the speech and granulator readers when a script
  // uses them; what is left of it is listed.
  const loadRead = new Set([
    ...(speech.cues.length ? ['speechSynth'] : []),
    ...(granular.cues.length ? ['granulator'] : []),
  ]);
  // Every preset whose scripts change the audience view is one the conductor can fire from the
  // console, as ZScore's operator could run any of them.
  /** @type {{ id: number, name: string, set: Record<string, unknown> }[]} */
  const packagePresets = [];
  for (const p of presets.values()) {
    if (p.scripts.length === 0) continue;
    const set = presetPatch(p, { presets, ...roseSize });
    if (!set) continue;
    packagePresets.push({ id: p.id, name: `ZScore preset ${p.id}`, set });
    converted.push({
      source: `${p.file} line ${p.line}`,
      what: `preset ${p.id}`,
      result: `presets: { id: ${p.id}, set: ${JSON.stringify(set)} }, fired from the console`,
    });
  }
  const fireable = new Set(packagePresets.map((p) => p.id));
  for (const p of presets.values()) {
    if (cueResult.used.has(p.id) || fireable.has(p.id)) continue;
    if (p.id === -2 && p.scripts.length === 0 && p.config.length > 0 && p.config.every((c) => loadRead.has(c.name)))
      continue;
    const what = p.scripts.length
      ? `preset ${p.id}: ${p.scripts.map((s) => s.text).join(' ')}`
      : `preset ${p.id}: config ${p.config.map((c) => c.name).join(', ')}`;
    notConverted.push({
      source: `${p.file} line ${p.line}`,
      what,
      reason:
        "no web: script at a beat runs it (ZScore's conductor can also run presets by hand); scorecast has no presets: add a cue to score.yaml where it is needed",
    });
  }

  // Beat maps, checked with the same rules the server applies.
  /** @type {Record<string, { files: string[], beatmap: string }>} */
  const pages = {};
  /** @type {Record<string, string>} */
  const beatmaps = {};
  for (const v of views) {
    const file = `beatmaps/${v.id}.json`;
    const value = {
      pages: v.pages.map((p) => ({ file: p.out, width: p.width, height: p.height })),
      beats: v.beats.map((b, i) => ({
        beat: i,
        page: b.page,
        system: b.system,
        bar: b.bar,
        x0: b.x0,
        x1: b.x1,
        ...staffSpan(b, v.pages[b.page].height),
      })),
    };
    const checked = checkBeatMap(value, { file, totalBeats, pageCount: v.pages.length });
    if (!checked.ok) {
      problems.push(...checked.problems.map(describeBeatMapProblem));
      continue;
    }
    beatmaps[file] = beatMapJson(value);
    pages[v.id] = { files: v.pages.map((p) => p.out), beatmap: file };
    for (const p of v.pages)
      converted.push({
        source: p.png,
        what: p.png,
        result: `${p.out} (${p.width}x${p.height}), page ${p.no} of view ${v.id}`,
      });
    const systems = new Set(v.beats.map((b) => `${b.page}:${b.system}`)).size;
    converted.push({
      source: v.pages.map((p) => p.csv).join(', '),
      what: `beat positions of ${v.instrument}`,
      result: `${file}: ${v.beats.length} beats on ${v.pages.length} page${v.pages.length === 1 ? '' : 's'} in ${systems} system${systems === 1 ? '' : 's'}`,
    });
    const wide = v.beats.find((b) => b.x1 > v.pages[b.page].width);
    if (wide)
      notes.push(
        `${wide.source}: xEndPxl ${wide.x1} is beyond the width of ${v.pages[wide.page].png} (${v.pages[wide.page].width} px); ZScore measures x in points of the Illustrator artboard, so the PNG may have been exported at another scale: scale the beat map's x to match`,
      );
  }
  if (problems.length > 0) throw invalid(problems);
  const flat = views.flatMap((v) => v.beats.filter((b) => b.y0 === b.y1).map(() => v.instrument));
  if (flat.length > 0) {
    notes.push(
      `yStartPxl equals yEndPxl for ${flat.length} beats of ${[...new Set(flat)].join(', ')} (ZScore's exporter writes a fixed 100, which marks no staff): their beat boxes span the whole page height, so the page is shown whole and the cursor crosses every staff of the system; systems were found where the beats go back to the left`,
    );
  }
  for (const v of views)
    notes.push(
      `ZScore instrument "${v.instrument}" is the view \`${v.id}\` (${v.id === 'score' ? 'the full score' : `part id ${v.id}`})`,
    );
  converted.push(
    ...cueResult.converted,
    ...rose.converted,
    ...speech.converted,
    ...granular.converted,
    ...motion.converted,
    ...rndPages.converted,
    ...ramped.converted,
  );

  const id = slug(scoreName, 'zscore-import');
  const manifest = renderManifest({
    comment: `Imported from ZScore's export of "${scoreName}" by scorecast import-zscore; import-report.md lists what was and was not converted.`,
    id,
    title: scoreName,
    parts: views.filter((v) => v.id !== 'score').map((v) => ({ id: v.id, name: v.instrument })),
    pages,
    pickup: meter.value.pickup,
    bars: meter.value.bars,
    meter: ramped.meter,
    cues: [...cueResult.cues, ...rose.cues, ...speech.cues, ...granular.cues, ...motion.cues].sort(
      (a, b) => a.at - b.at,
    ),
    osc: [...cueResult.osc, ...rndPages.osc].sort((a, b) => a.at - b.at),
    presets: packagePresets,
    pageChoices: rose.pageChoices.map((c) => ({
      slot: c.slot,
      at: c.at,
      from: c.from.length === 1 ? c.from[0] : c.from,
      groups: c.groups,
      ...(c.vote ? { vote: c.vote } : {}),
      ...(Object.keys(c.tiles).length ? { tiles: c.tiles } : {}),
      ...(c.next.length ? { next: c.next } : {}),
    })),
  });

  notConverted.sort(bySource);
  const writer = createPackageWriter(outDir);
  /** @type {import('./report.js').ImportReport} */
  const report = {
    file: path.join(writer.root, 'import-report.md'),
    source: inDir,
    score: {
      id,
      title: scoreName,
      totalBeats,
      bars: meter.value.bars,
      pickup: meter.value.pickup,
      cues: cueResult.cues.length + rose.cues.length + speech.cues.length + granular.cues.length + motion.cues.length,
      views: views.map((v) => ({ id: v.id, instrument: v.instrument, pages: v.pages.length })),
    },
    converted,
    notConverted,
    timeMismatches,
    notes,
  };
  for (const v of views) for (const p of v.pages) await writer.write(p.out, p.bytes);
  for (const [file, text] of Object.entries(beatmaps)) await writer.write(file, text);
  if (sound && granular.cues.length > 0) await writer.write(sound.out, sound.bytes);
  await writer.write('score.yaml', manifest);
  await writer.write(SCHEMA_FILE, await readFile(SCHEMA_PATH));
  await writer.write('import-report.md', renderReport(report));
  return { report };
}

/**
 * The vertical extent of a beat box. ZScore's exporter writes yStartPxl = yEndPxl = 100 for every
 * beat (DEFAULT_Y_POSITION in zscoreManager.jsx), a line that marks no staff; such a beat spans
 * the page's height, as ZScore's players draw their beat lines.
 * @param {{ y0: number, y1: number }} b
 * @param {number} height  page height
 */
function staffSpan(b, height) {
  return b.y0 === b.y1 ? { y0: 0, y1: height } : { y0: b.y0, y1: b.y1 };
}

/**
 * ZScore's audio-visual lane: an instrument named AV, which its strategies skip as they skip the
 * full score (Instrument.isAv in szcore).
 * @param {string} instrument
 */
function isAvLane(instrument) {
  return instrument.toUpperCase() === 'AV';
}

/**
 * A score name as ZScore's exporter writes it in file names: spaces become underscores.
 * @param {string} name
 */
function fileName(name) {
  return name.replace(/ /g, '_');
}

/**
 * @param {import('./csv.js').SourceProblem} p
 */
function describe(p) {
  return `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`;
}

/**
 * Order report items by file, then line.
 * @param {{ source: string }} a
 * @param {{ source: string }} b
 */
function bySource(a, b) {
  const [fa, la] = splitSource(a.source);
  const [fb, lb] = splitSource(b.source);
  return fa < fb ? -1 : fa > fb ? 1 : la - lb;
}

/**
 * @param {string} source "file line N" or "file"
 * @returns {[string, number]}
 */
function splitSource(source) {
  const m = /^(.*) line (\d+)$/.exec(source);
  return m ? [m[1], Number(m[2])] : [source, 0];
}

/**
 * @param {string[]} lines
 */
function invalid(lines) {
  const shown = lines.slice(0, MAX_PROBLEMS);
  if (lines.length > MAX_PROBLEMS) shown.push(`... and ${lines.length - MAX_PROBLEMS} more problems`);
  return new ScorecastError('SC_ERR_SCORE_INVALID', shown);
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

/**
 * A beat map as JSON with one page and one beat per line.
 * @param {{ pages: object[], beats: object[] }} value
 */
function beatMapJson(value) {
  const list = (/** @type {object[]} */ items) => items.map((x) => `    ${JSON.stringify(x)}`).join(',\n');
  return `{\n  "pages": [\n${list(value.pages)}\n  ],\n  "beats": [\n${list(value.beats)}\n  ]\n}\n`;
}
