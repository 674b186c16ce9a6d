#!/usr/bin/env node
// Writes scores/demo/quartet.musicxml: "First Light", 32 bars for string quartet written for
// scorecast. The music lives here as text, one string of bars per part; the script
// checks every bar adds up and every note lies in its instrument's range, then writes MusicXML 4.0
// (partwise). Deterministic: run it again only to change the piece; the output is committed.
//
// Form (G major, with B in the relative minor; one key signature throughout):
//   A  bars  1-16  4/4, Andante q=96: the theme in violin I (1-8), again with the viola moving
//                  in eighths (9-16), turning to E minor and ending on its dominant.
//   B  bars 17-24  Più lento q=72: the theme in E minor in the cello, violin I's descant from 21,
//                  back to G major, ending on D7.
//   C  bars 25-28  3/4, still q=72: the theme, bright and high (forte), violins in sixths.
//   D  bars 29-32  3/4: the soft close, ending on G. When the audience votes "soft" the
//                  performance skips C, and the D7 of bar 24 falls to the E minor of bar 29
//                  (a deceptive cadence); see scores/demo/score-v2.yaml.
// 120 beats: 86.7 s played through, 76.7 s without C.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'demo', 'quartet.musicxml');

/** Divisions of a quarter note: the shortest value written is an eighth, dotted quarters need 2. */
const DIVISIONS = 2;

/** @type {Record<string, { divs: number, type: string, dots: number }>} */
const DURATIONS = {
  w: { divs: 8, type: 'whole', dots: 0 },
  'h.': { divs: 6, type: 'half', dots: 1 },
  h: { divs: 4, type: 'half', dots: 0 },
  'q.': { divs: 3, type: 'quarter', dots: 1 },
  q: { divs: 2, type: 'quarter', dots: 0 },
  e: { divs: 1, type: 'eighth', dots: 0 },
};

/**
 * @typedef {object} PartSpec
 * @property {string} id      MusicXML part id (the manifest's `source`)
 * @property {string} name
 * @property {string} abbreviation
 * @property {{ sign: string, line: number }} clef
 * @property {[string, string]} range  the compass this piece allows the part (inclusive); a note
 *   outside it stops the script
 * @property {number} program  General MIDI program (1-based)
 * @property {string[]} music  bars separated by "|"; see parseToken for a note's form
 */

// Notes are PITCH:DURATION ("F#5:q.", "r:h" for a rest, "r:w" for a whole-bar rest in any
// meter), with "(" before a note to start a slur, ")" after one to end it and "~" after the
// duration to tie it to the next note. Each string holds four bars.

/** @type {PartSpec[]} */
export const PARTS = [
  {
    id: 'P1',
    name: 'Violin I',
    abbreviation: 'Vln. I',
    clef: { sign: 'G', line: 2 },
    range: ['G3', 'E6'],
    program: 41,
    music: [
      /*  1 */ '(G4:h B4:q D5:q | E5:h D5:h) | (E5:q. F#5:e G5:q E5:q | F#5:q. E5:e D5:h)',
      /*  5 */ '(B4:h D5:q G5:q | B5:h A5:q G5:q | F#5:q. E5:e D5:q C5:q | B4:h) r:h',
      /*  9 */ '(D5:h G5:q B5:q | A5:q. G5:e E5:q D5:q) | (E5:q. F#5:e G5:q B5:q | A5:q. G5:e F#5:h)',
      /* 13 */ '(E5:q. F#5:e G5:q E5:q | C5:h B4:q A4:q) | (G4:q. F#4:e E4:q A4:q | F#4:h A4:h)',
      /* 17 */ 'r:w | r:w | r:w | r:w',
      /* 21 */ '(B4:h E5:h | G5:h D5:h | E5:h. G5:q | F#5:h A5:h)',
      /* 25 */ '(G5:q B5:q D6:q | E6:h D6:q | C6:q. B5:e A5:q | B5:h) r:q',
      /* 29 */ '(E5:h D5:q | C5:h A4:q | B4:h A4:q | G4:h.)',
    ],
  },
  {
    id: 'P2',
    name: 'Violin II',
    abbreviation: 'Vln. II',
    clef: { sign: 'G', line: 2 },
    range: ['G3', 'B5'],
    program: 41,
    music: [
      /*  1 */ 'D4:w | C4:h D4:h | G4:h E4:h | D4:w',
      /*  5 */ 'D4:h G4:h | G4:h E4:h | D4:w | D4:w',
      /*  9 */ 'D4:h B4:h | G4:w | G4:w | A4:w',
      /* 13 */ 'G4:w | E4:h D#4:h | E4:w | D#4:h F#4:h',
      /* 17 */ 'G4:w | G4:h A4:h | A4:h B4:h | B4:h A4:h',
      /* 21 */ 'G4:w | G4:w | C5:h. A4:q | D5:h C5:h',
      /* 25 */ '(B4:q D5:q G5:q | G5:h. | F#5:h. | G5:h.)',
      /* 29 */ '(B4:h. | A4:h G4:q | G4:h F#4:q | D4:h.)',
    ],
  },
  {
    id: 'P3',
    name: 'Viola',
    abbreviation: 'Vla.',
    clef: { sign: 'C', line: 3 },
    range: ['C3', 'A4'],
    program: 42,
    music: [
      /*  1 */ 'B3:w | G3:w | G3:h C4:h | A3:w',
      /*  5 */ 'G3:w | G3:h C4:h | C4:h A3:h | G3:h A3:q B3:q',
      /*  9 */ 'G3:e B3:e D4:e B3:e D4:e B3:e G3:e D4:e | G3:e C4:e E4:e C4:e G3:e C4:e D4:e B3:e' +
        ' | G3:e B3:e E4:e B3:e D4:e B3:e G3:e E4:e | C4:e A3:e E4:e A3:e A3:e B3:e D#4:e B3:e',
      /* 13 */ 'G3:e C4:e E4:e C4:e G3:e C4:e E4:e G3:e | A3:e C4:e E4:e C4:e A3:e B3:e D#4:e B3:e' +
        ' | G3:e B3:e E4:e B3:e C4:e A3:e E4:e C4:e | B3:e F#3:e A3:e F#3:e B3:e D#4:e F#4:e D#4:e',
      /* 17 */ 'E4:w | E4:h D#4:h | E4:h G4:h | F#4:w',
      /* 21 */ 'E4:w | E4:h D4:h | C4:h E4:h | A4:h D4:h',
      /* 25 */ 'B3:h. | E4:h. | A4:h. | G4:h.',
      /* 29 */ 'G4:h. | E4:h. | D4:h C4:q | B3:h.',
    ],
  },
  {
    id: 'P4',
    name: 'Violoncello',
    abbreviation: 'Vc.',
    clef: { sign: 'F', line: 4 },
    range: ['C2', 'E4'],
    program: 43,
    music: [
      /*  1 */ 'G2:w | C3:h B2:h | E3:h C3:h | D3:w',
      /*  5 */ 'G2:h B2:h | E3:h A2:h | D3:w | G2:w',
      /*  9 */ 'G2:h B2:h | C3:h. B2:q | E3:h D3:h | A2:h B2:h',
      /* 13 */ 'C3:h E3:h | A2:h B2:h | E3:h A2:h | B2:w',
      /* 17 */ '(E3:h G3:q B3:q | C4:h B3:h) | (C4:q. D#4:e E4:h | B3:h F#3:q D#3:q)',
      /* 21 */ '(E3:h G3:q B3:q | C4:h B3:h) | (A3:q. B3:e C4:q C#4:q | D4:q A3:q F#3:q D3:q)',
      /* 25 */ 'G2:h. | C3:h. | D3:q F#3:q D3:q | G2:h.',
      /* 29 */ 'E3:h. | C3:h. | D3:h. | G2:h.',
    ],
  },
];

/**
 * @typedef {object} BarMark  what the whole ensemble sees at a bar. Time signatures and barlines
 *   go in every part; rehearsal and tempo marks are drawn in the top part only, as notation
 *   programs export them (Verovio draws a direction over the staff of every part that holds one),
 *   and the other parts get the tempo as sound alone.
 * @property {number} bar
 * @property {string} [rehearsal]
 * @property {{ words: string, bpm: number }} [tempo]
 * @property {[number, number]} [time]
 * @property {'light-light' | 'light-heavy'} [barline]  at the end of the bar
 */

/** @type {BarMark[]} */
export const BAR_MARKS = [
  { bar: 1, rehearsal: 'A', tempo: { words: 'Andante', bpm: 96 }, time: [4, 4] },
  { bar: 16, barline: 'light-light' },
  { bar: 17, rehearsal: 'B', tempo: { words: 'Più lento', bpm: 72 } },
  { bar: 24, barline: 'light-light' },
  { bar: 25, rehearsal: 'C', time: [3, 4] },
  { bar: 28, barline: 'light-light' },
  { bar: 29, rehearsal: 'D' },
  { bar: 32, barline: 'light-heavy' },
];

/**
 * @typedef {object} Mark  a part's dynamic, expression or hairpin at a bar and beat (from 1)
 * @property {number} bar
 * @property {number} [beat]
 * @property {string} [dynamic]  p, mp, mf, f, pp ...
 * @property {string} [words]    italic expression text
 * @property {'crescendo' | 'diminuendo' | 'stop'} [wedge]
 */

const ALL = ['P1', 'P2', 'P3', 'P4'];

/** @type {(Mark & { parts: string[] })[]} */
export const MARKS = [
  { parts: ALL, bar: 1, dynamic: 'p' },
  { parts: ['P1'], bar: 1, words: 'dolce' },
  { parts: ['P1', 'P4'], bar: 9, dynamic: 'mf' },
  { parts: ['P2', 'P3'], bar: 9, dynamic: 'mp' },
  { parts: ALL, bar: 15, wedge: 'diminuendo' },
  { parts: ALL, bar: 17, wedge: 'stop' },
  { parts: ['P2', 'P3'], bar: 17, dynamic: 'pp' },
  { parts: ['P4'], bar: 17, dynamic: 'mf' },
  { parts: ['P4'], bar: 17, words: 'cantabile' },
  { parts: ['P1'], bar: 21, dynamic: 'p' },
  { parts: ['P2', 'P3'], bar: 21, dynamic: 'p' },
  { parts: ALL, bar: 23, wedge: 'crescendo' },
  { parts: ALL, bar: 25, wedge: 'stop' },
  { parts: ALL, bar: 25, dynamic: 'f' },
  { parts: ['P1'], bar: 25, words: 'luminoso' },
  { parts: ALL, bar: 29, dynamic: 'p' },
  { parts: ['P1'], bar: 29, words: 'dolce' },
  { parts: ALL, bar: 31, wedge: 'diminuendo' },
  { parts: ALL, bar: 32, wedge: 'stop' },
  { parts: ALL, bar: 32, dynamic: 'pp' },
];

const STEPS = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };
/** G major: F is sharp unless marked. */
const KEY_FIFTHS = 1;
const KEY_ALTER = { F: 1 };

/**
 * @typedef {object} Note
 * @property {{ step: keyof typeof STEPS, alter: number, octave: number } | null} pitch  null for a rest
 * @property {number} divs
 * @property {string} type
 * @property {number} dots
 * @property {boolean} wholeBarRest
 * @property {boolean} slurStart
 * @property {boolean} slurStop
 * @property {boolean} tieStart
 * @property {boolean} tieStop  set from the previous note's tieStart
 */

/**
 * @param {string} name e.g. "F#5", "Bb3"
 * @returns {{ step: keyof typeof STEPS, alter: number, octave: number }}
 */
function parsePitch(name) {
  const m = /^([A-G])(#|b)?(\d)$/.exec(name);
  if (!m) throw new Error(`"${name}" is not a pitch like F#5 or Bb3`);
  return {
    step: /** @type {keyof typeof STEPS} */ (m[1]),
    alter: m[2] === '#' ? 1 : m[2] === 'b' ? -1 : 0,
    octave: Number(m[3]),
  };
}

/**
 * @param {{ step: keyof typeof STEPS, alter: number, octave: number }} p
 * @returns {number} MIDI key number (C4 = 60)
 */
export function midiOf(p) {
  return 12 * (p.octave + 1) + STEPS[p.step] + p.alter;
}

/**
 * @param {string} token e.g. "(E5:q.", "D5:h)", "G4:h~", "r:w"
 * @param {number} barDivs length of the bar, for "r:w"
 * @returns {Note}
 */
function parseToken(token, barDivs) {
  const m = /^(\()?([A-G][#b]?\d|r):(w|h\.|h|q\.|q|e)(~)?(\))?$/.exec(token);
  if (!m) throw new Error(`"${token}" is not a note like (E5:q. or D5:h) or r:w`);
  const d = DURATIONS[m[3]];
  const wholeBarRest = m[2] === 'r' && m[3] === 'w';
  return {
    pitch: m[2] === 'r' ? null : parsePitch(m[2]),
    divs: wholeBarRest ? barDivs : d.divs,
    type: d.type,
    dots: d.dots,
    wholeBarRest,
    slurStart: m[1] === '(',
    slurStop: m[5] === ')',
    tieStart: m[4] === '~',
    tieStop: false,
  };
}

/**
 * The time signature of every bar, from BAR_MARKS.
 * @param {number} bars
 * @returns {[number, number][]} index 0 is bar 1
 */
function meters(bars) {
  /** @type {[number, number][]} */
  const out = [];
  /** @type {[number, number]} */
  let time = [4, 4];
  for (let bar = 1; bar <= bars; bar++) {
    time = BAR_MARKS.find((m) => m.bar === bar && m.time)?.time ?? time;
    out.push(time);
  }
  return out;
}

/**
 * Parse a part's bars and check them: each bar is filled exactly, every note is in range,
 * ties join equal pitches.
 * @param {PartSpec} part
 * @returns {Note[][]}
 */
export function parsePart(part) {
  const texts = part.music
    .join(' | ')
    .split('|')
    .map((s) => s.trim());
  const times = meters(texts.length);
  const [low, high] = part.range.map((n) => midiOf(parsePitch(n)));
  /** @type {Note | null} */
  let tied = null;
  return texts.map((text, i) => {
    const bar = i + 1;
    const [beats, beatType] = times[i];
    const barDivs = (beats * 4 * DIVISIONS) / beatType;
    const notes = text.split(/\s+/).map((t) => parseToken(t, barDivs));
    const sum = notes.reduce((s, n) => s + n.divs, 0);
    if (sum !== barDivs)
      throw new Error(
        `${part.name} bar ${bar}: holds ${sum / DIVISIONS} quarters, ${beats}/${beatType} needs ${barDivs / DIVISIONS}`,
      );
    for (const n of notes) {
      if (n.pitch) {
        const k = midiOf(n.pitch);
        if (k < low || k > high)
          throw new Error(
            `${part.name} bar ${bar}: ${n.pitch.step}${n.pitch.octave} is outside ${part.range.join('-')}`,
          );
      }
      if (tied) {
        if (!n.pitch || !tied.pitch || midiOf(n.pitch) !== midiOf(tied.pitch))
          throw new Error(`${part.name} bar ${bar}: a tie must join two equal pitches`);
        n.tieStop = true;
      }
      tied = n.tieStart ? n : null;
    }
    return notes;
  });
}

/** @param {string} s */
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Beam states for a bar's notes: eighths in a row within one beam span (half a 4/4 bar, a beat
 * otherwise) share a beam.
 * @param {Note[]} notes
 * @param {[number, number]} time
 * @returns {(string | null)[]} "begin" | "continue" | "end" | null per note
 */
function beams(notes, time) {
  const span = time[0] === 4 && time[1] === 4 ? 2 * DIVISIONS : (4 * DIVISIONS) / time[1];
  /** @type {(string | null)[]} */
  const out = notes.map(() => null);
  /** @type {number[]} */
  let group = [];
  let groupSpan = -1;
  const flush = () => {
    if (group.length > 1)
      group.forEach((idx, k) => {
        out[idx] = k === 0 ? 'begin' : k === group.length - 1 ? 'end' : 'continue';
      });
    group = [];
  };
  let t = 0;
  notes.forEach((n, i) => {
    const beamable = n.pitch !== null && n.type === 'eighth';
    const s = Math.floor(t / span);
    if (!beamable || s !== groupSpan) flush();
    if (beamable) {
      group.push(i);
      groupSpan = s;
    }
    t += n.divs;
  });
  flush();
  return out;
}

/**
 * @param {Mark} mark
 * @returns {string}
 */
function markXml(mark) {
  if (mark.dynamic)
    return `<direction placement="below"><direction-type><dynamics><${mark.dynamic}/></dynamics></direction-type></direction>`;
  if (mark.words)
    return `<direction placement="below"><direction-type><words font-style="italic">${esc(mark.words)}</words></direction-type></direction>`;
  if (mark.wedge)
    return `<direction placement="below"><direction-type><wedge type="${mark.wedge}"/></direction-type></direction>`;
  throw new Error(`mark at bar ${mark.bar} says nothing`);
}

/**
 * @param {PartSpec} part
 * @param {Note[]} notes
 * @param {number} bar
 * @param {[number, number]} time
 * @returns {string}
 */
function measureXml(part, notes, bar, time) {
  const lines = [`<measure number="${bar}">`];
  const marks = BAR_MARKS.find((m) => m.bar === bar) ?? { bar };
  if (bar === 1 || marks.time) {
    const head =
      bar === 1 ? `<divisions>${DIVISIONS}</divisions><key><fifths>${KEY_FIFTHS}</fifths><mode>major</mode></key>` : '';
    const clef = bar === 1 ? `<clef><sign>${part.clef.sign}</sign><line>${part.clef.line}</line></clef>` : '';
    lines.push(
      `<attributes>${head}<time><beats>${time[0]}</beats><beat-type>${time[1]}</beat-type></time>${clef}</attributes>`,
    );
  }
  const top = part.id === PARTS[0].id;
  if (top && marks.rehearsal)
    lines.push(
      `<direction placement="above"><direction-type><rehearsal enclosure="square">${marks.rehearsal}</rehearsal></direction-type></direction>`,
    );
  if (top && marks.tempo) {
    lines.push(
      '<direction placement="above">' +
        // The space keeps Verovio from setting the note of the metronome mark against the word.
        `<direction-type><words font-weight="bold">${esc(marks.tempo.words)} </words></direction-type>` +
        `<direction-type><metronome parentheses="no"><beat-unit>quarter</beat-unit><per-minute>${marks.tempo.bpm}</per-minute></metronome></direction-type>` +
        `<sound tempo="${marks.tempo.bpm}"/></direction>`,
    );
  } else if (marks.tempo) {
    // The tempo without the mark, so that a part engraved alone keeps the piece's timing.
    lines.push(`<direction><direction-type><words/></direction-type><sound tempo="${marks.tempo.bpm}"/></direction>`);
  }
  const beatDivs = (4 * DIVISIONS) / time[1];
  const mine = MARKS.filter((m) => m.bar === bar && m.parts.includes(part.id)).map((m) => ({
    mark: m,
    at: ((m.beat ?? 1) - 1) * beatDivs,
  }));
  const beamStates = beams(notes, time);
  /** Alterations written so far in this bar, by step and octave (the key's until changed). */
  const shown = new Map();
  const onsets = new Set();
  let t = 0;
  notes.forEach((n, i) => {
    onsets.add(t);
    for (const m of mine) if (m.at === t) lines.push(markXml(m.mark));
    const body = [];
    if (n.pitch) {
      const p = n.pitch;
      body.push(
        `<pitch><step>${p.step}</step>${p.alter ? `<alter>${p.alter}</alter>` : ''}<octave>${p.octave}</octave></pitch>`,
      );
    } else {
      body.push(n.wholeBarRest ? '<rest measure="yes"/>' : '<rest/>');
    }
    body.push(`<duration>${n.divs}</duration>`);
    if (n.tieStop) body.push('<tie type="stop"/>');
    if (n.tieStart) body.push('<tie type="start"/>');
    body.push('<voice>1</voice>');
    if (!n.wholeBarRest) body.push(`<type>${n.type}</type>`, '<dot/>'.repeat(n.dots));
    if (n.pitch) {
      const key = `${n.pitch.step}${n.pitch.octave}`;
      const current = shown.get(key) ?? /** @type {Record<string, number>} */ (KEY_ALTER)[n.pitch.step] ?? 0;
      if (current !== n.pitch.alter && !n.tieStop)
        body.push(`<accidental>${['flat', 'natural', 'sharp'][n.pitch.alter + 1]}</accidental>`);
      shown.set(key, n.pitch.alter);
    }
    if (beamStates[i]) body.push(`<beam number="1">${beamStates[i]}</beam>`);
    const notations = [];
    if (n.tieStop) notations.push('<tied type="stop"/>');
    if (n.tieStart) notations.push('<tied type="start"/>');
    if (n.slurStop) notations.push('<slur type="stop" number="1"/>');
    if (n.slurStart) notations.push('<slur type="start" number="1"/>');
    if (notations.length) body.push(`<notations>${notations.join('')}</notations>`);
    lines.push(`<note>${body.join('')}</note>`);
    t += n.divs;
  });
  for (const m of mine) {
    if (!onsets.has(m.at))
      throw new Error(
        `${part.name} bar ${bar}: no note starts at beat ${m.mark.beat ?? 1} for its mark; move the mark to a beat where one does`,
      );
  }
  if (marks.barline) lines.push(`<barline location="right"><bar-style>${marks.barline}</bar-style></barline>`);
  lines.push('</measure>');
  return lines.map((l, i) => (i === 0 || i === lines.length - 1 ? `    ${l}` : `      ${l}`)).join('\n');
}

/**
 * The whole score as MusicXML 4.0 (partwise).
 * @returns {string}
 */
export function buildQuartet() {
  const parsed = PARTS.map(parsePart);
  const bars = parsed[0].length;
  if (parsed.some((p) => p.length !== bars))
    throw new Error(
      `every part needs ${bars} bars: ${PARTS.map((p, i) => `${p.name} has ${parsed[i].length}`).join(', ')}`,
    );
  const times = meters(bars);
  const partList = PARTS.map((p, i) =>
    [
      `    <score-part id="${p.id}">`,
      `      <part-name>${p.name}</part-name>`,
      `      <part-abbreviation>${p.abbreviation}</part-abbreviation>`,
      `      <score-instrument id="${p.id}-I1"><instrument-name>${p.name}</instrument-name></score-instrument>`,
      `      <midi-instrument id="${p.id}-I1"><midi-channel>${i + 1}</midi-channel><midi-program>${p.program}</midi-program></midi-instrument>`,
      '    </score-part>',
    ].join('\n'),
  );
  const parts = PARTS.map((p, i) =>
    [`  <part id="${p.id}">`, ...parsed[i].map((notes, b) => measureXml(p, notes, b + 1, times[b])), '  </part>'].join(
      '\n',
    ),
  );
  return [
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
    '<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">',
    '<!-- Generated by scores/tools/make-demo-quartet.js; edit that script, not this file. -->',
    '<score-partwise version="4.0">',
    '  <work><work-title>First Light</work-title></work>',
    '  <identification>',
    '    <creator type="composer">scorecast ensemble</creator>',
    '    <rights>Written for the scorecast project; MIT licence</rights>',
    '    <encoding>',
    '      <software>scorecast scores/tools/make-demo-quartet.js</software>',
    '      <supports element="accidental" type="yes"/>',
    '      <supports element="beam" type="yes"/>',
    '      <supports element="stem" type="no"/>',
    '    </encoding>',
    '  </identification>',
    // Verovio draws the page head from credits (work-title alone gives no composer line).
    '  <credit page="1"><credit-type>title</credit-type><credit-words default-x="1050" default-y="2850" justify="center" valign="top" font-size="24">First Light</credit-words></credit>',
    '  <credit page="1"><credit-type>composer</credit-type><credit-words default-x="1950" default-y="2750" justify="right" valign="bottom" font-size="12">scorecast ensemble</credit-words></credit>',
    '  <part-list>',
    '    <part-group type="start" number="1"><group-symbol>bracket</group-symbol><group-barline>yes</group-barline></part-group>',
    ...partList,
    '    <part-group type="stop" number="1"/>',
    '  </part-list>',
    ...parts,
    '</score-partwise>',
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OUT, buildQuartet());
  process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
}
