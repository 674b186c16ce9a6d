// Presets: changes of the audience view that the conductor fires by hand from the console (ZScore's
// web-score presets, which its operator could run at any moment). `presets: [{ id: 3, name: Zoom
// out, set: { text: null } }]` in score.yaml; `set` is a merge patch of the audience cue state, as
// in a cue. A fired preset lasts until a cue changes what it set, or a seek rebuilds the state.

/**
 * @typedef {object} Preset
 * @property {string} id    as written (numbers as text), unique
 * @property {string} name  for the console
 * @property {Record<string, unknown>} set
 */

/** Presets a package may have. */
export const MAX_PRESETS = 256;

/**
 * Check the `presets` list of a manifest.
 * @param {unknown} list
 * @param {{ problem: (field: string, message: string) => void, checkSet: (set: Record<string, any>) => string | null }} ctx
 *   checkSet: what is wrong with a patch (size, colours), as for a cue's `set`, or null
 * @returns {Preset[]}
 */
export function checkPresets(list, { problem, checkSet }) {
  /** @type {Preset[]} */
  const out = [];
  if (list === undefined) return out;
  if (!Array.isArray(list) || list.length > MAX_PRESETS) {
    problem(
      'presets',
      `must be a list of at most ${MAX_PRESETS} presets like [{id: 1, name: Start, set: {text: Listen}}]`,
    );
    return out;
  }
  list.forEach((p, i) => {
    const f = `presets[${i}]`;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      problem(f, 'must be a mapping like {id: 1, name: Start, set: {text: Listen}}');
      return;
    }
    const id = typeof p.id === 'number' && Number.isInteger(p.id) ? String(p.id) : p.id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
      problem(`${f}.id`, 'must be a whole number or a name of letters, digits, "-" and "_"');
      return;
    }
    if (out.some((o) => o.id === id)) {
      problem(`${f}.id`, `"${id}" names another preset; preset ids must be unique`);
      return;
    }
    if (p.name !== undefined && (typeof p.name !== 'string' || p.name.length > 80)) {
      problem(`${f}.name`, 'must be text of at most 80 characters');
      return;
    }
    if (p.set === null || typeof p.set !== 'object' || Array.isArray(p.set)) {
      problem(`${f}.set`, 'must be a mapping of what the audience view shows, e.g. {text: Hello}');
      return;
    }
    const wrong = checkSet(p.set);
    if (wrong) {
      problem(`${f}.set`, wrong);
      return;
    }
    out.push({ id, name: typeof p.name === 'string' ? p.name : `Preset ${id}`, set: p.set });
  });
  return out;
}
