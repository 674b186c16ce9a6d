// The sections of an open-form piece as the conductor plays them (core/open-form.js): which
// section plays, the choice of the next one (the console's, a part's, a first-come claim), where
// the performance goes at a section's last beat, and what every page sees of it: the state's
// `section` (doc/protocol.md, "Open form"). Plain JSON in the performance record, so a restart or
// a conductor failover goes on in the same section with the same choice. The conductor
// (conductor.js) makes one per score, as it does its vote state; a score without `openForm` gets
// none.

import { ScorecastError } from '../../core/errors.js';
import { startRules } from '../../core/meter-rules.js';
import {
  END,
  advance,
  choose,
  claim,
  firedCues,
  meterBeat,
  offer,
  preview,
  restoreState,
  sectionById,
  startState,
} from '../../core/open-form.js';

/** The sections taken that the state shows (the latest). */
export const ORDER_SHOWN = 32;

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */
/** @typedef {import('../../core/open-form.js').OpenFormState} OpenFormState */

/**
 * What a page shows of the open form: the section playing, the offer of what follows and who
 * chooses it, the choice so far, and the order taken. Absent keys, not nulls (a merge patch's
 * null removes a key).
 * @typedef {object} SectionView
 * @property {string} id
 * @property {string} name
 * @property {number} round
 * @property {number} first       the section's first beat
 * @property {number} endsAt      the beat after its last: the choice is taken there
 * @property {{ id: string, name: string }[]} options
 * @property {string} chooser     "conductor", "first" or "part:<id>"
 * @property {string} [owner]
 * @property {import('../../core/open-form.js').AudienceSwitches} audience  what the audience page
 *   shows in this section (notes, audio, thumbs, meter, vote)
 * @property {{ band: string, parts?: string[], source?: 'meter', range?: number[], value: number }[]} [overlays]
 *   bands over the parts in this section (core/part-overlays.js)
 * @property {string} [claimedBy]
 * @property {{ section: string, by: string }} [chosen]
 * @property {{ section: string, by: string, name: string }[]} order  the sections taken, each with
 *   who chose it ("start", "conductor", "part:<id>", "default", "seek") and its name
 */

/**
 * @param {{ ok: true, state: OpenFormState } | { ok: false, error: import('../../core/errors.js').ErrorValue }} r
 * @returns {OpenFormState}
 */
function taken(r) {
  if (r.ok) return r.state;
  const err = new ScorecastError('SC_ERR_SECTION_REFUSED');
  err.message = r.error.message;
  throw err;
}

/**
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @returns {SectionState | null}
 */
export function createSectionState(model) {
  const form = model.openForm ?? null;
  return form ? sectionState(form) : null;
}

/**
 * What GET /api/section answers for the open form in `state`: the offer, the whole order taken and
 * every section of the score. A cluster node that does not conduct makes the same answer from the
 * state the bus brought it (server/cluster/section-offer.js).
 * @param {import('../../core/open-form.js').OpenForm} form
 * @param {OpenFormState} state
 */
export function offerOf(form, state) {
  return {
    ...offer(form, state),
    order: state.order.map((o) => ({ ...o })),
    ended: state.ended,
    sections: form.sections.map((x) => ({ id: x.id, name: x.name, first: x.first, endsAt: x.end })),
  };
}

/**
 * @param {import('../../core/open-form.js').OpenForm} form
 */
function sectionState(form) {
  let state = startState(form);

  return {
    /** The sections, for the routes. */
    form,

    /** The state as the pages see it: `section`, absent once the piece has ended. @param {PerformanceState} s */
    dress(s) {
      const { section: _, ...rest } = /** @type {PerformanceState & { section?: unknown }} */ (s);
      if (state.ended) return rest;
      return /** @type {PerformanceState} */ ({ ...rest, section: view(form, state) });
    },

    /** What the audience page shows now (the current section's switches); null once ended. */
    audience() {
      return state.ended ? null : sectionById(form, state.current).audience;
    },

    /** The offer now, the order taken and every section of the score (GET /api/section). */
    offer: () => offerOf(form, state),

    /**
     * A part or the console chooses the next section. Throws SC_ERR_SECTION_REFUSED.
     * @param {import('../../core/open-form.js').ChoiceRequest} request
     */
    choose(request) {
      state = taken(choose(form, state, request));
    },

    /**
     * A part claims a first-come choice. Throws SC_ERR_SECTION_REFUSED.
     * @param {{ part: string, round: number }} request
     */
    claim(request) {
      state = taken(claim(form, state, request));
    },

    /**
     * Playing on from `beat` ends the current section (a beat outside it plays on).
     * @param {number} beat
     */
    endsSection(beat) {
      return !state.ended && beat + 1 === sectionById(form, state.current).end;
    },

    /**
     * Where the performance goes after `beat`, as things stand (nothing changes): the next beat,
     * the chosen section's first at a section's end, or null (the end).
     * @param {number} beat
     */
    after(beat) {
      return state.ended ? null : preview(form, state, beat);
    },

    /** The current section ends: the next one starts. The beat it starts on, or null: the end. */
    next() {
      const r = advance(form, state);
      state = r.state;
      return r.beat;
    },

    /**
     * Beat `beat` sounds with the audience meter at `meter`: the current section's `when` rules
     * step on when the beat is in it (core/meter-rules.js). The rules fired, in order: their cues
     * for the conductor to apply (a `choose` is taken here).
     * @param {number} beat
     * @param {number} meter
     */
    meterBeat(beat, meter) {
      if (state.ended) return [];
      const s = sectionById(form, state.current);
      if (s.when.length === 0 || beat < s.first || beat >= s.end) return [];
      const r = meterBeat(form, state, meter);
      state = r.state;
      return r.fired;
    },

    /** The cues the current section's meter rules have fired, in order (applied again on a resume). */
    firedCues: () => firedCues(form, state),

    /** The beat after each section's last: where playing on asks `endsSection`. */
    ends() {
      return form.sections.map((x) => x.end);
    },

    /**
     * The conductor moved the performance to `beat` by hand: the section that holds it plays, its
     * choice and meter rules afresh. A beat outside every section, or in the section playing,
     * keeps the section (it plays on into it).
     * @param {number} beat
     */
    seek(beat) {
      const s = form.sections.find((x) => beat >= x.first && beat < x.end);
      if (!s || (s.id === state.current && !state.ended)) {
        // Within the section: its rules go on, but the cues they fired are gone with the cue
        // state the seek rebuilds from the score (a resume must not put them back).
        if (!state.ended && state.rules.fired.length > 0) state = { ...state, rules: { ...state.rules, fired: [] } };
        return;
      }
      state = {
        current: s.id,
        round: state.round + 1,
        chosen: null,
        claimedBy: null,
        order: [...state.order, { section: s.id, by: 'seek' }],
        ended: false,
        rules: startRules(s.when),
      };
    },

    /** From the start again (a stop, a play after the end). */
    reset() {
      state = startState(form);
    },

    /** Plain JSON, for the save and a failover. */
    record() {
      return structuredClone(state);
    },

    /**
     * Why `record` does not fit this score's sections, or null; taken up when it fits.
     * @param {unknown} record
     */
    restore(record) {
      const r = restoreState(form, record);
      if (!r.ok) return r.problem;
      state = r.state;
      return null;
    },
  };
}

/**
 * @param {import('../../core/open-form.js').OpenForm} form
 * @param {OpenFormState} state
 * @returns {SectionView}
 */
function view(form, state) {
  const o = offer(form, state);
  return {
    id: o.section,
    name: o.name,
    round: o.round,
    first: sectionById(form, o.section).first,
    endsAt: o.endsAt,
    options: o.options,
    chooser: o.chooser,
    ...(o.owner !== null ? { owner: o.owner } : {}),
    audience: o.audience,
    // Bands over the parts (core/part-overlays.js): only when the section has some, so that a
    // section's state is as before without them.
    ...(o.overlays.length > 0 ? { overlays: o.overlays.map(overlayView) } : {}),
    ...(o.claimedBy !== null ? { claimedBy: o.claimedBy } : {}),
    ...(o.chosen !== null ? { chosen: { ...o.chosen } } : {}),
    // With each section's name, for a timeline of the order taken; the last ORDER_SHOWN only, so
    // that a long performance's state stays small (the record and GET /api/section keep all).
    order: state.order
      .slice(-ORDER_SHOWN)
      .map((x) => ({ ...x, name: x.section === END ? 'End' : sectionById(form, x.section).name })),
  };
}

/**
 * An overlay as pages see it: absent keys, not nulls.
 * @param {import('../../core/part-overlays.js').Overlay} o
 */
function overlayView(o) {
  return {
    band: o.band,
    ...(o.parts !== null ? { parts: [...o.parts] } : {}),
    ...(o.source !== null ? { source: o.source, range: [...o.range] } : {}),
    value: o.value,
  };
}

/** @typedef {ReturnType<typeof sectionState>} SectionState */

/**
 * The conductor's commands of the open form (conductor.js spreads them in).
 * @param {{ sections: () => SectionState | null, commit: () => void }} ctx  commit: publish the
 *   state dressed anew (and announce the next beat again while playing)
 */
export function sectionCommands({ sections, commit }) {
  /** The open form's sections, or SC_ERR_SECTION_REFUSED for a score without them. */
  const openForm = () => {
    const s = sections();
    if (!s) throw new ScorecastError('SC_ERR_SECTION_REFUSED', 'this score has no open form (openForm)');
    return s;
  };
  return {
    /**
     * The open form's offer now, the order taken and the sections (GET /api/section). Throws
     * SC_ERR_SECTION_REFUSED for a score without one.
     */
    sectionOffer() {
      return openForm().offer();
    },

    /**
     * Choose the section that follows the current one (the console: it overrides; a part: when
     * the offer names it), or claim a first-come choice. Published at once: on the section's
     * last beat, the next beat announced is the chosen section's first. Throws
     * SC_ERR_SECTION_REFUSED.
     * @param {{ kind: 'choose', request: import('../../core/open-form.js').ChoiceRequest } | { kind: 'claim', request: { part: string, round: number } }} action
     */
    chooseSection(action) {
      const form = openForm();
      if (action.kind === 'choose') form.choose(action.request);
      else form.claim(action.request);
      commit();
      return form.offer();
    },
  };
}
