// What a page says of an open-form piece's sections (the state's `section`, doc/protocol.md,
// "Open form"): the section playing and who leads it, what follows and who chooses it, or the
// choice made and by whom. Pure: the console and every view word it the same way.

/**
 * @typedef {object} SectionState
 * @property {string} id
 * @property {string} name
 * @property {number} round
 * @property {number} endsAt
 * @property {{ id: string, name: string }[]} options
 * @property {string} chooser  "conductor", "first" or "part:<id>"
 * @property {string} [owner]
 * @property {{ notes: boolean, audio: boolean, thumbs: boolean, meter: boolean, vote: boolean }} [audience]
 *   what the audience page shows in this section
 * @property {string} [claimedBy]
 * @property {{ section: string, by: string }} [chosen]
 * @property {{ section: string, by: string, name?: string }[]} [order]
 */

/**
 * Who `by` names: "conductor", "part:<id>", "first", "meter" (a section's `when` rule), "default",
 * "start", "seek".
 * @param {string} by
 */
export function whoWords(by) {
  if (by === 'conductor') return 'the conductor';
  if (by === 'first') return 'the first player to claim it';
  if (by === 'meter') return 'the audience meter';
  if (by.startsWith('part:')) return by.slice(5);
  return by;
}

/**
 * A section's state as it arrives, or null when it is not one (a score without sections, the
 * piece ended, a malformed state).
 * @param {unknown} s
 * @returns {SectionState | null}
 */
export function sectionOf(s) {
  const x = /** @type {any} */ (s);
  if (!x || typeof x !== 'object' || typeof x.id !== 'string' || !Array.isArray(x.options)) return null;
  return /** @type {SectionState} */ (x);
}

/**
 * The two lines a page shows: the section playing, and what follows.
 * @param {SectionState} s
 * @returns {{ now: string, next: string }}
 */
export function sectionWords(s) {
  const name = (/** @type {string} */ id) => s.options.find((o) => o.id === id)?.name ?? id;
  const now = `Now: ${s.name}${typeof s.owner === 'string' ? ` (${s.owner} leads)` : ''}`;
  if (s.chosen) return { now, next: `Next: ${name(s.chosen.section)}, chosen by ${whoWords(s.chosen.by)}` };
  const options = s.options.map((o) => o.name).join(' or ');
  const chooser = typeof s.claimedBy === 'string' ? s.claimedBy : whoWords(s.chooser);
  return { now, next: `Next: ${options}? ${chooser[0].toUpperCase()}${chooser.slice(1)} chooses` };
}
