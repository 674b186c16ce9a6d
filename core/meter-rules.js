// The audience meter as an input of the score: an open-form section's `when` rules, each a
// threshold on the meter held for some beats, that fire a cue (a patch of a view, as a preset is)
// or make the choice of the next section. Evaluated by the conductor on the beat grid, once per
// beat sounded in the section, with the meter's value as the pages have it: deterministic given
// that value at each beat, however many thumbs came between. A rule fires once per crossing: once
// it has fired it waits until the meter has gone back past its threshold by HYSTERESIS before it
// may fire again, so a meter hovering at the threshold does not fire every beat. Pure: no I/O, no
// clock.
//
//   - id: pitch
//     audience: { thumbs: true, meter: true }
//     when:
//       - { meter: ">= 0.6", for: 2, set: { text: "The room is with you" } }   # the audience view
//       - { meter: "<= -0.5", for: 4, choose: end }    # unless a player or the conductor chose

import { isObject } from './values.js';

/** How far back past its threshold the meter must go before a rule that fired may fire again. */
export const HYSTERESIS = 0.1;
/** At most this many rules in a section: evaluated every beat, carried in the state's record. */
export const MAX_RULES = 8;
/** The longest hold, in beats. */
export const MAX_HOLD_BEATS = 256;
const KEYS = ['meter', 'for', 'set', 'view', 'choose'];
const TEST = /^\s*(>=|<=|>|<)\s*(-?(?:\d+(?:\.\d*)?|\.\d+))\s*$/;

/**
 * @typedef {object} MeterRule
 * @property {'>=' | '<=' | '>' | '<'} op
 * @property {number} threshold  -1..1
 * @property {number} beats      how many beats in a row the test must hold (1: the beat it holds)
 * @property {{ view: string, set: Record<string, unknown> } | null} cue  a patch of a view's cue state
 * @property {string | null} choose  a section id or "end": the meter's choice of what follows
 */

/**
 * Where the rules of the section playing have got to: per rule, the beats in a row its test has
 * held, whether it may fire (false: it fired and waits for the meter to come back), and the rules
 * fired in this section, in order (their cues are applied again after a restart).
 * @typedef {{ held: number[], armed: boolean[], fired: number[] }} RulesState
 */

/**
 * A section's `when`, checked; each problem names its field. The `choose` of a rule is checked
 * against the section's `next` by the caller (it needs every section's id).
 * @param {unknown} raw
 * @param {string} at  e.g. `openForm.sections[1].when`
 * @param {{ views?: string[], checkSet?: (set: Record<string, any>) => string | null, thumbs: boolean }} ctx
 *   views: the score's views (a cue's `view`); checkSet: what is wrong with a patch (as a cue's
 *   `set`); thumbs: whether the section takes thumbs (the meter moves only then)
 * @param {(field: string, message: string) => void} bad
 * @returns {MeterRule[]}
 */
export function readRules(raw, at, { views = ['audience'], checkSet, thumbs }, bad) {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_RULES) {
    bad(at, `must list 1 to ${MAX_RULES} rules like {meter: ">= 0.6", for: 2, set: {text: Louder}}`);
    return [];
  }
  if (!thumbs)
    bad(
      at,
      'follows the audience meter, which moves only while the section takes thumbs: give the section audience: {thumbs: true}',
    );
  /** @type {MeterRule[]} */
  const out = [];
  raw.forEach((r, i) => {
    const here = `${at}[${i}]`;
    if (!isObject(r)) {
      bad(here, 'must be {meter: ">= 0.6", for: <beats>, set: {...}} or {meter: "<= -0.5", choose: <section>}');
      return;
    }
    let ok = true;
    const no = (/** @type {string} */ field, /** @type {string} */ message) => {
      ok = false;
      bad(field, message);
    };
    for (const k of Object.keys(r))
      if (!KEYS.includes(k)) no(`${here}.${k}`, `is not a key of a rule (${KEYS.join(', ')})`);
    const m = typeof r.meter === 'string' ? TEST.exec(r.meter) : null;
    const threshold = m ? Number(m[2]) : Number.NaN;
    if (!m || !(threshold >= -1 && threshold <= 1))
      no(
        `${here}.meter`,
        `must be a test of the meter (-1..1) like ">= 0.6" or "<= -0.5" (>=, >, <=, <), not ${JSON.stringify(r.meter ?? null).slice(0, 64)}`,
      );
    const beats = r.for ?? 1;
    if (!Number.isInteger(beats) || beats < 1 || beats > MAX_HOLD_BEATS)
      no(`${here}.for`, `must be how many beats in a row the test holds before it fires, 1 to ${MAX_HOLD_BEATS}`);
    if ((r.set === undefined) === (r.choose === undefined))
      no(here, 'needs exactly one of set (a cue: what a view shows) or choose (the section that follows, or "end")');
    if (r.view !== undefined && r.set === undefined) no(`${here}.view`, 'goes with set (the view the cue changes)');
    const view = r.view ?? 'audience';
    if (typeof view !== 'string' || !views.includes(view))
      no(`${here}.view`, `must be one of the score's views (${views.join(', ')})`);
    if (r.set !== undefined) {
      const wrong = isObject(r.set)
        ? (checkSet?.(r.set) ?? null)
        : 'must be a mapping of what the view shows, e.g. {text: Louder}';
      if (wrong) no(`${here}.set`, wrong);
    }
    if (r.choose !== undefined && typeof r.choose !== 'string')
      no(`${here}.choose`, 'must be the id of a section of next, or "end"');
    if (!ok) return;
    out.push({
      op: /** @type {MeterRule['op']} */ (/** @type {RegExpExecArray} */ (m)[1]),
      threshold,
      beats,
      cue: r.set !== undefined ? { view, set: r.set } : null,
      choose: typeof r.choose === 'string' ? r.choose : null,
    });
  });
  return out;
}

/**
 * The rules' state as a section starts: nothing held, every rule armed, none fired.
 * @param {MeterRule[]} rules
 * @returns {RulesState}
 */
export function startRules(rules) {
  return { held: rules.map(() => 0), armed: rules.map(() => true), fired: [] };
}

/**
 * Whether the meter passes a rule's test.
 * @param {MeterRule} rule
 * @param {number} meter
 */
export function holds({ op, threshold }, meter) {
  if (op === '>=') return meter >= threshold;
  if (op === '>') return meter > threshold;
  if (op === '<=') return meter <= threshold;
  return meter < threshold;
}

/**
 * Whether the meter has gone back past a rule's threshold by HYSTERESIS: a rule that fired may
 * fire again. (A tenth of a thousandth of slack: the meter moves in steps of 0.02.)
 * @param {MeterRule} rule
 * @param {number} meter
 */
function cleared({ op, threshold }, meter) {
  const slack = 1e-4;
  return op === '>=' || op === '>' ? meter <= threshold - HYSTERESIS + slack : meter >= threshold + HYSTERESIS - slack;
}

/**
 * One beat of the section sounds with the meter at `meter`: each rule's hold goes on or starts
 * over, and the rules whose test has held for their beats fire (once: they wait for the meter to
 * come back past the threshold by HYSTERESIS). Returns the new state and the rules fired, in
 * order.
 * @param {MeterRule[]} rules
 * @param {RulesState} state
 * @param {number} meter
 * @returns {{ state: RulesState, fired: number[] }}
 */
export function stepRules(rules, state, meter) {
  const held = [...state.held];
  const armed = [...state.armed];
  /** @type {number[]} */
  const fired = [];
  rules.forEach((rule, i) => {
    if (!armed[i]) {
      if (cleared(rule, meter)) armed[i] = true;
      held[i] = 0;
      return;
    }
    held[i] = holds(rule, meter) ? held[i] + 1 : 0;
    if (held[i] >= rule.beats) {
      fired.push(i);
      armed[i] = false;
      held[i] = 0;
    }
  });
  if (fired.length === 0 && held.every((h, i) => h === state.held[i]) && armed.every((a, i) => a === state.armed[i]))
    return { state, fired };
  return { state: { held, armed, fired: [...state.fired, ...fired].slice(-MAX_RULES * 4) }, fired };
}

/**
 * A saved rules' state checked against the section's rules, or null when it does not fit.
 * @param {MeterRule[]} rules
 * @param {unknown} record
 * @returns {RulesState | null}
 */
export function restoreRules(rules, record) {
  if (!isObject(record)) return null;
  const { held, armed, fired } = record;
  const n = rules.length;
  if (!Array.isArray(held) || held.length !== n || !held.every((h) => Number.isInteger(h) && h >= 0)) return null;
  if (!Array.isArray(armed) || armed.length !== n || !armed.every((a) => typeof a === 'boolean')) return null;
  if (!Array.isArray(fired) || !fired.every((f) => Number.isInteger(f) && f >= 0 && f < n)) return null;
  return { held: [...held], armed: [...armed], fired: [...fired] };
}

/**
 * A rule in words, for `scorecast check`: `meter >= 0.6 for 2 beats: sets text on audience`.
 * @param {MeterRule} r
 */
export function ruleWords(r) {
  const test = `meter ${r.op} ${r.threshold}${r.beats > 1 ? ` for ${r.beats} beats` : ''}`;
  if (r.choose !== null) return `${test}: chooses ${r.choose}`;
  const cue = /** @type {NonNullable<MeterRule['cue']>} */ (r.cue);
  return `${test}: sets ${Object.keys(cue.set).join(', ')} on ${cue.view}`;
}
