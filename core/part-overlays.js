// Part overlays: bands drawn over a performer's part (ZScore's Dialogs overlays: dynamics, pitch
// and pitch stave, timbre, speed, position, pressure), each a value 0..1 that the score sets per
// section or the audience meter drives while the section plays. An open-form section declares them
// (doc/score-format.md, "Open form"); the state's `section.overlays` carries the declaration, and
// every page works out the value from it and the state's `meter`, so a meter change stays the one
// small patch it is (no overlay values on the wire). Pure: no I/O, no clock.
//
//   overlays:
//     - { band: dynamics, parts: [violin], source: meter, range: [0.2, 1] }
//     - { band: timbre, value: 0.7 }          # every part

import { isObject } from './values.js';
import { meterToBand } from './audience-meter.js';

/** The bands, with ZScore's names (its OverlayType, in camelCase). */
export const BANDS = Object.freeze(['dynamics', 'pitch', 'pitchStave', 'timbre', 'speed', 'position', 'pressure']);
/** At most this many overlays in a section: the state stays small. */
export const MAX_OVERLAYS = 8;
const KEYS = ['band', 'parts', 'source', 'value', 'range'];

/**
 * @typedef {object} Overlay
 * @property {string} band      one of BANDS
 * @property {string[] | null} parts  the parts it is drawn over; null: every part
 * @property {'meter' | null} source  'meter': the audience meter drives it; null: `value`
 * @property {number} value     0..1, when not driven (and the rest value of a driven one: the
 *   band at meter 0)
 * @property {[number, number]} range  the band's value at meter -1 and at meter 1
 */

/**
 * A section's `overlays`, checked; each problem names its field.
 * @param {unknown} raw
 * @param {string} at  e.g. `openForm.sections[1].overlays`
 * @param {string[]} parts  the score's part ids
 * @param {(field: string, message: string) => void} bad
 * @returns {Overlay[]}
 */
export function readOverlays(raw, at, parts, bad) {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length > MAX_OVERLAYS) {
    bad(at, `must list at most ${MAX_OVERLAYS} overlays {band, parts?, source: meter | value: 0..1, range?}`);
    return [];
  }
  /** @type {Overlay[]} */
  const out = [];
  const seen = new Set();
  raw.forEach((o, i) => {
    const here = `${at}[${i}]`;
    if (!isObject(o)) {
      bad(here, 'must be {band, parts?, source: meter | value: 0..1, range?}');
      return;
    }
    let ok = true;
    const no = (/** @type {string} */ field, /** @type {string} */ message) => {
      ok = false;
      bad(field, message);
    };
    for (const k of Object.keys(o))
      if (!KEYS.includes(k)) no(`${here}.${k}`, `is not a key of an overlay (${KEYS.join(', ')})`);
    if (typeof o.band !== 'string' || !BANDS.includes(o.band)) no(`${here}.band`, `must be one of ${BANDS.join(', ')}`);
    const list = o.parts === undefined ? null : Array.isArray(o.parts) ? o.parts : undefined;
    if (list === undefined || (list !== null && list.length === 0)) no(`${here}.parts`, 'must list part ids');
    else if (list !== null)
      for (const p of list) if (!parts.includes(p)) no(`${here}.parts`, `"${String(p).slice(0, 64)}" is not a part`);
    if (o.source !== undefined && o.source !== 'meter')
      no(`${here}.source`, 'must be meter (the audience meter drives the band), or be left out with a value');
    const unit = (/** @type {unknown} */ v) => typeof v === 'number' && v >= 0 && v <= 1;
    if (o.source === undefined && o.value === undefined) no(here, 'needs a value (0..1) or source: meter');
    if (o.value !== undefined && !unit(o.value)) no(`${here}.value`, 'must be a number from 0 to 1');
    const range = o.range ?? [0, 1];
    if (!Array.isArray(range) || range.length !== 2 || !range.every(unit))
      no(`${here}.range`, 'must be [low, high], numbers from 0 to 1 (the band at meter -1 and at meter 1)');
    if (o.range !== undefined && o.source !== 'meter') no(`${here}.range`, 'applies to source: meter only');
    if (!ok || list === undefined) return;
    // One band of a kind over a part: a page draws one strip per band.
    const covered = list === null ? ['*'] : list.map(String);
    for (const c of covered)
      for (const p of [c, '*', ...(c === '*' ? parts : [])])
        if (seen.has(`${o.band} ${p}`)) {
          bad(here, `a second ${o.band} band over ${c !== '*' ? `part ${c}` : p === '*' ? 'every part' : `part ${p}`}`);
          return;
        }
    for (const c of covered) seen.add(`${o.band} ${c}`);
    const r = /** @type {[number, number]} */ ([range[0], range[1]]);
    out.push({
      band: o.band,
      parts: list === null ? null : list.map(String),
      source: o.source === 'meter' ? 'meter' : null,
      value: typeof o.value === 'number' ? o.value : Math.round(meterToBand(0, r) * 1000) / 1000,
      range: r,
    });
  });
  return out;
}

/**
 * The bands over `part` now: each overlay of the section that covers it, with its value (a driven
 * one from the meter; at rest when the state has no meter). Checks what it reads: the state comes
 * from the network on a page.
 * @param {unknown} overlays  the state's `section.overlays`
 * @param {string} part
 * @param {unknown} meter     the state's `meter` (-1..1), or absent
 * @returns {{ band: string, value: number, source: 'meter' | null }[]}
 */
export function bandsFor(overlays, part, meter) {
  if (!Array.isArray(overlays)) return [];
  /** @type {{ band: string, value: number, source: 'meter' | null }[]} */
  const out = [];
  for (const o of overlays.slice(0, MAX_OVERLAYS)) {
    if (!isObject(o) || !BANDS.includes(o.band)) continue;
    if (o.parts != null && !(Array.isArray(o.parts) && o.parts.includes(part))) continue;
    const unit = (/** @type {unknown} */ v) =>
      typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
    if (o.source === 'meter' && typeof meter === 'number' && Number.isFinite(meter)) {
      const r = Array.isArray(o.range) ? o.range : [0, 1];
      // Rounded to a thousandth: the page writes it to the DOM only when it changes.
      const v = Math.round(unit(meterToBand(meter, [unit(r[0]), unit(r[1])])) * 1000) / 1000;
      out.push({ band: o.band, value: v, source: 'meter' });
    } else out.push({ band: o.band, value: unit(o.value), source: o.source === 'meter' ? 'meter' : null });
  }
  return out;
}
