// Part views. Verovio's select() takes measure ranges only (src/docselection.cpp), not staves, so
// a part view is engraved from a document that holds that part alone: we cut the other staves
// out of the MEI that Verovio made of the score. Working on Verovio's MEI rather than on the
// input serves MusicXML and MEI alike, and keeps every element id of the score, so the score's
// timemap times the part's notes too.

import { localName, spliceText, textOf, walk } from './xml.js';

/** Part ids become file names and URL paths; the manifest checks the same rule. */
const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * @typedef {object} PartRequest
 * @property {string} id
 * @property {string} [source] MusicXML part id, or MEI staff number(s), space-separated
 */

/**
 * Check part ids and sources against the parts of the notation; a part without a source takes
 * the score's part in the same position.
 * @param {string} name file name for problems
 * @param {import('./source.js').NotationSource} src
 * @param {PartRequest[]} requests
 * @returns {{ ok: true, parts: { id: string, source: string }[] } | { ok: false, problems: string[] }}
 */
export function checkParts(name, src, requests) {
  /** @type {string[]} */
  const problems = [];
  const known = src.parts.map((p) => p.source);
  const listing = src.parts.map((p) => (p.name ? `${p.source} (${p.name})` : p.source)).join(', ');
  const what = src.format === 'musicxml' ? 'part id' : 'staff number';
  /** @type {{ id: string, source: string }[]} */
  const parts = [];
  const seen = new Set();
  requests.forEach((req, i) => {
    if (typeof req.id !== 'string' || !ID_RE.test(req.id) || req.id === 'score') {
      problems.push(
        `${name}: part id ${JSON.stringify(req.id)} cannot name a view; use lower-case letters, digits, "-" or "_", and not "score"`,
      );
      return;
    }
    if (seen.has(req.id)) {
      problems.push(`${name}: part id "${req.id}" is given twice; give each part its own id`);
      return;
    }
    seen.add(req.id);
    const source = req.source ?? src.parts[i]?.source;
    if (source === undefined) {
      problems.push(
        `${name}: part "${req.id}" has no source and the score has only ${src.parts.length} parts (${listing}); give it a source or remove it`,
      );
      return;
    }
    const tokens = src.format === 'musicxml' ? [source] : source.trim().split(/\s+/);
    const missing = tokens.filter((t) => !known.includes(t));
    if (missing.length > 0) {
      problems.push(
        `${name}: part "${req.id}" has source "${source}", but the score has no ${what} ${missing.join(', ')} (it has ${listing}); fix the part's source in score.yaml`,
      );
      return;
    }
    parts.push({ id: req.id, source: tokens.join(' ') });
  });
  return problems.length ? { ok: false, problems } : { ok: true, parts };
}

/**
 * Staff numbers of a part in Verovio's MEI. Verovio gives a MusicXML part's staffDef (or, for a
 * part of several staves, its staffGrp) the part id as xml:id.
 * @param {import('./xml.js').XmlElement} meiRoot
 * @param {'musicxml' | 'mei'} format
 * @param {string} source
 * @returns {string[]}
 */
export function staffNumbersOf(meiRoot, format, source) {
  if (format === 'mei') return source.split(' ');
  /** @type {string[]} */
  const staves = [];
  let found = false;
  walk(meiRoot, (el) => {
    if (found) return false;
    if (localName(el) === 'meiHead') return false;
    if (el.attrs['xml:id'] !== source || !['staffDef', 'staffGrp'].includes(localName(el))) return true;
    found = true;
    if (localName(el) === 'staffDef') staves.push(el.attrs.n);
    else
      walk(el, (d) => {
        if (localName(d) === 'staffDef') staves.push(d.attrs.n);
        return localName(d) !== 'staffDef';
      });
    return false;
  });
  return staves;
}

/** Marks written over the top staff that every player needs: they go into every part. */
const FOR_ALL = new Set(['tempo', 'reh']);

/** Attributes by which a control event points at notes rather than naming its staff. */
const REFERRING = ['startid', 'endid'];

/**
 * The MEI document with only the staves in `keep`.
 * @param {string} text MEI
 * @param {import('./xml.js').XmlElement} root its parse
 * @param {Set<string>} keep staff numbers
 */
export function extractStaves(text, root, keep) {
  /** @type {{ start: number, end: number, with?: string }[]} */
  const edits = [];
  /** xml:ids inside removed staves, so that slurs, ties and the like pointing at them go too. */
  const removed = new Set();
  const first = [...keep][0];
  /** @param {import('./xml.js').XmlElement} el */
  const keepsAny = (el) => {
    let n = 0;
    walk(el, (d) => {
      if (localName(d) === 'staffDef' && keep.has(d.attrs.n)) n++;
    });
    return n > 0;
  };
  walk(root, (el) => {
    const ln = localName(el);
    if (ln === 'meiHead') return false;
    if (ln === 'staffGrp' && !keepsAny(el)) {
      edits.push(el);
      return false;
    }
    if ((ln === 'staffDef' || ln === 'staff') && !keep.has(el.attrs.n)) {
      edits.push(el);
      walk(el, (d) => {
        if (d.attrs['xml:id']) removed.add(d.attrs['xml:id']);
      });
      return false;
    }
    return ln !== 'staff';
  });
  walk(root, (el) => {
    if (localName(el) === 'meiHead') return false;
    if (localName(el) !== 'measure') return true;
    /** Marks for all players, by kind and beat: copies written over several staves count once. */
    /** @type {Map<string, import('./xml.js').XmlElement[]>} */
    const marks = new Map();
    for (const c of el.children) {
      if (localName(c) === 'staff') continue;
      const refersToRemoved = REFERRING.some((a) => removed.has(c.attrs[a]?.replace(/^#/, '')));
      if (FOR_ALL.has(localName(c)) && !refersToRemoved) {
        const key = `${localName(c)}@${c.attrs.tstamp ?? ''}`;
        marks.set(key, [...(marks.get(key) ?? []), c]);
      } else if (refersToRemoved || !onStaves(c, keep)) {
        edits.push(c);
      }
    }
    for (const copies of marks.values()) {
      // Keep a visible copy on the part's staff; else move a visible one (or, failing that, any
      // one: it still sets the tempo) onto it; drop the rest.
      const shows = (/** @type {import('./xml.js').XmlElement} */ c) =>
        c.children.length > 0 || textOf(text, c).trim() !== '';
      const kept = copies.filter((c) => onStaves(c, keep));
      const moved = kept.some(shows)
        ? null
        : (copies.find((c) => !onStaves(c, keep) && shows(c)) ?? (kept.length ? null : copies[0]));
      for (const c of copies) {
        if (c === moved) edits.push({ start: c.start, end: c.openEnd, with: startTag(c, { staff: first }) });
        else if (!onStaves(c, keep)) edits.push(c);
      }
    }
    return false;
  });
  return spliceText(text, edits);
}

/**
 * Whether a control event belongs to the kept staves (or to no staff in particular).
 * @param {import('./xml.js').XmlElement} el
 * @param {Set<string>} keep
 */
const onStaves = (el, keep) => !el.attrs.staff || el.attrs.staff.split(/\s+/).some((s) => keep.has(s));

/**
 * A start tag with some attributes replaced.
 * @param {import('./xml.js').XmlElement} el
 * @param {Record<string, string>} set
 */
function startTag(el, set) {
  const esc = (/** @type {string} */ v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const attrs = Object.entries({ ...el.attrs, ...set })
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
  return `<${el.name}${attrs}${el.end === el.openEnd ? '/>' : '>'}`;
}
