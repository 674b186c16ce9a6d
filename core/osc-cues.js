// OSC cues of a score package: messages sent over UDP on their beat to the electronics (ZScore's
// `max:` lines, which drove its Max/MSP patch). `osc: [{ at: 12, address: /zs/b1, args: [play] }]`
// in score.yaml; the server sends them only when started with `--osc HOST:PORT`
// (server/performance/osc-out.js). Checked here like every other part of an untrusted package.

/**
 * @typedef {object} OscCue
 * @property {number} beat
 * @property {string} address  an OSC 1.0 address pattern without wildcards, e.g. /zs/b1
 * @property {(string | number)[]} args  whole numbers go out as int32, others as float32
 * @property {'only' | 'also'} [setup]  part of the set-up sent when the performance starts at a
 *   position (ZScore's `reset=` lines): `only` is sent then and not on its beat, `also` both
 */

import { PACKAGE_LIMITS as LIMITS } from './package-limits.js';

/** The values of `setup`. */
const SETUPS = ['only', 'also'];

/** Printable ASCII without space and the characters OSC reserves for patterns (OSC 1.0). */
const ADDRESS_RE = /^\/[\x21\x22\x24-\x29\x2b\x2d-\x3e\x40-\x5a\x5c\x5e-\x7a\x7c\x7e]{0,200}$/;
/** Arguments a message may carry, and the length of one string argument. */
const MAX_ARGS = 32;
const MAX_STRING = 256;

/**
 * Whether `a` is an OSC address scorecast will send: printable, no spaces, no wildcards.
 * @param {unknown} a
 */
export function isOscAddress(a) {
  return typeof a === 'string' && ADDRESS_RE.test(a);
}

/**
 * Check the `osc` list of a manifest.
 * @param {unknown} list
 * @param {{ position: (pos: any, field: string) => number | null, problem: (field: string, message: string) => void }} ctx
 *   position: the beat index of {at} or {bar, beat?} (with a problem when invalid)
 * @returns {OscCue[]} sorted by beat, stable within a beat
 */
export function checkOscCues(list, { position, problem }) {
  /** @type {OscCue[]} */
  const out = [];
  if (list === undefined) return out;
  if (!Array.isArray(list)) {
    problem('osc', 'must be a list like [{at: 12, address: /zs/b1, args: [play]}]');
    return out;
  }
  // Checked before any entry, as cues are: a list past the bound is not walked.
  if (list.length > LIMITS.oscCues) {
    problem(
      'osc',
      `lists ${list.length} messages, more than the ${LIMITS.oscCues} a package may have; split the piece into movements`,
    );
    return out;
  }
  list.forEach((c, i) => {
    const f = `osc[${i}]`;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) {
      problem(f, 'must be a mapping like {at: 12, address: /zs/b1, args: [play]}');
      return;
    }
    if (!isOscAddress(c.address)) {
      problem(
        `${f}.address`,
        'must be an OSC address: "/" then printable characters, no spaces or wildcards (*?[]{},#), e.g. /zs/b1',
      );
      return;
    }
    const args = c.args ?? [];
    if (!Array.isArray(args) || args.length > MAX_ARGS) {
      problem(`${f}.args`, `must be a list of at most ${MAX_ARGS} strings and numbers`);
      return;
    }
    const bad = args.findIndex(
      (a) =>
        !(
          (typeof a === 'string' && a.length <= MAX_STRING) ||
          (typeof a === 'number' && Number.isFinite(a) && (!Number.isInteger(a) || (a >= -(2 ** 31) && a < 2 ** 31)))
        ),
    );
    if (bad >= 0) {
      problem(
        `${f}.args[${bad}]`,
        `must be a string (at most ${MAX_STRING} characters) or a number (whole numbers within 32 bits)`,
      );
      return;
    }
    if (c.setup !== undefined && !SETUPS.includes(c.setup)) {
      problem(
        `${f}.setup`,
        'must be "only" (sent only when the performance starts at or after its beat) or "also" (on its beat too)',
      );
      return;
    }
    const beat = position(c, f);
    if (beat === null) return;
    out.push({ beat, address: c.address, args: [...args], ...(c.setup ? { setup: c.setup } : {}) });
  });
  const sorted = out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => a.c.beat - b.c.beat || a.i - b.i)
    .map(({ c }) => c);
  /** @type {Map<number, number>} */
  const perBeat = new Map();
  for (const c of sorted) perBeat.set(c.beat, (perBeat.get(c.beat) ?? 0) + 1);
  for (const [beat, n] of perBeat)
    if (n > LIMITS.oscPerBeat)
      problem(
        'osc',
        `sends ${n} messages on beat ${beat}, more than the ${LIMITS.oscPerBeat} one beat may have; spread them over several beats, or send fewer`,
      );
  return sorted;
}

/**
 * The set-up to send when the performance starts (or is moved while playing) at `beat`: the
 * cues marked `setup` at the latest beat at or before it that has any, as ZScore's Max presets
 * (its `reset=` lines) are chosen for a start position. Empty before the first such beat.
 * @param {OscCue[]} cues  sorted by beat (checkOscCues)
 * @param {number} beat
 * @returns {OscCue[]}
 */
export function setupAt(cues, beat) {
  let at = -1;
  for (const c of cues) {
    if (c.beat > beat) break;
    if (c.setup) at = c.beat;
  }
  return at < 0 ? [] : cues.filter((c) => c.beat === at && c.setup);
}

/** `{page:N}` in a string argument: the page the choice of slot N plays (its first group's). */
const PAGE_RE = /\{page:(\d{1,5})\}/g;

/**
 * The arguments of a cue as sent: each `{page:N}` in a string is the page chosen for slot N (the
 * first group's, as ZScore's sendMaxMspRndPageUpdates sends its Max patch the sound file of the
 * chosen page), or N itself while the slot is not decided.
 * @param {(string | number)[]} args
 * @param {(slot: number) => number | null} chosen
 * @returns {(string | number)[]}
 */
export function resolveOscArgs(args, chosen) {
  return args.map((a) =>
    typeof a === 'string' && a.includes('{page:')
      ? a.replace(PAGE_RE, (_, n) => String(chosen(Number(n)) ?? Number(n)))
      : a,
  );
}
