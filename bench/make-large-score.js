#!/usr/bin/env node
// Writes bench/out/large-score.musicxml: a 5-part MusicXML score the size of ZScore's Union Rose
// (about 56 pages of full score as server/package/engrave lays it out), for the engraving benchmark
// (bench/engrave.js). Deterministic: the same arguments give the same bytes. It has what a real
// score has that costs engraving time: beams, dotted rhythms, accidentals, dynamics, a pickup,
// repeats, and tempo and time-signature changes.
//
//   node bench/make-large-score.js [--bars 965] [--seed 7] [--out bench/out/large-score.musicxml]

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../core/random.js';
import { benchArgs } from './cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Bars that make about 56 pages of full score (measured with server/package/engrave's score layout). */
export const DEFAULT_BARS = 965;
const DIVISIONS = 4; // per quarter note

const PARTS = [
  { id: 'P1', name: 'Flute', clef: ['G', 2], low: 62, high: 93 },
  { id: 'P2', name: 'Clarinet', clef: ['G', 2], low: 55, high: 86 },
  { id: 'P3', name: 'Violin', clef: ['G', 2], low: 55, high: 88 },
  { id: 'P4', name: 'Viola', clef: ['C', 3], low: 48, high: 76 },
  { id: 'P5', name: 'Cello', clef: ['F', 4], low: 36, high: 67 },
];

/** Sections: [first bar, time signature, tempo (quarter notes a minute)]; the last runs to the end. */
/** @type {[number, [number, number], number][]} */
const PLAN = [
  [1, [4, 4], 96],
  [49, [3, 4], 112],
  [81, [6, 8], 72],
  [113, [4, 4], 132],
  [161, [5, 4], 88],
  [177, [4, 4], 104],
  [241, [3, 4], 120],
  [289, [4, 4], 96],
];
/** Repeated spans [from, to] (written bars). */
/** @type {[number, number][]} */
const REPEATS = [
  [17, 32],
  [193, 208],
];

/** Rhythm groups filling one beat (a quarter, or a dotted quarter in 6/8), in divisions. */
const SIMPLE = [[4], [4], [2, 2], [2, 2], [3, 1], [1, 1, 1, 1], [-4], [8]];
const COMPOUND = [[2, 2, 2], [4, 2], [6], [3, 1, 2], [-6]];
const TYPES = /** @type {Record<number, [string, number]>} */ ({
  1: ['16th', 0],
  2: ['eighth', 0],
  3: ['eighth', 1],
  4: ['quarter', 0],
  6: ['quarter', 1],
  8: ['half', 0],
  12: ['half', 1],
  16: ['whole', 0],
});
/** @type {[string, number][]} */
const STEPS = [
  ['C', 0],
  ['C', 1],
  ['D', 0],
  ['E', -1],
  ['E', 0],
  ['F', 0],
  ['F', 1],
  ['G', 0],
  ['A', -1],
  ['A', 0],
  ['B', -1],
  ['B', 0],
];
const DYNAMICS = ['pp', 'p', 'mp', 'mf', 'f', 'ff'];

/**
 * The plan entry in force at `bar`.
 * @param {number} bar
 */
const planAt = (bar) => [...PLAN].reverse().find(([from]) => bar >= from) ?? PLAN[0];

/**
 * Beats of one bar as rhythm groups, in divisions (negative: a rest).
 * @param {[number, number]} time
 * @param {() => number} random
 * @param {boolean} pickup
 */
function barRhythm(time, random, pickup) {
  const compound = time[1] === 8;
  const groups = pickup ? 1 : compound ? time[0] / 3 : time[0];
  /** @type {number[][]} */
  const out = [];
  for (let g = 0; g < groups; g++) {
    const pool = compound ? COMPOUND : SIMPLE;
    let pick = pool[Math.floor(random() * pool.length)];
    // A half note needs two beats left in the bar.
    if (pick[0] === 8 && g + 1 >= groups) pick = [4];
    out.push(pick);
    if (pick[0] === 8) g++;
  }
  return out;
}

/**
 * One part's notes for one bar.
 * @param {typeof PARTS[number]} part
 * @param {number[][]} rhythm
 * @param {{ pitch: number }} state
 * @param {() => number} random
 */
function barNotes(part, rhythm, state, random) {
  let xml = '';
  for (const group of rhythm) {
    const beamed = group.length > 1 && group.every((d) => d > 0 && d < 4);
    group.forEach((d, i) => {
      const [type, dots] = TYPES[Math.abs(d)];
      const dotXml = dots ? '<dot/>' : '';
      if (d < 0) {
        xml += `<note><rest/><duration>${-d}</duration><type>${type}</type>${dotXml}</note>`;
        return;
      }
      state.pitch = Math.min(part.high, Math.max(part.low, state.pitch + Math.round((random() - 0.5) * 7)));
      const [step, alter] = STEPS[state.pitch % 12];
      const octave = Math.floor(state.pitch / 12) - 1;
      let beams = '';
      if (beamed) {
        const pos = i === 0 ? 'begin' : i === group.length - 1 ? 'end' : 'continue';
        beams = `<beam number="1">${pos}</beam>`;
        if (d === 1) {
          const prev16 = i > 0 && group[i - 1] === 1;
          const next16 = i < group.length - 1 && group[i + 1] === 1;
          beams += `<beam number="2">${prev16 && next16 ? 'continue' : prev16 ? 'end' : next16 ? 'begin' : 'backward hook'}</beam>`;
        }
      }
      const accidental = alter ? `<accidental>${alter > 0 ? 'sharp' : 'flat'}</accidental>` : '';
      xml +=
        `<note><pitch><step>${step}</step>${alter ? `<alter>${alter}</alter>` : ''}<octave>${octave}</octave></pitch>` +
        `<duration>${d}</duration><type>${type}</type>${dotXml}${accidental}${beams}</note>`;
    });
  }
  return xml;
}

/**
 * The MusicXML document.
 * @param {{ bars?: number, seed?: number }} [options]
 */
export function makeLargeScore({ bars = DEFAULT_BARS, seed = 7 } = {}) {
  const random = seededRandom(seed);
  const rhythms = Array.from({ length: bars + 1 }, (_, bar) =>
    barRhythm(/** @type {[number, number]} */ (planAt(Math.max(bar, 1))[1]), random, bar === 0),
  );
  const dynamics = Array.from({ length: bars + 1 }, (_, bar) =>
    bar % 8 === 1 ? DYNAMICS[Math.floor(random() * DYNAMICS.length)] : '',
  );
  const partList = PARTS.map((p) => `<score-part id="${p.id}"><part-name>${p.name}</part-name></score-part>`).join(
    '\n    ',
  );
  const parts = PARTS.map((part, pi) => {
    const state = { pitch: Math.round((part.low + part.high) / 2) };
    let xml = `  <part id="${part.id}">\n`;
    for (let bar = 0; bar <= bars; bar++) {
      const [from, time, tempo] = planAt(Math.max(bar, 1));
      const sectionStart = bar === from || bar === 0;
      xml += `    <measure number="${bar}"${bar === 0 ? ' implicit="yes"' : ''}>`;
      if (REPEATS.some(([a]) => a === bar))
        xml += '<barline location="left"><bar-style>heavy-light</bar-style><repeat direction="forward"/></barline>';
      if (bar === 0) {
        xml +=
          `<attributes><divisions>${DIVISIONS}</divisions><key><fifths>0</fifths></key><time><beats>${time[0]}</beats><beat-type>${time[1]}</beat-type></time>` +
          `<clef><sign>${part.clef[0]}</sign><line>${part.clef[1]}</line></clef></attributes>`;
      } else if (sectionStart && bar > 1 && String(planAt(bar - 1)[1]) !== String(time)) {
        xml += `<attributes><time><beats>${time[0]}</beats><beat-type>${time[1]}</beat-type></time></attributes>`;
      }
      // Tempo marks go over the top part, as in printed scores: the other parts' views lack them.
      if (pi === 0 && sectionStart && bar !== 1) {
        xml += `<direction placement="above"><direction-type><metronome><beat-unit>quarter</beat-unit><per-minute>${tempo}</per-minute></metronome></direction-type><sound tempo="${tempo}"/></direction>`;
      }
      if (dynamics[bar])
        xml += `<direction placement="below"><direction-type><dynamics><${dynamics[bar]}/></dynamics></direction-type></direction>`;
      xml += barNotes(part, rhythms[bar], state, random);
      if (REPEATS.some(([, b]) => b === bar))
        xml += '<barline location="right"><bar-style>light-heavy</bar-style><repeat direction="backward"/></barline>';
      if (bar === bars) xml += '<barline location="right"><bar-style>light-heavy</bar-style></barline>';
      xml += '</measure>\n';
    }
    return `${xml}  </part>`;
  }).join('\n');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">
<score-partwise version="4.0">
  <work><work-title>Large Benchmark Score</work-title></work>
  <identification><creator type="composer">bench/make-large-score.js</creator></identification>
  <part-list>
    ${partList}
  </part-list>
${parts}
</score-partwise>
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = benchArgs(import.meta.url, {
    options: {
      bars: { type: 'string', default: String(DEFAULT_BARS) },
      seed: { type: 'string', default: '7' },
      out: { type: 'string', default: path.join(ROOT, 'bench/out/large-score.musicxml') },
    },
  });
  const text = makeLargeScore({ bars: Number(values.bars), seed: Number(values.seed) });
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(values.out, text);
  console.log(`${values.out}: ${Number(values.bars)} bars, 5 parts, ${(text.length / 1e6).toFixed(2)} MB`);
}
