// score.yaml against its JSON Schema (scores/schema/score.schema.json) before the semantic
// checks of core/manifest.js: an unknown or misspelled key ("cue:" for "cues:", "colour:" for
// "color:") is an error with its line and the nearest valid key, instead of being ignored.
// Only unknown keys are reported from here; every other rule has a clearer message
// in core/manifest.js.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';

/**
 * The schema file of this install: what the server validates against, what `scorecast check
 * --schema` prints and what import-zscore copies into the packages it writes.
 */
export const SCHEMA_PATH = fileURLToPath(new URL('../../scores/schema/score.schema.json', import.meta.url));

// ajv is CommonJS: under nodenext its default export is the module object.
const Ajv = /** @type {typeof AjvModule.default} */ (/** @type {any} */ (AjvModule).default ?? AjvModule);

/** @type {import('ajv').ValidateFunction | null} */
let validate = null;

function validator() {
  if (!validate) {
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
    validate = new Ajv({ allErrors: true, verbose: true, strict: false }).compile(schema);
  }
  return validate;
}

/**
 * Edit distance with transpositions (optimal string alignment); keys are short.
 * @param {string} a
 * @param {string} b
 */
function distance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, k) => k);
  let before = prev;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      // Two letters swapped count as one slip ("nmae").
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The valid key nearest to `key`, if one is near enough to be what was meant.
 * @param {string} key
 * @param {string[]} valid
 */
export function nearestKey(key, valid) {
  let best = '';
  let bestD = Infinity;
  for (const v of valid) {
    const d =
      v.toLowerCase().startsWith(key.toLowerCase()) || key.toLowerCase().startsWith(v.toLowerCase())
        ? 1
        : distance(key.toLowerCase(), v.toLowerCase());
    if (d < bestD) {
      best = v;
      bestD = d;
    }
  }
  return bestD <= Math.max(1, Math.floor(key.length / 3)) ? best : null;
}

/**
 * Unknown keys of a manifest, as field problems (server/package/manifest-file.js gives them their line).
 * @param {unknown} raw  the parsed score.yaml
 * @returns {{ field: string, message: string }[]}
 */
export function unknownKeys(raw) {
  const check = validator();
  if (check(raw)) return [];
  // One object can fail several schema branches (a cue is one of several kinds): a key is
  // unknown only if no branch that was tried knows it.
  /** @type {Map<string, { keys: Set<string>, allowed: Set<string> }>} */
  const byPath = new Map();
  for (const e of check.errors ?? []) {
    if (e.keyword !== 'additionalProperties') continue;
    const at = byPath.get(e.instancePath) ?? { keys: new Set(), allowed: new Set() };
    at.keys.add(/** @type {{ additionalProperty: string }} */ (e.params).additionalProperty);
    for (const k of Object.keys(/** @type {any} */ (e.parentSchema)?.properties ?? {})) at.allowed.add(k);
    byPath.set(e.instancePath, at);
  }
  /** @type {{ field: string, message: string }[]} */
  const problems = [];
  for (const [pointer, { keys, allowed }] of byPath) {
    const parent = pointer
      .split('/')
      .slice(1)
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '');
    for (const key of keys) {
      if (allowed.has(key)) continue;
      const field = parent ? `${parent}.${key}` : key;
      const near = nearestKey(key, [...allowed]);
      const fix = near ? `did you mean "${near}"?` : `the keys here are ${[...allowed].join(', ')}`;
      problems.push({ field, message: `is not a key of score.yaml here; ${fix}` });
    }
  }
  return problems;
}
