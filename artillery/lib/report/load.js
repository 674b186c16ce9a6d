// Loading results for the report: the campaign, stress, soak and case folders among its inputs,
// each with its records (case.json, Artillery's JSON reports, samples.jsonl, trace.jsonl).

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** @typedef {import('../records.js').ArtilleryPeriod} ArtilleryPeriod */
/** @typedef {import('../records.js').ArtilleryReport} ArtilleryReport */
/** @typedef {import('../records.js').CaseRecord} CaseRecord */
/** @typedef {import('../records.js').Sample} Sample */
/** @typedef {import('../records.js').TraceLine} TraceLine */
/** @typedef {import('../records.js').TraceSecond} TraceSecond */

/**
 * A case folder, loaded.
 * @typedef {object} LoadedCase
 * @property {string} dir
 * @property {CaseRecord} rec
 * @property {ArtilleryPeriod | null} measured  the measured run's aggregate
 * @property {ArtilleryPeriod[]} intermediate   its 10 s periods
 * @property {ArtilleryPeriod | null} warmup    the warm-up run's aggregate
 * @property {Sample[]} samples
 * @property {TraceSecond[]} trace
 * @property {string} [runLabel]  set by the report for a stress step's confirming run
 */

/**
 * A run of `npm run bench:audio -- --out FILE` (bench/audio.js): each profile's figures and its
 * onsets page by page (`series`).
 * @typedef {object} LoadedAudio
 * @property {string} file
 * @property {string} at
 * @property {Record<string, any>} results  by profile
 */

/** @typedef {{ dir: string, rec: import('../records.js').CampaignRecord, cases: LoadedCase[] }} LoadedCampaign */
/** @typedef {import('../records.js').StepRecord & { data: LoadedCase | null }} LoadedStep */
/** @typedef {{ dir: string, rec: import('../records.js').StressRecord, steps: LoadedStep[] }} LoadedStress */

/**
 * A soak folder, loaded.
 * @typedef {object} LoadedSoak
 * @property {string} dir
 * @property {import('../records.js').SoakRecord} rec
 * @property {ArtilleryPeriod | null} measured
 * @property {ArtilleryPeriod[]} intermediate
 * @property {Sample[]} samples
 * @property {TraceSecond[]} trace
 */

/** @typedef {{ campaigns: LoadedCampaign[], stresses: LoadedStress[], soaks: LoadedSoak[], cases: LoadedCase[], audio: LoadedAudio[] }} Found */

/** The file name bench:audio's results are looked for under in a folder (`--out DIR/audio.json`). */
export const AUDIO_FILE = 'audio.json';

/**
 * bench:audio's results, or null when the file is not such a run.
 * @param {string} file
 * @returns {LoadedAudio | null}
 */
function loadAudio(file) {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    const results = j?.results;
    if (!results || typeof results !== 'object') return null;
    const runs = Object.values(results);
    if (runs.length === 0 || !runs.every((r) => r && Array.isArray(r.series) && r.onsetSpreadMs)) return null;
    return { file, at: String(j.at ?? ''), results };
  } catch {
    return null;
  }
}

/**
 * A JSON file, taken to hold a record of the type the caller names.
 * @template T
 * @param {string} f
 * @returns {T}
 */
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));

/**
 * The JSON lines of a file (none when it is missing); lines that do not parse are left out.
 * @template T
 * @param {string} f
 * @returns {T[]}
 */
const readLines = (f) =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return null;
          }
        })
        .filter(Boolean)
    : [];

/** @param {string} f @returns {ArtilleryReport} */
const readReport = (f) => readJson(f);

/**
 * @param {string} dir
 * @returns {LoadedCase}
 */
function loadCase(dir) {
  /** @type {CaseRecord} */
  const rec = readJson(path.join(dir, 'case.json'));
  const m = path.join(dir, 'measured.json');
  const w = path.join(dir, 'warmup.json');
  return {
    dir,
    rec,
    measured: existsSync(m) ? readReport(m).aggregate : null,
    intermediate: existsSync(m) ? readReport(m).intermediate : [],
    warmup: existsSync(w) ? readReport(w).aggregate : null,
    samples: readLines(path.join(dir, 'samples.jsonl')),
    trace: mergeTrace(readLines(path.join(dir, 'trace.jsonl'))),
  };
}

/**
 * Per-second trace lines from every worker thread, merged by second.
 * @param {TraceLine[]} lines
 * @returns {TraceSecond[]}
 */
function mergeTrace(lines) {
  /** @type {Map<number, TraceSecond>} */
  const bySec = new Map();
  for (const l of lines) {
    const s = Math.round(l.ts / 1000);
    let e = bySec.get(s);
    if (!e) {
      e = { ts: s * 1000, active: {}, loopMaxMs: 0, metrics: {} };
      bySec.set(s, e);
    }
    for (const [k, v] of Object.entries(l.active || {})) e.active[k] = (e.active[k] || 0) + v;
    e.loopMaxMs = Math.max(e.loopMaxMs, l.loopMaxMs || 0);
    for (const [k, v] of Object.entries(l.metrics || {})) {
      const o = e.metrics[k];
      if (!o) e.metrics[k] = { ...v };
      else {
        o.mean = (o.mean * o.n + v.mean * v.n) / (o.n + v.n);
        o.n += v.n;
        for (const q of /** @type {const} */ (['p50', 'p95', 'p99', 'max'])) o[q] = Math.max(o[q], v[q]);
      }
    }
  }
  return [...bySec.values()].sort((a, b) => a.ts - b.ts);
}

/**
 * Find campaign, stress, soak and case directories in the inputs (up to two levels down).
 * @param {string[]} inputs
 * @returns {Found}
 */
export function collect(inputs) {
  /** @type {Found} */
  const found = { campaigns: [], stresses: [], soaks: [], cases: [], audio: [] };
  /** @type {Set<string>} */
  const seen = new Set();
  /** @param {string} dir @param {number} depth */
  const visit = (dir, depth) => {
    if (seen.has(dir) || !existsSync(dir)) return;
    // bench:audio's results, given as a file or found in a folder beside the others.
    if (statSync(dir).isFile()) {
      const a = dir.endsWith('.json') ? loadAudio(dir) : null;
      if (a) found.audio.push(a);
      seen.add(dir);
      return;
    }
    seen.add(dir);
    if (existsSync(path.join(dir, AUDIO_FILE))) visit(path.join(dir, AUDIO_FILE), depth);
    if (existsSync(path.join(dir, 'campaign.json'))) {
      /** @type {import('../records.js').CampaignRecord} */
      const c = readJson(path.join(dir, 'campaign.json'));
      const cases = c.cases
        .map((x) => path.join(dir, x.dir))
        .filter((d) => existsSync(path.join(d, 'case.json')))
        .map(loadCase);
      for (const k of cases) seen.add(k.dir);
      found.campaigns.push({ dir, rec: c, cases });
      return;
    }
    if (existsSync(path.join(dir, 'stress.json'))) {
      /** @type {import('../records.js').StressRecord} */
      const s = readJson(path.join(dir, 'stress.json'));
      const steps = s.steps.map((x) => ({
        ...x,
        data: existsSync(path.join(dir, x.dir, 'case.json')) ? loadCase(path.join(dir, x.dir)) : null,
      }));
      found.stresses.push({ dir, rec: s, steps });
      return;
    }
    if (existsSync(path.join(dir, 'soak.json'))) {
      /** @type {import('../records.js').SoakRecord} */
      const rec = readJson(path.join(dir, 'soak.json'));
      const m = path.join(dir, 'measured.json');
      found.soaks.push({
        dir,
        rec,
        measured: existsSync(m) ? readReport(m).aggregate : null,
        intermediate: existsSync(m) ? readReport(m).intermediate : [],
        samples: readLines(path.join(dir, 'samples.jsonl')),
        trace: mergeTrace(readLines(path.join(dir, 'trace.jsonl'))),
      });
      return;
    }
    if (existsSync(path.join(dir, 'case.json'))) {
      found.cases.push(loadCase(dir));
      return;
    }
    if (depth < 2)
      for (const d of readdirSync(dir).sort()) {
        const sub = path.join(dir, d);
        // Of the files, only bench:audio's are read (the others are records the folders above own).
        if (statSync(sub).isDirectory()) visit(sub, depth + 1);
      }
  };
  for (const i of inputs) visit(path.resolve(i), 0);
  return found;
}
