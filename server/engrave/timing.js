// The bars of a score in performance order, from Verovio's timemap and its MEI.
//
// The timemap (renderToTimemap with includeMeasures) is expanded: repeats are played out and a
// measure's second playing has the id "<id>-rend2". Its measure starts give the performance order
// and each bar's length (qstamp, in quarter notes). The MEI gives what the timemap lacks: bar
// numbers, time signatures, and tempo marks at the beat where they are written (the timemap
// moves a mid-bar tempo change to the bar's start). Tempo in MEI and in Verovio is in quarter
// notes a minute (MEI @midi.bpm); our beat is the time signature's denominator.

import { childrenNamed, localName, walk } from './xml.js';
import { createTempoMapFromBars } from '../../core/tempo-map.js';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';

/** Verovio's tempo when the notation has none (quarter notes a minute). */
const DEFAULT_QBPM = 120;
const EPS = 1e-6;

/**
 * One entry of Verovio's timemap.
 * @typedef {object} TimemapEntry
 * @property {number} qstamp      quarter notes from the start, in performance order
 * @property {number} tstamp      milliseconds from the start
 * @property {string} [measureOn] id of the measure starting here
 * @property {string[]} [on]      ids of notes starting here
 * @property {string[]} [restsOn] ids of rests starting here
 * @property {number} [tempo]
 */

/**
 * A measure as written (document order).
 * @typedef {object} WrittenMeasure
 * @property {string} id
 * @property {string} n                as written
 * @property {[number, number]} time   time signature in force
 * @property {{ tstamp: number, qbpm: number }[]} tempo  tempo marks: beat in the bar (1-based), quarter notes a minute
 */

/**
 * What the beat maps of every view need: bars in performance order and, for each measure's
 * first playing, the onsets in it.
 * @typedef {object} Timing
 * @property {import('../../core/tempo-map.js').BarSpec[]} bars
 * @property {string[]} measureOf      measure id of each bar in `bars`
 * @property {number[]} length         each bar's length in quarter notes
 * @property {Record<string, [number, string[]][]>} onsets  measure id -> [quarters from its start, ids of notes and rests]
 */

/**
 * The measures of Verovio's MEI in document order, with time signature and tempo marks.
 * @param {import('./xml.js').XmlElement} root
 * @returns {{ measures: WrittenMeasure[], initialQbpm: number | null }}
 */
export function writtenMeasures(root) {
  /** @type {WrittenMeasure[]} */
  const measures = [];
  /** @type {[number, number]} */
  let time = [4, 4];
  /** @type {number | null} */
  let initialQbpm = null;
  walk(root, (el) => {
    const ln = localName(el);
    if (ln === 'meiHead') return false;
    if (ln === 'scoreDef' || ln === 'staffDef') {
      const meter = meterOf(el);
      if (meter) time = meter;
      if (ln === 'scoreDef' && measures.length === 0 && el.attrs['midi.bpm']) initialQbpm = Number(el.attrs['midi.bpm']) || null;
      return false;
    }
    if (ln !== 'measure') return true;
    const tempo = childrenNamed(el, 'tempo').flatMap((t) => {
      const qbpm = quarterBpm(t.attrs);
      return qbpm ? [{ tstamp: Math.max(1, Number(t.attrs.tstamp ?? 1) || 1), qbpm }] : [];
    }).sort((a, b) => a.tstamp - b.tstamp);
    measures.push({ id: el.attrs['xml:id'] ?? '', n: el.attrs.n ?? '', time, tempo });
    return false;
  });
  return { measures, initialQbpm };
}

/**
 * The time signature a scoreDef or staffDef sets, if any (attributes, or a meterSig child; the
 * first staff's meter when staves differ).
 * @param {import('./xml.js').XmlElement} el
 * @returns {[number, number] | null}
 */
function meterOf(el) {
  /** @type {Record<string, string> | null} */
  let attrs = el.attrs['meter.count'] || el.attrs['meter.sym'] ? { count: el.attrs['meter.count'], unit: el.attrs['meter.unit'], sym: el.attrs['meter.sym'] } : null;
  if (!attrs) {
    walk(el, (d) => {
      if (attrs) return false;
      if (localName(d) === 'meterSig') attrs = d.attrs;
      return true;
    });
  }
  if (!attrs) return null;
  const a = /** @type {Record<string, string>} */ (attrs);
  if (!a.count && a.sym === 'common') return [4, 4];
  if (!a.count && a.sym === 'cut') return [2, 2];
  const count = (a.count ?? '').split('+').reduce((s, x) => s + (parseInt(x, 10) || 0), 0);
  const unit = parseInt(a.unit ?? '', 10);
  return count > 0 && unit > 0 ? [count, unit] : null;
}

/**
 * Quarter notes a minute of a <tempo>: @midi.bpm, else @midi.mspb, else @mm per @mm.unit.
 * @param {Record<string, string>} a
 */
function quarterBpm(a) {
  if (Number(a['midi.bpm']) > 0) return Number(a['midi.bpm']);
  if (Number(a['midi.mspb']) > 0) return 60e6 / Number(a['midi.mspb']);
  const mm = Number(a.mm);
  if (!(mm > 0)) return 0;
  const unit = Number(a['mm.unit'] ?? 4) || 4;
  const dots = Number(a['mm.dots'] ?? 0) || 0;
  return mm * (4 / unit) * (2 - 0.5 ** dots);
}

/**
 * Bars in performance order with time signatures and tempi, and the onsets in each measure.
 * @param {import('./xml.js').XmlElement} meiRoot Verovio's MEI of the score
 * @param {TimemapEntry[]} timemap
 * @returns {{ ok: true, timing: Timing, warnings: string[] } | { ok: false, problems: string[] }}
 */
export function deriveTiming(meiRoot, timemap) {
  const { measures, initialQbpm } = writtenMeasures(meiRoot);
  const byId = new Map(measures.map((m) => [m.id, m]));
  /** @type {string[]} */
  const warnings = [];

  /** @type {{ id: string, q0: number }[]} */
  const played = [];
  /** @type {Record<string, [number, string[]][]>} */
  const onsets = {};
  /** @type {[number, string[]][] | null} */
  let current = null;
  let end = 0;
  for (const e of timemap) {
    end = Math.max(end, e.qstamp);
    if (e.measureOn) {
      const id = e.measureOn.replace(/-rend\d+$/, '');
      played.push({ id, q0: e.qstamp });
      // Positions come from a measure's first playing; its repeats are drawn in the same place.
      current = id === e.measureOn && !onsets[id] ? (onsets[id] = []) : null;
    }
    const ids = [...(e.on ?? []), ...(e.restsOn ?? [])];
    if (current && ids.length) current.push([e.qstamp - played[played.length - 1].q0, ids]);
  }
  if (played.length === 0) return { ok: false, problems: ['has no measures that Verovio can time'] };
  // The bounds of doc/score-format.md, "Limits", before any page is engraved (a page holds at
  // least one bar, so this bounds the pages too).
  if (played.length > PACKAGE_LIMITS.bars) {
    return { ok: false, problems: [`has ${played.length} bars in performance order, more than the ${PACKAGE_LIMITS.bars} a package may have; split the piece into movements`] };
  }

  // A pickup numbered 1 before a bar 2 (some programs count it): number it 0, as musicians do.
  const firstN = parseInt(byId.get(played[0].id)?.n ?? '', 10);
  const isPickup = (/** @type {number} */ i) => {
    const m = byId.get(played[i].id);
    const next = played[i + 1] ? played[i + 1].q0 : end;
    return m ? (next - played[i].q0) * (m.time[1] / 4) < m.time[0] - EPS : false;
  };
  const shift = isPickup(0) && firstN > 0 && parseInt(byId.get(played[1]?.id ?? '')?.n ?? '', 10) === firstN + 1 ? firstN : 0;
  if (shift) warnings.push(`the pickup bar is numbered ${firstN}; bars are numbered from 0 at the pickup, so bar ${firstN + 1} is bar 1 here`);

  /** @type {import('../../core/tempo-map.js').BarSpec[]} */
  const bars = [];
  /** @type {number[]} */
  const length = [];
  let lastWritten = -1;
  let qbpm = 0;
  let lastUnit = 0;
  const problemsOf = new Set();
  for (let i = 0; i < played.length; i++) {
    const m = byId.get(played[i].id);
    if (!m) return { ok: false, problems: [`has a measure (${played[i].id}) that Verovio times but does not write; report this file`] };
    const q = (i + 1 < played.length ? played[i + 1].q0 : end) - played[i].q0;
    const exact = (q * m.time[1]) / 4;
    let beats = Math.round(exact);
    let bar = parseInt(m.n, 10);
    if (!Number.isInteger(bar)) {
      bar = lastWritten + 1;
      note(problemsOf, warnings, `a bar numbered "${m.n}" is taken as bar ${bar}`);
    } else {
      bar -= shift;
    }
    if (Math.abs(exact - beats) > EPS || beats < 1) {
      beats = Math.max(1, beats);
      note(problemsOf, warnings, `bar ${bar} lasts ${+exact.toFixed(3)} beats of ${m.time[0]}/${m.time[1]}, not a whole number; it is counted as ${beats}`);
    }
    lastWritten = bar;
    const firstBeat = i === 0 && beats < m.time[0] ? m.time[0] - beats + 1 : 1;
    /** @type {{ beat: number, bpm: number }[]} */
    const tempo = [];
    /** @param {number} offset beats from the bar's first @param {number} q quarter bpm */
    const setTempo = (offset, q) => {
      const at = firstBeat + offset;
      const bpm = +((q * m.time[1]) / 4).toFixed(6);
      if (tempo.length && tempo[tempo.length - 1].beat === at) tempo[tempo.length - 1].bpm = bpm;
      else tempo.push({ beat: at, bpm });
      qbpm = q;
    };
    if (i === 0) {
      const opening = m.tempo.find((t) => t.tstamp - 1 < EPS)?.qbpm ?? initialQbpm;
      if (!opening) warnings.push(`there is no tempo marking at the start; ♩ = ${DEFAULT_QBPM} is assumed (as Verovio does)`);
      setTempo(0, opening ?? DEFAULT_QBPM);
    } else if (m.time[1] !== lastUnit) {
      // The beat unit changed: the same quarter-note tempo counts in the new unit.
      setTempo(0, qbpm);
    }
    for (const t of m.tempo) {
      const exactBeat = t.tstamp - 1;
      let offset = Math.round(exactBeat);
      if (offset >= beats) offset = beats - 1;
      if (Math.abs(offset - exactBeat) > EPS) {
        note(problemsOf, warnings, `bar ${bar}: the tempo change at beat ${+(firstBeat + exactBeat).toFixed(3)} is not on a beat; it takes effect at beat ${firstBeat + offset}`);
      }
      setTempo(offset, t.qbpm);
    }
    lastUnit = m.time[1];
    bars.push({ bar, time: m.time, beats, ...(tempo.length ? { tempo } : {}) });
    length.push(q);
  }
  const beats = bars.reduce((n, b) => n + (b.beats ?? b.time[0]), 0);
  if (beats > PACKAGE_LIMITS.beats) {
    return { ok: false, problems: [`has ${beats} beats in performance order, more than the ${PACKAGE_LIMITS.beats} a package may have; split the piece into movements`] };
  }
  try {
    createTempoMapFromBars(bars);
  } catch (err) {
    return { ok: false, problems: [`${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}; check the notation's tempo and time signatures`] };
  }
  return { ok: true, timing: { bars, measureOf: played.map((p) => p.id), length, onsets }, warnings };
}

/**
 * Add a warning once (a repeated bar would give it twice).
 * @param {Set<string>} seen
 * @param {string[]} warnings
 * @param {string} text
 */
function note(seen, warnings, text) {
  if (!seen.has(text)) warnings.push(text);
  seen.add(text);
}
