// JSON Merge Patch (RFC 7386): the form of every state change on the wire.

import { isObject } from './values.js';

/**
 * Apply a merge patch to a target and return the result (RFC 7386 section 2, MergePatch).
 * The target is not modified; unchanged branches are shared with it.
 * @param {unknown} target
 * @param {unknown} patch
 * @returns {any}
 */
export function applyPatch(target, patch) {
  if (!isObject(patch)) return patch;
  /** @type {Record<string, unknown>} */
  const out = isObject(target) ? { ...target } : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete out[key];
    else out[key] = applyPatch(out[key], value);
  }
  return out;
}

/**
 * Compute a merge patch that turns `from` into `to`, or undefined when they are equal.
 * Arrays are replaced whole, as RFC 7386 requires. `to` must not hold null values inside
 * objects: merge patch cannot express them (null means "remove").
 * @param {unknown} from
 * @param {unknown} to
 * @returns {unknown}
 */
export function diffPatch(from, to) {
  if (from === to) return undefined;
  if (!isObject(from) || !isObject(to)) {
    return deepEqual(from, to) ? undefined : to;
  }
  /** @type {Record<string, unknown>} */
  const patch = {};
  let changed = false;
  for (const key of Object.keys(from)) {
    if (!(key in to)) {
      patch[key] = null;
      changed = true;
    }
  }
  for (const key of Object.keys(to)) {
    const sub = key in from ? diffPatch(from[key], to[key]) : to[key];
    if (sub !== undefined) {
      patch[key] = sub;
      changed = true;
    }
  }
  return changed ? patch : undefined;
}

/**
 * Structural equality of JSON values.
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ao = /** @type {Record<string, unknown>} */ (a);
  const bo = /** @type {Record<string, unknown>} */ (b);
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}
