// The form of a MusicXML score as written: for each measure (document order) its length, the
// repeat barlines, endings and jumps (MusicXML 4.0 <barline>, <ending>, <repeat>, and the
// <sound> attributes dacapo, dalsegno, segno, coda, tocoda, fine, with time-only), and jumps written only as
// words. performance-order.js reads it; Verovio's own expansion of repeats is not used because it
// sends an end repeat without a start repeat to the very start and drops endings of several bars.
// Pure: takes the parsed document.

import { childrenNamed, localName, textOf } from './xml.js';

/**
 * @typedef {object} Ending
 * @property {number[]} numbers   passes this ending is played on ("1", "1, 2", "1.-3.")
 * @property {string} text        the number attribute as written
 */

/**
 * A measure as written, with what performance-order.js needs.
 * @typedef {object} FormMeasure
 * @property {string} n               the number attribute as written
 * @property {boolean} implicit       implicit="yes" (a pickup, or a bar split by a barline)
 * @property {number} quarters        its length: the longest part, in quarter notes
 * @property {number} nominal         the length its time signature gives, in quarter notes
 * @property {{ part: string, quarters: number }[]} parts  each part's length where parts differ
 * @property {[number, number]} time
 * @property {boolean} forward        a start repeat on its left barline
 * @property {number} backward        an end repeat on its right barline: times played (0 for none)
 * @property {Ending | null} endingStart  an ending starts on its left barline
 * @property {'stop' | 'discontinue' | null} endingStop  an ending ends on its right barline
 * @property {boolean} doubleBar      its right barline is a double or final barline (a section end)
 * @property {boolean} dacapo
 * @property {string | null} dalsegno  segno name ('' when the sound names none)
 * @property {string | null} segno
 * @property {string | null} coda
 * @property {string | null} tocoda
 * @property {boolean} fine
 * @property {Partial<Record<'dacapo' | 'dalsegno' | 'tocoda' | 'fine', number[]>>} [times]
 *   the times through this bar a jump or Fine applies on, where its <sound time-only> says
 * @property {string[]} words         jump instructions written as words only (D.C., D.S., Fine, Coda)
 */

/** Words that ask for a jump or an end: a musician performs them, Verovio does not. */
const JUMP_WORDS = /\b(d\.\s?c\.|da\s+capo|d\.\s?s\.|dal\s+segno|fine|to\s+coda|al\s+coda)(?![a-z])/i;

/**
 * Numbers of an ending's number attribute: "1", "1, 2", "1 2", "1.-3." (MusicXML 4.0
 * ending-number: a comma-separated list; programs also write ranges and dots).
 * @param {string} text
 * @returns {number[]}
 */
export function endingNumbers(text) {
  /** @type {number[]} */
  const out = [];
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const range = /^(\d+)\.?\s*[-–]\s*(\d+)\.?$/.exec(part);
    if (range) {
      for (let k = Number(range[1]); k <= Number(range[2]) && k - Number(range[1]) < 16; k++) out.push(k);
      continue;
    }
    const one = /^(\d+)\.?$/.exec(part);
    if (one) out.push(Number(one[1]));
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * A measure with nothing on it yet: 4/4, no repeat, ending, jump or words; `o` sets what it has.
 * @param {Partial<FormMeasure>} [o]
 * @returns {FormMeasure}
 */
export function plainMeasure(o = {}) {
  return {
    n: '',
    implicit: false,
    quarters: 0,
    nominal: 4,
    parts: [],
    time: [4, 4],
    forward: false,
    backward: 0,
    endingStart: null,
    endingStop: null,
    doubleBar: false,
    dacapo: false,
    dalsegno: null,
    segno: null,
    coda: null,
    tocoda: null,
    fine: false,
    words: [],
    ...o,
  };
}

/**
 * Read the form of a partwise MusicXML score.
 * @param {string} text  the document
 * @param {import('./xml.js').XmlElement} root  <score-partwise>
 * @returns {FormMeasure[]}
 */
export function readMusicXmlForm(text, root) {
  const parts = childrenNamed(root, 'part');
  const count = Math.max(0, ...parts.map((p) => childrenNamed(p, 'measure').length));
  /** @type {FormMeasure[]} */
  const form = [];
  for (let i = 0; i < count; i++) {
    form.push(plainMeasure());
  }
  /** @type {number[][]} lengths[i] = each part's length of measure i */
  const lengths = form.map(() => []);
  parts.forEach((part, p) => {
    let divisions = 1;
    /** @type {[number, number]} */
    let time = [4, 4];
    childrenNamed(part, 'measure').forEach((measure, i) => {
      const m = form[i];
      if (p === 0) {
        m.n = measure.attrs.number ?? '';
        m.implicit = measure.attrs.implicit === 'yes';
      }
      let pos = 0;
      let max = 0;
      let last = 0; // duration of the previous note, for chords
      for (const el of measure.children) {
        const ln = localName(el);
        if (ln === 'attributes') {
          for (const a of el.children) {
            if (localName(a) === 'divisions') divisions = Number(textOf(text, a)) || divisions;
            if (localName(a) === 'time') time = timeOf(text, a) ?? time;
          }
        } else if (ln === 'note') {
          const names = new Set(el.children.map(localName));
          if (names.has('grace')) continue;
          const d = durationOf(text, el);
          if (names.has('chord')) {
            max = Math.max(max, pos - last + d);
            continue;
          }
          pos += d;
          last = d;
        } else if (ln === 'backup') {
          pos = Math.max(0, pos - durationOf(text, el));
        } else if (ln === 'forward') {
          pos += durationOf(text, el);
        } else if (ln === 'barline') {
          readBarline(text, el, m);
        } else if (ln === 'direction') {
          for (const d of el.children) {
            if (localName(d) === 'sound') readSound(d.attrs, m);
            if (localName(d) === 'direction-type') {
              for (const w of d.children) {
                if (localName(w) === 'words') {
                  const said = textOf(text, w).replace(/\s+/g, ' ').trim();
                  if (JUMP_WORDS.test(said)) m.words.push(said);
                }
                if (localName(w) === 'segno') m.words.push('segno');
                if (localName(w) === 'coda') m.words.push('coda');
              }
            }
          }
        } else if (ln === 'sound') {
          readSound(el.attrs, m);
        }
        max = Math.max(max, pos);
      }
      if (p === 0) m.time = time;
      lengths[i].push(max / divisions);
    });
  });
  form.forEach((m, i) => {
    m.nominal = (m.time[0] * 4) / m.time[1];
    m.quarters = Math.max(0, ...lengths[i]);
    if (lengths[i].some((q) => Math.abs(q - m.quarters) > 1e-9)) {
      m.parts = lengths[i].map((q, p) => ({ part: parts[p].attrs.id ?? String(p + 1), quarters: q }));
    }
  });
  return form;
}

/**
 * @param {string} text
 * @param {import('./xml.js').XmlElement} el
 */
function durationOf(text, el) {
  const d = el.children.find((c) => localName(c) === 'duration');
  const v = d ? Number(textOf(text, d)) : 0;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * @param {string} text
 * @param {import('./xml.js').XmlElement} el <time>
 * @returns {[number, number] | null}
 */
function timeOf(text, el) {
  const beats = el.children.filter((c) => localName(c) === 'beats').map((c) => textOf(text, c));
  const types = el.children.filter((c) => localName(c) === 'beat-type').map((c) => Number(textOf(text, c)));
  if (beats.length === 0 || types.length === 0) return null;
  // Composite signatures (3+2/8, or 3/8 + 2/4): in the last unit, as Verovio counts them.
  const unit = Math.max(...types);
  const count = beats.reduce(
    (s, b, k) => s + b.split('+').reduce((t, x) => t + (parseInt(x, 10) || 0), 0) * (unit / (types[k] ?? unit)),
    0,
  );
  return count > 0 && unit > 0 ? [count, unit] : null;
}

/**
 * @param {string} text
 * @param {import('./xml.js').XmlElement} el <barline>
 * @param {FormMeasure} m
 */
function readBarline(text, el, m) {
  const location = el.attrs.location ?? 'right';
  for (const c of el.children) {
    const ln = localName(c);
    if (ln === 'repeat') {
      if (c.attrs.direction === 'forward') m.forward = true;
      if (c.attrs.direction === 'backward')
        m.backward = Math.max(m.backward, Math.min(16, Math.max(2, Number(c.attrs.times) || 2)));
    } else if (ln === 'ending') {
      const type = c.attrs.type;
      if (type === 'start')
        m.endingStart ??= { numbers: endingNumbers(c.attrs.number ?? ''), text: c.attrs.number ?? '' };
      else if (type === 'stop' || type === 'discontinue') m.endingStop = type;
    } else if (ln === 'bar-style' && location === 'right') {
      if (/^(light|heavy)-(light|heavy)$/.test(textOf(text, c).trim())) m.doubleBar = true;
    }
  }
}

/**
 * @param {Record<string, string>} a <sound> attributes
 * @param {FormMeasure} m
 */
function readSound(a, m) {
  if (a.dacapo === 'yes') m.dacapo = true;
  if (a.dalsegno !== undefined) m.dalsegno = a.dalsegno;
  if (a.segno !== undefined) m.segno = a.segno;
  if (a.coda !== undefined) m.coda = a.coda;
  if (a.tocoda !== undefined) m.tocoda = a.tocoda;
  if (a.fine !== undefined) m.fine = true;
  // time-only="1, 3": this sound's jump or Fine applies on those times through the bar only
  // (MusicXML 4.0 time-only, the same list syntax as ending numbers).
  const only = a['time-only'] === undefined ? [] : endingNumbers(a['time-only']);
  if (only.length === 0) return;
  for (const jump of /** @type {const} */ (['dacapo', 'dalsegno', 'tocoda', 'fine'])) {
    if (a[jump] !== undefined && (jump !== 'dacapo' || a.dacapo === 'yes')) (m.times ??= {})[jump] = only;
  }
}
