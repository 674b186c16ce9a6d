// The score.yaml of an imported package, written by hand rather than by a YAML library so that it
// reads like the examples in doc/score-format.md: one line per part, view, meter entry and cue.

import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';

/**
 * @typedef {object} ManifestSpec
 * @property {string} comment   second line, after "# " (the first names the schema for an editor)
 * @property {string} id
 * @property {string} title
 * @property {{ id: string, name: string }[]} parts
 * @property {Record<string, { files: string[], beatmap: string }>} pages
 * @property {number} pickup
 * @property {number} bars
 * @property {import('./timing.js').MeterEntry[]} meter
 * @property {{ at: number, set?: Record<string, unknown>, vote?: Record<string, unknown> }[]} cues
 * @property {Record<string, unknown>[]} [pageChoices]
 * @property {{ at: number, address: string, args: (string | number)[], setup?: 'only' | 'also' }[]} [osc]
 * @property {{ start: string, sections: import('./open-form.js').OpenFormSection[] } | null} [openForm]
 * @property {{ id: number, name: string, set: Record<string, unknown> }[]} [presets]
 */

/**
 * The copy of the schema that import-zscore writes beside score.yaml, and the modeline that names
 * it (relative to score.yaml, as yaml-language-server resolves it). A copy, not the absolute path
 * of this install's schema: the package is then self-contained and portable, so an editor still
 * finds the schema when the package is moved, zipped, sent to another machine or opened after
 * scorecast is updated or removed, which an absolute path into one install would not survive.
 * The server never reads it (only the files the manifest names are opened or served), and
 * `scorecast check --schema` names the schema of the running version.
 */
export const SCHEMA_FILE = 'score.schema.json';
const MODELINE = `# yaml-language-server: $schema=./${SCHEMA_FILE}`;

const PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n)$/i;
const TIME = /^\d{1,2}\/\d{1,2}$/;

/**
 * A value in YAML flow style; strings are plain when that is unambiguous, else JSON-quoted
 * (a JSON string is a valid YAML double-quoted scalar).
 * @param {unknown} v
 * @returns {string}
 */
function flow(v) {
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return (PLAIN.test(v) && !RESERVED.test(v)) || TIME.test(v) ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  const entries = Object.entries(/** @type {Record<string, unknown>} */ (v));
  return entries.length === 0 ? '{}' : `{ ${entries.map(([k, x]) => `${flow(k)}: ${flow(x)}`).join(', ')} }`;
}

/**
 * The manifest as text. Throws if the text would not read back as the same values (a bug).
 * @param {ManifestSpec} spec
 */
export function renderManifest(spec) {
  /** @type {Record<string, unknown>} */
  const value = {
    id: spec.id,
    title: spec.title,
    ...(spec.parts.length ? { parts: spec.parts } : {}),
    pages: spec.pages,
    ...(spec.pickup ? { pickup: spec.pickup } : {}),
    bars: spec.bars,
    meter: spec.meter,
    ...(spec.cues.length ? { cues: spec.cues } : {}),
    ...(spec.pageChoices?.length ? { pageChoices: spec.pageChoices } : {}),
    ...(spec.osc?.length ? { osc: spec.osc } : {}),
    ...(spec.presets?.length ? { presets: spec.presets } : {}),
    ...(spec.openForm ? { openForm: spec.openForm } : {}),
  };
  const lines = [MODELINE, `# ${spec.comment}`];
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) lines.push(`${key}:`, ...v.map((item) => `  - ${flow(item)}`));
    else if (v !== null && typeof v === 'object')
      lines.push(`${key}:`, ...Object.entries(v).map(([k, x]) => `  ${flow(k)}: ${flow(x)}`));
    else lines.push(`${key}: ${flow(v)}`);
  }
  const text = `${lines.join('\n')}\n`;
  if (!isDeepStrictEqual(parse(text), value))
    throw new Error('import-zscore: the manifest does not read back as written (please report this)');
  return text;
}
