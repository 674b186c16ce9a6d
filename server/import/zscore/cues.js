// Cues of an imported ZScore score, from the script rows of its BeatInfo files. Each row sits on
// a beat of one instrument; ZScore's exporter writes a bar's scripts into the part's file, again
// into the full score's, and all of them into the score-level file, so the same script at the
// same beat is read once. Only `web:` scripts drive the audience page; what they do that has a
// scorecast counterpart becomes a cue, everything else is listed with the reason.

import { applyOps, convertWebCalls, parseWebCalls, splitWebResource, zscoreScriptBeat } from './script.js';
import { readMaxLine } from './max.js';

/**
 * @typedef {object} ReportItem
 * @property {string} source  "file line N"
 * @property {string} what
 * @property {string} [result]  what it became (converted items)
 * @property {string} [reason]  why not (items not converted)
 */

/**
 * @typedef {object} ImportedCue
 * @property {number} at
 * @property {Record<string, unknown>} set  merge patch of the audience view
 */

/** Why scripts for other ZScore clients stay behind. */
const KIND_REASONS = /** @type {Record<string, string>} */ ({
  sce: "a script for ZScore's scripting engine (server-side JavaScript); scorecast has no scripting engine",
  javascript: "a script for ZScore's INScore clients; scorecast does not drive INScore",
  transition: 'an INScore transition (fade of a scene element); scorecast does not drive INScore',
});

/**
 * A call of a `web:` or `sce:` script, on the beat where it runs (the rose, page choices).
 * @typedef {object} TimedCall
 * @property {number} at
 * @property {'web' | 'sce'} kind
 * @property {string} method
 * @property {unknown[]} args
 * @property {string} text
 * @property {string} source
 */

/**
 * @param {import('./csv.js').BeatInfoRow[]} rows  script rows, score-level file first
 * @param {(instrument: string, beatNo: number) => number | undefined} beatIndex
 * @param {Map<number, import('./script.js').Preset>} presets
 * @returns {{ cues: ImportedCue[], converted: ReportItem[], skipped: ReportItem[], notes: string[], used: Set<number>, calls: TimedCall[], osc: { at: number, address: string, args: (string | number)[], setup?: 'only' | 'also' }[] }}
 */
export function cuesFromScripts(rows, beatIndex, presets) {
  /** @type {ReportItem[]} */
  const converted = [];
  /** @type {ReportItem[]} */
  const skipped = [];
  /** @type {string[]} */
  const notes = [];
  /** @type {Set<number>} */
  const used = new Set();
  /** @type {{ at: number, order: number, ops: import('./script.js').Op[], source: string, what: string, note: string }[]} */
  const pending = [];
  /** @type {Set<string>} */
  const seen = new Set();
  let duplicates = 0;
  /** @type {TimedCall[]} */
  const calls = [];
  /** @type {{ at: number, address: string, args: (string | number)[], setup?: 'only' | 'also' }[]} */
  const osc = [];

  for (const row of rows) {
    const source = `${row.file} line ${row.line}`;
    const what = row.resource;
    const at = beatIndex(row.instrumentName, row.beatNo);
    if (at === undefined) {
      skipped.push({
        source,
        what,
        reason: `it is on beat ${row.beatNo} of ${row.instrumentName}, which is not a beat of the imported score`,
      });
      continue;
    }
    const key = `${at}\u0000${row.resource}`;
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    if (row.script === 'sce') {
      // Read for the page strategy (sce.setRndStrategy); reported as not converted here, the
      // rose's reader takes back what it converts.
      const split = splitWebResource(row.resource.replace(/^sce:/, 'web:'));
      if (split.ok && split.value.reset !== 'only') {
        const parsed = parseWebCalls(split.value.body, 'sce');
        const t =
          split.value.beat === null
            ? at
            : beatIndex(row.instrumentName, zscoreScriptBeat(row.beatNo, split.value.beat));
        if (parsed.ok && t !== undefined)
          for (const c of parsed.calls)
            calls.push({ at: t, kind: 'sce', method: c.method, args: c.args, text: what, source });
      }
    }
    if (row.script === 'max') {
      const line = readMaxLine(row.resource);
      if (!line.ok) {
        skipped.push({ source, what, reason: line.message });
        continue;
      }
      // `beat=N` moves the line to another beat of its lane (kept where it is when there is no
      // such beat, as szcore's ScoreLoader does).
      let t = at;
      if (line.value.beat !== null)
        t = beatIndex(row.instrumentName, zscoreScriptBeat(row.beatNo, line.value.beat)) ?? at;
      if (line.value.reset !== null) {
        // A reset point: part of the set-up ZScore sends when it starts at a position, the set of
        // the latest beat at or before the start that has one (szcore: addMaxPreset and
        // MaxMspScoreConfig.getBeatResetScripts).
        const setup = line.value.reset === 'only' ? 'only' : 'also';
        osc.push({ at: t, address: line.value.address, args: line.value.args, setup });
        if (setup === 'only') {
          converted.push({
            source,
            what,
            result: `OSC set-up, sent when the performance starts at beat ${t} or later (up to the next set-up): ${line.value.address} ${line.value.args.join(' ')}`,
          });
          continue;
        }
      }
      if (line.value.reset === null) osc.push({ at: t, address: line.value.address, args: line.value.args });
      converted.push({
        source,
        what,
        result: `OSC cue at beat ${t}${line.value.reset === 'both' ? ', and set-up for a start there' : ''}: ${line.value.address} ${line.value.args.join(' ')}`,
      });
      continue;
    }
    if (row.script !== 'web') {
      skipped.push({ source, what, reason: KIND_REASONS[/** @type {string} */ (row.script)] });
      continue;
    }
    const split = splitWebResource(row.resource);
    if (!split.ok) {
      skipped.push({ source, what, reason: split.message });
      continue;
    }
    const { beat, reset, body } = split.value;
    if (reset === 'only') {
      skipped.push({
        source,
        what,
        reason:
          "a reset-only script: ZScore runs it only when it jumps to a position, to restore the page; scorecast rebuilds a view's state at any seek from the cues before it",
      });
      continue;
    }
    let target = at;
    let note = reset === 'both' ? 'a ZScore reset point too: scorecast restores state at a seek from earlier cues' : '';
    if (beat !== null) {
      const beatNo = zscoreScriptBeat(row.beatNo, beat);
      const t = beatIndex(row.instrumentName, beatNo);
      if (t === undefined)
        notes.push(
          `${source}: beat=${beat} points at beat ${beatNo} of ${row.instrumentName}, which does not exist; the cue stays on the row's own beat, as in ZScore`,
        );
      else target = t;
      note = [note, `beat=${beat}: from ZScore beat ${row.beatNo} to ${beatNo}`].filter(Boolean).join('; ');
    }
    const parsed = parseWebCalls(body);
    if (!parsed.ok) {
      skipped.push({
        source,
        what,
        reason: `could not read the script (${parsed.message}); only calls like webScore.setInstructions('a', 'b', 'c') with literal arguments are understood`,
      });
      continue;
    }
    for (const c of parsed.calls)
      calls.push({ at: target, kind: 'web', method: c.method, args: c.args, text: c.text, source });
    const result = convertWebCalls(parsed.calls, { source, presets, used });
    skipped.push(...result.skipped);
    if (result.ops.length > 0)
      pending.push({
        at: target,
        order: pending.length,
        ops: result.ops,
        source,
        what: result.converted.join('; '),
        note,
      });
  }
  if (duplicates > 0)
    notes.push(
      `${duplicates} script row${duplicates === 1 ? '' : 's'} repeated a script already read at the same beat (ZScore's exporter writes each script for the part, the full score and the score-level file); each was converted once`,
    );

  pending.sort((a, b) => a.at - b.at || a.order - b.order);
  /** @type {ImportedCue[]} */
  const cues = [];
  for (const p of pending) {
    const set = applyOps(p.ops);
    cues.push({ at: p.at, set });
    converted.push({
      source: p.source,
      what: p.what,
      result: `cue at beat ${p.at}: set ${JSON.stringify(set)}${p.note ? ` (${p.note})` : ''}`,
    });
  }
  calls.sort((a, b) => a.at - b.at);
  osc.sort((a, b) => a.at - b.at);
  return { cues, converted, skipped, notes, used, calls, osc };
}
