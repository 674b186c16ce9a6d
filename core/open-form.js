// Open form: a score made of sections whose order is chosen live (ZScore's later pieces: the
// players select the next section on their tablets, DialogsScoreProcessor.processSelectSection,
// onSectionStart/Stop; a section can be owned by one player while the others keep their default
// instruments). A feature of scorecast, not a ZScore special case: a score declares its sections,
// which may follow which, and who chooses the next one (the conductor, a named part, or the first
// player to claim it); the conductor can always override. The state is plain JSON, saved with the
// performance so that a restart or a conductor failover resumes in the same section with the same
// choice. Pure: no I/O, no clock; the server feeds it commands and the ends of sections.
//
// In score.yaml (doc/score-format.md, "Open form"; core/manifest.js calls readOpenForm):
//   openForm:
//     start: intro
//     sections:
//       - { id: intro, name: Intro, bars: [1, 4], next: [pitch, rhythm], chooser: conductor }
//       - { id: pitch, bars: [5, 12], next: [rhythm, end], chooser: { part: violin }, owner: violin }
//       - { id: rhythm, beats: [48, 79], next: [pitch, end], chooser: first, default: end,
//           audience: { thumbs: true, meter: true },
//           overlays: [{ band: dynamics, parts: [violin], source: meter }],   # core/part-overlays.js
//           when: [{ meter: ">= 0.6", for: 2, set: { text: Louder } }] }      # core/meter-rules.js
//     audience: { vote: false }     # optional: every section's switches unless it says otherwise
//
// The audience page's switches (ZScore's publishAudienceViewState(notes, audio, thumbs, meter,
// vote)): what the phones show in a section. Unset switches are what a page does without an open
// form: audio and vote on, notes, thumbs and meter off.

import { errorValue } from './errors.js';
import { isId, isObject } from './values.js';
import { readOverlays } from './part-overlays.js';
import { readRules, restoreRules, startRules, stepRules } from './meter-rules.js';

/** The `next` entry that ends the performance. */
export const END = 'end';
/** The keys a section may have: any other is a typo worth a problem. */
const SECTION_KEYS = [
  'id',
  'name',
  'beats',
  'bars',
  'next',
  'chooser',
  'owner',
  'default',
  'audience',
  'overlays',
  'when',
];
/** The audience page's switches and what each is when neither the section nor the form sets it. */
export const AUDIENCE_DEFAULTS = Object.freeze({ notes: false, audio: true, thumbs: false, meter: false, vote: true });
/** At most this many sections: the state and the offer stay small. */
export const MAX_SECTIONS = 64;

/**
 * @typedef {{ kind: 'conductor' } | { kind: 'part', part: string } | { kind: 'first' }} Chooser
 */

/**
 * @typedef {object} Section
 * @property {string} id
 * @property {string} name
 * @property {number} first     its first beat (0-based)
 * @property {number} end       the beat after its last
 * @property {string[]} next    ids of the sections that may follow it; END ends the piece
 * @property {Chooser} chooser
 * @property {string | null} owner   the part that owns it; the others play their defaults
 * @property {string} default   taken when nobody chose by its end: as written, else the first of
 *   `next`, else the section after it in the score (END after the last)
 * @property {AudienceSwitches} audience  what the audience page shows while it plays
 * @property {import('./part-overlays.js').Overlay[]} overlays  bands over the parts while it plays
 * @property {import('./meter-rules.js').MeterRule[]} when  what the audience meter does while it
 *   plays: cues it fires, the choice it makes
 */

/**
 * @typedef {{ notes: boolean, audio: boolean, thumbs: boolean, meter: boolean, vote: boolean }} AudienceSwitches
 */

/**
 * @typedef {object} OpenForm
 * @property {string} start
 * @property {Section[]} sections  in beat order
 */

/**
 * @typedef {object} OpenFormState
 * @property {string} current     the section playing (or about to)
 * @property {number} round       how many sections started before it: a choice names the round
 *   it was offered in, so that a late tap on an old offer cannot choose for the next section
 * @property {{ section: string, by: string } | null} chosen  the next section and who chose it
 *   ("conductor" or "part:<id>")
 * @property {string | null} claimedBy  with a `first` chooser: the part that claimed the choice
 * @property {{ section: string, by: string }[]} order  the sections taken, in order (the first
 *   `by` is "start"; then who chose each, or "default")
 * @property {boolean} ended      the piece has ended (END was taken)
 * @property {import('./meter-rules.js').RulesState} rules  where the section's meter rules have got to
 */

/**
 * @typedef {{ field: string, message: string }} FieldProblem
 */

/**
 * What readOpenForm needs of the score: its length, its parts and (for `bars`) the first and last
 * beat of a bar, or null when the score has no such bar.
 * `views` and `checkSet` check a meter rule's cue (the score's views; what is wrong with a patch).
 * @typedef {{ totalBeats: number, parts: string[], barBeats?: (bar: number) => [number, number] | null,
 *   views?: string[], checkSet?: (set: Record<string, any>) => string | null }} ScoreShape
 */

/**
 * Read and check the `openForm` of a score.
 * @param {unknown} raw
 * @param {ScoreShape} score
 * @returns {{ ok: true, value: OpenForm } | { ok: false, problems: FieldProblem[] }}
 */
export function readOpenForm(raw, score) {
  /** @type {FieldProblem[]} */
  const problems = [];
  const bad = (/** @type {string} */ field, /** @type {string} */ message) => {
    problems.push({ field, message });
  };
  if (!isObject(raw) || !Array.isArray(raw.sections)) {
    bad('openForm', 'must be {start: <section id>, sections: [{id, bars: [first, last], next, chooser}, ...]}');
    return { ok: false, problems };
  }
  for (const k of Object.keys(raw))
    if (k !== 'start' && k !== 'sections' && k !== 'audience')
      bad(`openForm.${k}`, 'is not a key of openForm (start, sections, audience)');
  const shown = readAudience(raw.audience, AUDIENCE_DEFAULTS, 'openForm.audience', bad);
  if (raw.sections.length === 0 || raw.sections.length > MAX_SECTIONS)
    bad('openForm.sections', `must list 1 to ${MAX_SECTIONS} sections`);
  /** @type {Section[]} */
  const sections = [];
  /** Where each section is written, for the problems' field names. @type {Map<Section, string>} */
  const where = new Map();
  // Every id written, read or not: a section with a problem of its own is not "not a section".
  const ids = new Set();
  raw.sections.slice(0, MAX_SECTIONS).forEach((/** @type {unknown} */ s, /** @type {number} */ i) => {
    const at = `openForm.sections[${i}]`;
    if (isObject(s) && isId(s.id)) {
      if (ids.has(s.id) || s.id === END) bad(`${at}.id`, `"${s.id}" is used by another section, or is "end"`);
      ids.add(s.id);
    }
    const section = readSection(s, at, score, bad, shown);
    if (section) {
      sections.push(section);
      where.set(section, at);
    }
  });
  sections.sort((a, b) => a.first - b.first);
  sections.forEach((s, k) => {
    const at = where.get(s);
    if (s.default === '') s.default = sections[k + 1]?.id ?? END;
    else if (s.default !== END && !ids.has(s.default))
      bad(`${at}.default`, `"${s.default.slice(0, 64)}" is not a section (or "end")`);
    const before = sections[k - 1];
    if (before && s.first < before.end)
      bad(
        `${at}`,
        `"${s.id}" (beats ${s.first}..${s.end - 1}) overlaps "${before.id}" (beats ${before.first}..${before.end - 1})`,
      );
    for (const n of s.next)
      if (n !== END && !ids.has(n)) bad(`${at}.next`, `"${n.slice(0, 64)}" is not a section (or "end")`);
    const options = s.next.length > 0 ? s.next : [...[...ids].filter((id) => id !== s.id), END];
    s.when.forEach((r, i) => {
      if (r.choose !== null && !options.includes(r.choose))
        bad(
          `${at}.when[${i}].choose`,
          `"${r.choose.slice(0, 64)}" may not follow "${s.id}"; one of ${options.join(', ')}`,
        );
    });
  });
  const start = raw.start ?? sections[0]?.id;
  if (!ids.has(start)) bad('openForm.start', `must be the id of a section; "${String(start).slice(0, 64)}" is not`);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { start, sections } };
}

/**
 * @param {unknown} s
 * @param {string} at
 * @param {ScoreShape} score
 * @param {(field: string, message: string) => void} bad
 * @param {AudienceSwitches} shown  the form's switches
 * @returns {Section | null}
 */
function readSection(s, at, { totalBeats, parts, barBeats, views, checkSet }, bad, shown) {
  if (!isObject(s) || !isId(s.id)) {
    bad(at, 'must be {id, bars: [first, last], ...} with an id of letters, digits, _ and -');
    return null;
  }
  for (const k of Object.keys(s))
    if (!SECTION_KEYS.includes(k)) bad(`${at}.${k}`, `is not a key of a section (${SECTION_KEYS.join(', ')})`);
  const span = readSpan(s, at, { totalBeats, barBeats }, bad);
  if (!span) return null;
  if (s.name !== undefined && (typeof s.name !== 'string' || s.name.length > 120))
    bad(`${at}.name`, 'must be text of at most 120 characters');
  const next = s.next === undefined ? null : Array.isArray(s.next) ? s.next.map(String) : null;
  if (s.next !== undefined && (next === null || next.length === 0))
    bad(`${at}.next`, 'must list the ids of the sections that may follow (or "end")');
  const chooser = readChooser(s.chooser, parts);
  if (!chooser) bad(`${at}.chooser`, 'must be conductor, first, or {part: <id>} with a part of the score');
  const owner = s.owner ?? null;
  if (owner !== null && !parts.includes(owner)) bad(`${at}.owner`, `"${String(owner).slice(0, 64)}" is not a part`);
  if (s.default !== undefined && typeof s.default !== 'string')
    bad(`${at}.default`, 'must be the id of a section (or "end")');
  // Without `next`, any other section may follow, and the piece may end; without `default`,
  // nobody choosing takes the first of `next`, or (no `next`) the section after it in the score.
  const fallback = typeof s.default === 'string' ? s.default : (next?.[0] ?? null);
  if (next && fallback !== null && !next.includes(fallback))
    bad(`${at}.default`, `must be one of next (${next.join(', ')})`);
  const audience = readAudience(s.audience, shown, `${at}.audience`, bad);
  return {
    id: s.id,
    name: typeof s.name === 'string' ? s.name : s.id,
    first: span[0],
    end: span[1] + 1,
    next: next ?? [],
    chooser: chooser ?? { kind: 'conductor' },
    owner,
    default: fallback ?? '',
    audience,
    overlays: readOverlays(s.overlays, `${at}.overlays`, parts, bad),
    when: readRules(s.when, `${at}.when`, { views, checkSet, thumbs: audience.thumbs }, bad),
  };
}

/**
 * The audience switches of a section or the form: `under` with what `raw` sets.
 * @param {unknown} raw
 * @param {AudienceSwitches} under
 * @param {string} at
 * @param {(field: string, message: string) => void} bad
 * @returns {AudienceSwitches}
 */
function readAudience(raw, under, at, bad) {
  if (raw === undefined) return { ...under };
  const names = Object.keys(AUDIENCE_DEFAULTS);
  if (!isObject(raw)) {
    bad(at, `must be {${names.map((n) => `${n}: true|false`).join(', ')}} (any of them)`);
    return { ...under };
  }
  const out = { ...under };
  for (const [k, v] of Object.entries(raw)) {
    if (!names.includes(k)) bad(`${at}.${k}`, `is not an audience switch (${names.join(', ')})`);
    else if (typeof v !== 'boolean') bad(`${at}.${k}`, 'must be true or false');
    else out[/** @type {keyof AudienceSwitches} */ (k)] = v;
  }
  return out;
}

/**
 * A section's first and last beat: `beats: [first, last]` (beat indices, 0-based) or `bars:
 * [first, last]` (whole bars, as written).
 * @param {Record<string, any>} s
 * @param {string} at
 * @param {Pick<ScoreShape, 'totalBeats' | 'barBeats'>} score
 * @param {(field: string, message: string) => void} bad
 * @returns {[number, number] | null}
 */
function readSpan(s, at, { totalBeats, barBeats }, bad) {
  const pair = (/** @type {unknown} */ v) =>
    Array.isArray(v) && v.length === 2 && v.every((b) => Number.isInteger(b)) && v[0] <= v[1];
  if ((s.beats === undefined) === (s.bars === undefined)) {
    bad(at, 'needs exactly one of beats: [first, last] or bars: [first, last]');
    return null;
  }
  if (s.beats !== undefined) {
    if (!pair(s.beats) || s.beats[0] < 0 || s.beats[1] >= totalBeats) {
      bad(`${at}.beats`, `must be [first, last], beats of the score (0..${totalBeats - 1}), first <= last`);
      return null;
    }
    return [s.beats[0], s.beats[1]];
  }
  const first = pair(s.bars) ? barBeats?.(s.bars[0]) : null;
  const last = pair(s.bars) ? barBeats?.(s.bars[1]) : null;
  if (!first || !last) {
    bad(`${at}.bars`, 'must be [first, last], bars of the score, first <= last');
    return null;
  }
  return [first[0], last[1]];
}

/**
 * @param {unknown} raw
 * @param {string[]} parts
 * @returns {Chooser | null}
 */
function readChooser(raw, parts) {
  if (raw === undefined || raw === 'conductor') return { kind: 'conductor' };
  if (raw === 'first') return { kind: 'first' };
  if (isObject(raw) && typeof raw.part === 'string' && parts.includes(raw.part))
    return { kind: 'part', part: raw.part };
  return null;
}

/**
 * The sections that may follow `section`: its `next`, or every other section and END.
 * @param {OpenForm} form
 * @param {Section} section
 */
export function nextOptions(form, section) {
  return section.next.length > 0 ? section.next : [...form.sections.filter((s) => s !== section).map((s) => s.id), END];
}

/**
 * @param {OpenForm} form
 * @param {string} id
 */
export function sectionById(form, id) {
  const s = form.sections.find((x) => x.id === id);
  if (!s) throw new Error(`open form: no section "${id}"`);
  return s;
}

/**
 * The state at the start of a performance.
 * @param {OpenForm} form
 * @returns {OpenFormState}
 */
export function startState(form) {
  return {
    current: form.start,
    round: 0,
    chosen: null,
    claimedBy: null,
    order: [{ section: form.start, by: 'start' }],
    ended: false,
    rules: startRules(sectionById(form, form.start).when),
  };
}

/**
 * @typedef {object} ChoiceRequest
 * @property {{ role: 'conductor' } | { role: 'part', part: string }} who
 * @property {string} section  the id of the section chosen, or END
 * @property {number} round    the round of the offer the choice answers
 */

/**
 * A choice of the next section. The conductor may always choose, and overrides a part's choice;
 * a part may choose when the section names it, or (`first`) when it is the first to claim it.
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @param {ChoiceRequest} request
 * @returns {{ ok: true, state: OpenFormState } | { ok: false, error: import('./errors.js').ErrorValue }}
 */
export function choose(form, state, { who, section, round }) {
  const refuse = (/** @type {string} */ why) => ({
    ok: /** @type {const} */ (false),
    error: errorValue('SC_ERR_SECTION_REFUSED', why),
  });
  if (state.ended) return refuse('the piece has ended');
  if (round !== state.round)
    return refuse(`the offer of round ${round} has passed; the choice now is for round ${state.round}`);
  const current = sectionById(form, state.current);
  const options = nextOptions(form, current);
  if (!options.includes(section))
    return refuse(
      `"${String(section).slice(0, 64)}" may not follow "${current.id}"; choose one of ${options.join(', ')}`,
    );
  if (who.role === 'conductor') return { ok: true, state: { ...state, chosen: { section, by: 'conductor' } } };
  const by = `part:${who.part}`;
  if (state.chosen?.by === 'conductor') return refuse('the conductor has chosen');
  const c = current.chooser;
  if (c.kind === 'conductor') return refuse(`the conductor chooses what follows "${current.id}"`);
  if (c.kind === 'part' && c.part !== who.part)
    return refuse(`the part ${c.part} chooses what follows "${current.id}"`);
  if (c.kind === 'first' && state.claimedBy !== null && state.claimedBy !== who.part)
    return refuse(`the part ${state.claimedBy} claimed the choice first`);
  return {
    ok: true,
    state: { ...state, claimedBy: c.kind === 'first' ? who.part : state.claimedBy, chosen: { section, by } },
  };
}

/**
 * A part claims the choice of a `first` section before choosing (a tablet's "I choose" button).
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @param {{ part: string, round: number }} request
 * @returns {{ ok: true, state: OpenFormState } | { ok: false, error: import('./errors.js').ErrorValue }}
 */
export function claim(form, state, { part, round }) {
  const refuse = (/** @type {string} */ why) => ({
    ok: /** @type {const} */ (false),
    error: errorValue('SC_ERR_SECTION_REFUSED', why),
  });
  if (state.ended || round !== state.round) return refuse('that offer has passed');
  if (sectionById(form, state.current).chooser.kind !== 'first') return refuse('this section has no choice to claim');
  if (state.claimedBy !== null && state.claimedBy !== part)
    return refuse(`the part ${state.claimedBy} claimed it first`);
  return { ok: true, state: { ...state, claimedBy: part } };
}

/**
 * The current section ends: the chosen section starts (or the default when nobody chose). Returns
 * the new state and the beat to play next (null: the piece ends).
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @returns {{ state: OpenFormState, beat: number | null }}
 */
export function advance(form, state) {
  if (state.ended) return { state, beat: null };
  const current = sectionById(form, state.current);
  const next = state.chosen?.section ?? current.default ?? END;
  const by = state.chosen?.by ?? 'default';
  if (next === END)
    return {
      state: {
        ...state,
        chosen: null,
        claimedBy: null,
        order: [...state.order, { section: END, by }],
        ended: true,
        rules: startRules([]),
      },
      beat: null,
    };
  const section = sectionById(form, next);
  return {
    state: {
      current: next,
      round: state.round + 1,
      chosen: null,
      claimedBy: null,
      order: [...state.order, { section: next, by }],
      ended: false,
      rules: startRules(section.when),
    },
    beat: section.first,
  };
}

/**
 * Where the performance goes after `beat` has sounded: the next beat of the section, or (at its
 * end) the first beat of the section that follows. Does not change the state: the conductor calls
 * `advance` when it takes the jump, `preview` when it announces the beat to come.
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @param {number} beat
 * @returns {number | null} null: the piece ends
 */
export function preview(form, state, beat) {
  const current = sectionById(form, state.current);
  if (beat + 1 !== current.end) return beat + 1;
  return advance(form, state).beat;
}

/**
 * What a part's view and the console show: the offer of this round.
 * @param {OpenForm} form
 * @param {OpenFormState} state
 */
export function offer(form, state) {
  const current = sectionById(form, state.current);
  return {
    round: state.round,
    section: current.id,
    name: current.name,
    endsAt: current.end,
    options: nextOptions(form, current).map((id) => ({ id, name: id === END ? 'End' : sectionById(form, id).name })),
    chooser: current.chooser.kind === 'part' ? `part:${current.chooser.part}` : current.chooser.kind,
    owner: current.owner,
    audience: { ...current.audience },
    overlays: current.overlays.map((o) => ({ ...o })),
    claimedBy: state.claimedBy,
    chosen: state.chosen,
  };
}

/**
 * Check a saved state against the form (a restart, a failover): the same section, a choice that
 * is still allowed. Returns the state, or a problem.
 * @param {OpenForm} form
 * @param {unknown} record
 * @returns {{ ok: true, state: OpenFormState } | { ok: false, problem: string }}
 */
export function restoreState(form, record) {
  const no = (/** @type {string} */ problem) => ({ ok: /** @type {const} */ (false), problem: `openForm: ${problem}` });
  if (!isObject(record) || typeof record.current !== 'string' || !Number.isInteger(record.round) || record.round < 0)
    return no('expected {current, round, chosen, claimedBy, order, ended}');
  const current = form.sections.find((s) => s.id === record.current);
  if (!current) return no(`the score has no section "${record.current.slice(0, 64)}"`);
  if (
    !Array.isArray(record.order) ||
    !record.order.every((o) => isObject(o) && typeof o.section === 'string' && typeof o.by === 'string')
  )
    return no('order must be a list of {section, by}');
  const chosen = record.chosen ?? null;
  if (
    chosen !== null &&
    !(isObject(chosen) && nextOptions(form, current).includes(chosen.section) && typeof chosen.by === 'string')
  )
    return no(`the choice saved may not follow "${current.id}"`);
  const claimedBy = typeof record.claimedBy === 'string' ? record.claimedBy : null;
  // A record from before sections had meter rules starts them afresh.
  const ended = record.ended === true;
  const rules =
    record.rules === undefined
      ? startRules(ended ? [] : current.when)
      : restoreRules(ended ? [] : current.when, record.rules);
  if (!rules) return no(`the meter rules saved do not fit the ${current.when.length} rules of "${current.id}"`);
  return {
    ok: true,
    state: {
      current: current.id,
      round: record.round,
      chosen: chosen && { section: chosen.section, by: chosen.by },
      claimedBy,
      order: record.order.map((o) => ({ section: o.section, by: o.by })),
      ended,
      rules,
    },
  };
}

/**
 * A beat of the current section sounds with the audience meter at `meter` (the value the pages
 * have): its `when` rules step on (core/meter-rules.js). A rule that fires with `choose` is the
 * meter's choice of what follows (`by: "meter"`) unless the conductor or a part has chosen; they
 * may still override it. Returns the new state and the rules fired, in order.
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @param {number} meter
 * @returns {{ state: OpenFormState, fired: import('./meter-rules.js').MeterRule[] }}
 */
export function meterBeat(form, state, meter) {
  if (state.ended) return { state, fired: [] };
  const rules = sectionById(form, state.current).when;
  if (rules.length === 0) return { state, fired: [] };
  const r = stepRules(rules, state.rules, meter);
  if (r.state === state.rules) return { state, fired: [] };
  const fired = r.fired.map((i) => rules[i]);
  let chosen = state.chosen;
  for (const rule of fired)
    if (rule.choose !== null && (chosen === null || chosen.by === 'meter'))
      chosen = { section: rule.choose, by: 'meter' };
  return { state: { ...state, rules: r.state, chosen }, fired };
}

/**
 * The cues the current section's rules have fired so far, in order: a restart applies them again
 * over the cue state of the beat it resumes at.
 * @param {OpenForm} form
 * @param {OpenFormState} state
 * @returns {{ view: string, set: Record<string, unknown> }[]}
 */
export function firedCues(form, state) {
  if (state.ended) return [];
  const rules = sectionById(form, state.current).when;
  return state.rules.fired.flatMap((i) => (rules[i]?.cue ? [rules[i].cue] : []));
}
