// The bars of a score in performance order, from the MusicXML's form, Verovio's timemap and its MEI.
//
// For MusicXML, performance-order.js gives the order and musicxml-form.js each bar's length; the
// timemap (renderToTimemap with includeMeasures) gives where the notes are in each measure's first
// playing. For MEI the timemap's own expansion of repeats (a measure's second playing has the id
// "<id>-rend2") gives the order and lengths. The MEI gives what the timemap lacks: bar
// numbers, time signatures, and tempo marks at the beat where they are written (the timemap
// moves a mid-bar tempo change to the bar's start). Tempo in MEI and in Verovio is in quarter
// notes a minute (MEI @midi.bpm); our beat is the time signature's denominator.

import { childrenNamed, localName, textOf, walk } from './xml.js';
import { createTempoMapFromBars } from '../../../core/tempo-map.js';
import { PACKAGE_LIMITS } from '../../../core/package-limits.js';
import { performanceOrder } from './performance-order.js';

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
 * @property {{ tstamp: number, name: string }[]} marks  rehearsal marks (<reh>): beat in the bar, text
 */

/**
 * What the beat maps of every view need: bars in performance order and, for each measure's
 * first playing, the onsets in it.
 * @typedef {object} Timing
 * @property {import('../../../core/tempo-map.js').BarSpec[]} bars
 * @property {string[]} measureOf      measure id of each bar in `bars`
 * @property {number[]} length         each bar's length in quarter notes
 * @property {Record<string, [number, string[]][]>} onsets  measure id -> [quarters from its start, ids of notes and rests]
 */

/**
 * The measures of Verovio's MEI in document order, with time signature, tempo and rehearsal marks.
 * @param {import('./xml.js').XmlElement} root
 * @param {string} [text]  the MEI the root was parsed from: the rehearsal marks' names are read
 *   from it (without it, none)
 * @returns {{ measures: WrittenMeasure[], initialQbpm: number | null, owner: Map<string, number> }}
 *   owner: the measure (index) of every element id inside a measure
 */
export function writtenMeasures(root, text = '') {
  /** @type {Map<string, number>} */
  const owner = new Map();
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
      if (ln === 'scoreDef' && measures.length === 0 && el.attrs['midi.bpm'])
        initialQbpm = Number(el.attrs['midi.bpm']) || null;
      return false;
    }
    if (ln !== 'measure') return true;
    const tempo = childrenNamed(el, 'tempo')
      .flatMap((t) => {
        const qbpm = quarterBpm(t.attrs);
        return qbpm ? [{ tstamp: Math.max(1, Number(t.attrs.tstamp ?? 1) || 1), qbpm }] : [];
      })
      .sort((a, b) => a.tstamp - b.tstamp);
    // Verovio writes a score's <rehearsal> (and an MEI's <reh>) on every staff it was over: once each.
    const marks = text
      ? [
          ...new Map(
            childrenNamed(el, 'reh').map((r) => {
              const mark = { tstamp: Math.max(1, Number(r.attrs.tstamp ?? 1) || 1), name: textOf(text, r).trim() };
              return [`${mark.tstamp}\u0000${mark.name}`, mark];
            }),
          ).values(),
        ].filter((m) => m.name !== '')
      : [];
    const index = measures.length;
    walk(el, (d) => {
      if (d !== el && d.attrs['xml:id']) owner.set(d.attrs['xml:id'], index);
      return true;
    });
    measures.push({ id: el.attrs['xml:id'] ?? '', n: el.attrs.n ?? '', time, tempo, marks });
    return false;
  });
  return { measures, initialQbpm, owner };
}

/**
 * The time signature a scoreDef or staffDef sets, if any (attributes, or a meterSig child; the
 * first staff's meter when staves differ).
 * @param {import('./xml.js').XmlElement} el
 * @returns {[number, number] | null}
 */
function meterOf(el) {
  /** @type {Record<string, string> | null} */
  let attrs =
    el.attrs['meter.count'] || el.attrs['meter.sym']
      ? { count: el.attrs['meter.count'], unit: el.attrs['meter.unit'], sym: el.attrs['meter.sym'] }
      : null;
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
 * With the MusicXML's form (musicxml-form.js), the order and each bar's length are our own
 * (performance-order.js) and the timemap gives only where the notes are; without it (MEI), or
 * if Verovio read a different number of measures, Verovio's expanded order is used.
 * @param {import('./xml.js').XmlElement} meiRoot Verovio's MEI of the score
 * @param {TimemapEntry[]} timemap
 * @param {import('./musicxml-form.js').FormMeasure[] | null} [form]
 * @param {string} [meiText]  the MEI meiRoot was parsed from, for the rehearsal marks' names
 * @returns {{ ok: true, timing: Timing, warnings: string[] } | { ok: false, problems: string[] }}
 */
export function deriveTiming(meiRoot, timemap, form = null, meiText = '') {
  const { measures, initialQbpm, owner } = writtenMeasures(meiRoot, meiText);
  const indexOf = new Map(measures.map((m, i) => [m.id, i]));
  /** @type {string[]} */
  const warnings = [];

  // Verovio's playings: its order, and each measure's length from its first playing.
  /** @type {{ id: string, q0: number }[]} */
  const played = [];
  /** @type {Map<string, number>} */
  const verovioLength = new Map();
  /** @type {Map<string, number>} where each measure's first playing starts */
  const firstQ0 = new Map();
  let end = 0;
  for (const e of timemap) {
    end = Math.max(end, e.qstamp);
    if (!e.measureOn) continue;
    const id = e.measureOn.replace(/-rend\d+$/, '');
    const prev = played[played.length - 1];
    if (prev && !verovioLength.has(prev.id)) verovioLength.set(prev.id, e.qstamp - prev.q0);
    if (id === e.measureOn && !firstQ0.has(id)) firstQ0.set(id, e.qstamp);
    played.push({ id, q0: e.qstamp });
  }
  // Onsets of each measure's first playing, each note or rest counted in the measure that holds
  // it: where Verovio's timemap is out of order (an overfull bar), an onset listed after another
  // measure's start still belongs to its own. Its repeats are drawn in the same place.
  /** @type {Map<string, Map<number, string[]>>} */
  const onsetMaps = new Map();
  const seen = new Set();
  for (const e of timemap) {
    for (const nid of [...(e.on ?? []), ...(e.restsOn ?? [])]) {
      if (seen.has(nid) || /-rend\d+$/.test(nid)) continue;
      seen.add(nid);
      const k = owner.get(nid);
      if (k === undefined) continue;
      const q0 = firstQ0.get(measures[k].id);
      if (q0 === undefined) continue;
      const rel = +(e.qstamp - q0).toFixed(9);
      const at = onsetMaps.get(measures[k].id) ?? new Map();
      at.set(rel, [...(at.get(rel) ?? []), nid]);
      onsetMaps.set(measures[k].id, at);
    }
  }
  /** @type {Record<string, [number, string[]][]>} */
  const onsets = {};
  for (const [id, at] of onsetMaps) onsets[id] = [...at].sort((a, b) => a[0] - b[0]);
  const lastPlayed = played[played.length - 1];
  if (lastPlayed && !verovioLength.has(lastPlayed.id)) verovioLength.set(lastPlayed.id, end - lastPlayed.q0);
  if (played.length === 0 && !form?.length) return { ok: false, problems: ['has no measures that Verovio can time'] };

  /** @type {{ index: number, q: number }[]} */
  let sequence;
  if (form && form.length === measures.length && measures.length > 0) {
    const performed = performanceOrder(form);
    warnings.push(...performed.warnings);
    /** @type {string[]} */
    const overfull = [];
    const lengths = form.map((m, i) => barLength(m, i, overfull));
    // An edition with many overfull bars (early music barred in 4/4 with breves) would bury
    // every other warning: past a few, one line says how many and shows the first.
    if (overfull.length > 3) {
      warnings.push(
        `${overfull.length} bars are overfull in some parts, each played as its time signature says, as the other parts have it; the first: ${overfull[0]}`,
      );
    } else {
      warnings.push(...overfull);
    }
    sequence = performed.order.map((index) => ({ index, q: lengths[index] }));
    // Onsets outside the bar's own length (Verovio times an overfull bar its own way) are not
    // where its beats are.
    form.forEach((_m, i) => {
      const id = measures[i].id;
      if (onsets[id]) onsets[id] = onsets[id].filter(([q]) => q >= -EPS && q < lengths[i] - EPS);
    });
  } else {
    if (form)
      warnings.push(
        `Verovio read ${measures.length} measures where the MusicXML has ${form.length}; repeats are played as Verovio reads them`,
      );
    /** @type {{ index: number, q: number }[]} */
    const fromVerovio = [];
    for (let i = 0; i < played.length; i++) {
      const index = indexOf.get(played[i].id);
      if (index === undefined)
        return {
          ok: false,
          problems: [`has a measure (${played[i].id}) that Verovio times but does not write; report this file`],
        };
      fromVerovio.push({ index, q: (i + 1 < played.length ? played[i + 1].q0 : end) - played[i].q0 });
    }
    sequence = fromVerovio;
  }
  if (sequence.length === 0) return { ok: false, problems: ['has no measures to play'] };

  // The tempo in force where each written measure starts, reading the score in written order:
  // after a jump, the music goes on at the tempo written at or before the bar jumped to.
  const opening = measures[0].tempo.find((t) => t.tstamp - 1 < EPS)?.qbpm ?? initialQbpm;
  /** @type {number[]} */
  const qbpmAtStart = [];
  let running = opening ?? DEFAULT_QBPM;
  for (const m of measures) {
    qbpmAtStart.push(m.tempo.find((t) => t.tstamp - 1 < EPS)?.qbpm ?? running);
    if (m.tempo.length) running = m.tempo[m.tempo.length - 1].qbpm;
  }
  // The bounds of doc/score-format.md, "Limits", before any page is engraved (a page holds at
  // least one bar, so this bounds the pages too).
  if (sequence.length > PACKAGE_LIMITS.bars) {
    return {
      ok: false,
      problems: [
        `has ${sequence.length} bars in performance order, more than the ${PACKAGE_LIMITS.bars} a package may have; split the piece into movements`,
      ],
    };
  }

  // A pickup numbered 1 before a bar 2 (some programs count it): number it 0, as musicians do.
  const first = measures[sequence[0].index];
  const firstN = parseInt(first.n, 10);
  const isShort = (/** @type {number} */ k) => {
    const m = measures[sequence[k].index];
    return (sequence[k].q * m.time[1]) / 4 < m.time[0] - EPS;
  };
  const pickupIndex = isShort(0) ? sequence[0].index : -1;
  const shift =
    pickupIndex >= 0 && firstN > 0 && parseInt(measures[sequence[1]?.index ?? -1]?.n ?? '', 10) === firstN + 1
      ? firstN
      : 0;
  if (shift)
    warnings.push(
      `the pickup bar is numbered ${firstN}; bars are numbered from 0 at the pickup, so bar ${firstN + 1} is bar 1 here`,
    );

  /** @type {import('../../../core/tempo-map.js').BarSpec[]} */
  const bars = [];
  /** @type {number[]} */
  const length = [];
  let lastWritten = -1;
  let qbpm = 0;
  let lastUnit = 0;
  let prevIndex = -1;
  const problemsOf = new Set();
  for (let i = 0; i < sequence.length; i++) {
    const { index, q } = sequence[i];
    const m = measures[index];
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
      note(
        problemsOf,
        warnings,
        `bar ${bar} lasts ${+exact.toFixed(3)} beats of ${m.time[0]}/${m.time[1]}, not a whole number; it is counted as ${beats}`,
      );
    }
    lastWritten = bar;
    // A pickup ends on the last beats of its bar, also when a repeat plays it again.
    const firstBeat = index === pickupIndex && beats < m.time[0] ? m.time[0] - beats + 1 : 1;
    /** @type {{ beat: number, bpm: number }[]} */
    const tempo = [];
    /** @param {number} offset beats from the bar's first @param {number} qb quarter bpm */
    const setTempo = (offset, qb) => {
      const at = firstBeat + offset;
      const bpm = +((qb * m.time[1]) / 4).toFixed(6);
      if (tempo.length && tempo[tempo.length - 1].beat === at) tempo[tempo.length - 1].bpm = bpm;
      else tempo.push({ beat: at, bpm });
      qbpm = qb;
    };
    if (i === 0) {
      if (!opening)
        warnings.push(`there is no tempo marking at the start; ♩ = ${DEFAULT_QBPM} is assumed (as Verovio does)`);
      setTempo(0, index === 0 ? (opening ?? DEFAULT_QBPM) : qbpmAtStart[index]);
    } else if (index !== prevIndex + 1 && Math.abs(qbpmAtStart[index] - qbpm) > EPS) {
      setTempo(0, qbpmAtStart[index]);
    } else if (m.time[1] !== lastUnit) {
      // The beat unit changed: the same quarter-note tempo counts in the new unit.
      setTempo(0, qbpm);
    }
    for (const t of m.tempo) {
      const exactBeat = t.tstamp - 1;
      let offset = Math.round(exactBeat);
      if (offset >= beats) offset = beats - 1;
      if (Math.abs(offset - exactBeat) > EPS) {
        note(
          problemsOf,
          warnings,
          `bar ${bar}: the tempo change at beat ${+(firstBeat + exactBeat).toFixed(3)} is not on a beat; it takes effect at beat ${firstBeat + offset}`,
        );
      }
      setTempo(offset, t.qbpm);
    }
    lastUnit = m.time[1];
    prevIndex = index;
    bars.push({
      bar,
      time: m.time,
      beats,
      ...(i > 0 && firstBeat !== 1 ? { firstBeatInBar: firstBeat } : {}),
      ...(tempo.length ? { tempo } : {}),
      ...(m.marks.length
        ? {
            marks: m.marks.map((r) => ({
              beat: firstBeat + Math.min(Math.round(r.tstamp - 1), beats - 1),
              name: r.name,
            })),
          }
        : {}),
    });
    length.push(q);
  }
  const beats = bars.reduce((n, b) => n + (b.beats ?? b.time[0]), 0);
  if (beats > PACKAGE_LIMITS.beats) {
    return {
      ok: false,
      problems: [
        `has ${beats} beats in performance order, more than the ${PACKAGE_LIMITS.beats} a package may have; split the piece into movements`,
      ],
    };
  }
  try {
    createTempoMapFromBars(bars);
  } catch (err) {
    return {
      ok: false,
      problems: [
        `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}; check the notation's tempo and time signatures`,
      ],
    };
  }
  return { ok: true, timing: { bars, measureOf: sequence.map((s) => measures[s.index].id), length, onsets }, warnings };
}

/**
 * How long a written measure is played, in quarter notes. A bar whose parts disagree, some
 * filling its time signature and some overfull, is an edition's slip: it is played as its time
 * signature says (musicians count the bar, they do not wait for the extra notes).
 * @param {import('./musicxml-form.js').FormMeasure} m
 * @param {number} i
 * @param {string[]} warnings
 */
function barLength(m, i, warnings) {
  if (m.quarters <= EPS) {
    warnings.push(`bar ${m.n || i + 1} is empty; it is played as a full bar of ${m.time[0]}/${m.time[1]}`);
    return m.nominal;
  }
  if (m.quarters <= m.nominal + EPS) return m.quarters;
  const beats = (/** @type {number} */ q) => +((q * m.time[1]) / 4).toFixed(3);
  const fitting = m.parts.filter((p) => Math.abs(p.quarters - m.nominal) <= EPS);
  if (fitting.length) {
    const over = m.parts.filter((p) => p.quarters > m.nominal + EPS).map((p) => `${p.part} has ${beats(p.quarters)}`);
    warnings.push(
      `bar ${m.n || i + 1} is overfull in some parts (${over.join(', ')} beats of ${m.time[0]}/${m.time[1]}); it is played as ${m.time[0]} beats, as the other parts have it`,
    );
    return m.nominal;
  }
  warnings.push(
    `bar ${m.n || i + 1} holds ${beats(m.quarters)} beats in ${m.time[0]}/${m.time[1]}; it is played as ${beats(m.quarters)} beats`,
  );
  return m.quarters;
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
