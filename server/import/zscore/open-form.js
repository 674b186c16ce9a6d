// The open form of an imported score (the package's `openForm`, doc/score-format.md "Open form"):
// the sections of ZScore's section builder (strategyConfig.yml `builderStrategy`: `sections`,
// `pageRanges` of merged page numbers, `assignmentType`; szcore's ScoreBuilderStrategy, read for
// the behaviour), or else the movements of a merged export, each a section played in order unless
// the conductor chooses another. Sections are written as beat ranges of the master's pages.

import { slug } from './views.js';

/**
 * ZScore's assignment of the next section, as scorecast's `chooser`. USER_ANY_FCFS: any player
 * may select the next section, the first to do so has it (szcore DialogsScoreProcessor).
 * @type {Record<string, 'first' | 'conductor'>}
 */
const CHOOSERS = { USER_ANY_FCFS: 'first' };

/**
 * @typedef {object} OpenFormSection
 * @property {string} id
 * @property {string} name
 * @property {[number, number]} beats
 * @property {'first' | 'conductor'} [chooser]
 */

/**
 * @param {object} input
 * @param {{ pages: { no: number }[], beats: { page: number }[] }} input.view  the reference view
 * @param {import('./merged.js').Section[]} input.movements  a merged export's movements (or [])
 * @param {{ value: unknown, line: number, file: string }[]} input.builder  builderStrategy entries
 * @param {import('./log.js').ImportLog} input.log
 * @returns {{ start: string, sections: OpenFormSection[] } | null}
 */
export function readOpenForm({ view, movements, builder, log }) {
  const total = view.beats.length;
  /** First beat (0-based, in performance order) of a merged page number; -1 if none. */
  const beatOfPage = (/** @type {number} */ no) => {
    const k = view.pages.findIndex((p) => p.no === no);
    return k < 0 ? -1 : view.beats.findIndex((b) => b.page === k);
  };
  const [strategy, ...others] = builder;
  for (const o of others)
    log.notConverted.push({
      source: `${o.file} line ${o.line}`,
      what: 'builderStrategy',
      reason: `a second section builder; the one in ${strategy.file} was read`,
    });
  const fromBuilder = strategy ? fromStrategy(strategy) : null;
  if (fromBuilder) return fromBuilder;
  if (movements.length < 2) return null;
  const sections = movements.map((m, i) => ({
    id: '',
    name: m.name,
    beats: /** @type {[number, number]} */ ([m.beat, i + 1 < movements.length ? movements[i + 1].beat - 1 : total - 1]),
  }));
  name(sections);
  log.converted.push({
    source: 'movements',
    what: `${sections.length} movements of a merged export`,
    result: `openForm: sections ${sections.map((s) => `${s.id} (beats ${s.beats[0]}-${s.beats[1]})`).join(', ')}, played in order unless the conductor chooses another`,
  });
  return { start: sections[0].id, sections };

  /**
   * @param {{ value: unknown, line: number, file: string }} entry
   * @returns {{ start: string, sections: OpenFormSection[] } | null}
   */
  function fromStrategy(entry) {
    const source = `${entry.file} line ${entry.line}`;
    const v = /** @type {Record<string, any>} */ (entry.value ?? {});
    const skip = (/** @type {string} */ what, /** @type {string} */ reason) =>
      log.notConverted.push({ source, what, reason });
    if (v.isActive === false) {
      skip('builderStrategy', 'not active (isActive: false): ZScore plays the pages in order');
      return null;
    }
    const ranges = Array.isArray(v.pageRanges) ? v.pageRanges : [];
    /** @type {OpenFormSection[]} */
    const sections = [];
    for (const r of ranges) {
      const first = beatOfPage(Number(r?.range?.start));
      const afterLast = beatOfPage(Number(r?.range?.end) + 1);
      if (typeof r?.name !== 'string' || first < 0) {
        skip(
          `builderStrategy page range ${JSON.stringify(r?.range ?? null)}`,
          'names no section, or its first page is not a page of the score',
        );
        continue;
      }
      const last = afterLast < 0 ? total - 1 : afterLast - 1;
      sections.push({ id: '', name: r.name, beats: [first, last] });
      /** @type {unknown[]} */
      const instruments = Array.isArray(r.instruments) ? r.instruments : [];
      if (instruments.length && !instruments.every((x) => String(x).toLowerCase() === 'all'))
        skip(
          `builderStrategy ${r.name}: instruments ${instruments.join(', ')}`,
          "a section's own instrument slots (the others take their default instruments); every part plays every section in scorecast",
        );
    }
    if (sections.length === 0) {
      skip('builderStrategy', 'no page range names a section of the score');
      return null;
    }
    sections.sort((a, b) => a.beats[0] - b.beats[0]);
    for (let i = 1; i < sections.length; i++)
      if (sections[i].beats[0] <= sections[i - 1].beats[1]) {
        skip('builderStrategy', `the page ranges of ${sections[i - 1].name} and ${sections[i].name} overlap`);
        return null;
      }
    const type = typeof v.assignmentType === 'string' ? v.assignmentType : 'USER_ANY_FCFS';
    const chooser = CHOOSERS[type];
    if (!chooser)
      skip(
        `builderStrategy assignmentType ${type}`,
        "no scorecast counterpart known; the conductor chooses the next section (a section's chooser can be set by hand)",
      );
    for (const s of sections) if (chooser && chooser !== 'conductor') s.chooser = chooser;
    name(sections);
    if (v.isStopOnSectionEnd)
      skip(
        'builderStrategy isStopOnSectionEnd',
        "ZScore stops at each section's end until the next is selected; scorecast goes on to the chosen section on the beat grid (nobody choosing takes the section after it)",
      );
    log.converted.push({
      source,
      what: `builderStrategy: sections ${sections.map((s) => s.name).join(', ')}, ${type}`,
      result: `openForm: ${sections.map((s) => `${s.id} (beats ${s.beats[0]}-${s.beats[1]})`).join(', ')}; chooser ${chooser ?? 'conductor'}`,
    });
    return { start: sections[0].id, sections };
  }
}

/**
 * Section ids: slugs of their names, made unique; the name kept where it differs from the id.
 * @param {OpenFormSection[]} sections
 */
function name(sections) {
  /** @type {Set<string>} */
  const taken = new Set(['end']);
  for (const s of sections) {
    const base = slug(s.name, 'section');
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    s.id = id;
  }
}
