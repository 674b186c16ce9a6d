// Rehearsal marks: the names musicians rehearse by ("letter C", "the Trio"), each at a beat of the
// performance order. They come from the notation (MusicXML <rehearsal>, MEI <reh>, read from the
// engraving: BarSpec `marks`) and from score.yaml's `marks:` list, which names its own marks and
// overrides the notation's mark of the same name. A mark inside a repeat is at each of its
// playings; "go to C" goes to the first. Pure.

import { PACKAGE_LIMITS as LIMITS } from './package-limits.js';

/**
 * @typedef {object} Mark
 * @property {string} name
 * @property {number} beat  global beat index of the mark's playing
 */

/** The longest mark name (a rehearsal letter, a number, a section's name). */
export const MARK_NAME_MAX = 32;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Why `name` cannot be a mark's name, or null.
 * @param {unknown} name
 */
export function markNameProblem(name) {
  if (typeof name !== 'string' || name.trim() === '') return 'must be a name, e.g. "C" or "Trio"';
  if (name !== name.trim()) return 'must not begin or end with spaces';
  if (name.length > MARK_NAME_MAX) return `is ${name.length} characters long, more than ${MARK_NAME_MAX}`;
  if (CONTROL_RE.test(name)) return 'must not hold control characters (a line break, a tab)';
  return null;
}

/**
 * The marks written in the engraved notation, at their beats: `bars` and `map.bars` are the same
 * bars in performance order. A name that could not be declared (too long, control characters) is
 * tidied: spaces collapsed, cut to MARK_NAME_MAX.
 * @param {import('./tempo-map.js').BarSpec[] | undefined} bars
 * @param {import('./tempo-map.js').TempoMap} map
 * @returns {Mark[]}
 */
export function notationMarks(bars, map) {
  /** @type {Mark[]} */
  const out = [];
  if (!bars) return out;
  bars.forEach((spec, i) => {
    const info = map.bars[i];
    if (!info || !spec.marks) return;
    for (const m of spec.marks) {
      const name = m.name.replace(/\s+/g, ' ').trim().slice(0, MARK_NAME_MAX).trim();
      if (name === '') continue;
      const within = Math.min(Math.max(Math.round(m.beat) - info.firstBeatInBar, 0), info.beats - 1);
      out.push({ name, beat: info.startBeat + within });
    }
  });
  return out;
}

/**
 * score.yaml's `marks:` with the notation's: every playing of each mark, sorted by beat.
 * @param {unknown} list  `marks:` as written: [{name, bar, beat?} | {name, at}]
 * @param {object} context
 * @param {Mark[]} context.found  the notation's marks
 * @param {(pos: any, f: string) => number | null} context.position  a position's beat index, or null with a problem
 * @param {(field: string, message: string) => void} context.problem
 * @returns {Mark[]}
 */
export function checkMarks(list, { found, position, problem }) {
  /** @type {Mark[]} */
  const declared = [];
  if (list !== undefined) {
    if (!Array.isArray(list)) {
      problem('marks', 'must be a list of marks, e.g. [{name: C, bar: 40}]');
    } else if (list.length > LIMITS.marks) {
      problem('marks', `lists ${list.length} marks, more than the ${LIMITS.marks} a package may have`);
    } else {
      const names = new Set();
      list.forEach((m, i) => {
        const f = `marks[${i}]`;
        const why = markNameProblem(m?.name);
        if (why) {
          problem(`${f}.name`, why);
          return;
        }
        if (names.has(m.name)) {
          problem(`${f}.name`, `"${m.name}" is named twice; a mark is where "go to ${m.name}" goes`);
          return;
        }
        names.add(m.name);
        const { name: _, ...pos } = m;
        const beat = position(pos, f);
        if (beat !== null) declared.push({ name: m.name, beat });
      });
    }
  }
  const named = new Set(declared.map((m) => m.name));
  const marks = [...declared, ...found.filter((m) => !named.has(m.name))];
  return marks.sort((a, b) => a.beat - b.beat || a.name.localeCompare(b.name));
}

/**
 * The mark in force at `beat` (the latest at or before it), or null before the first.
 * @param {Mark[]} marks  sorted by beat
 * @param {number} beat
 */
export function markAt(marks, beat) {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid].beat <= beat) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? marks[lo - 1].name : null;
}

/**
 * Where "go to `name`" goes: the beat of the mark's first playing, or null.
 * @param {Mark[]} marks
 * @param {string} name
 */
export function markBeat(marks, name) {
  return marks.find((m) => m.name === name)?.beat ?? null;
}
