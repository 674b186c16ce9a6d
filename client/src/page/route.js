// Which view a page shows, from its path: the server serves the same index.html for both.

import { isId } from '../../../core/values.js';

/** The view shown at `/`. */
export const DEFAULT_VIEW = 'audience';

/** View names are short ids, like the other ids of the protocol (core/protocol.js). */

/**
 * `/` -> `audience`, `/view/X` (or `/view/X/`) -> `X`. Anything else, or a name that is not a
 * short id, falls back to the default view rather than showing an empty page.
 * @param {string} pathname `location.pathname`
 * @returns {string}
 */
export function viewFromPath(pathname) {
  const match = /^\/view\/([^/]+)\/?$/.exec(pathname);
  if (!match) return DEFAULT_VIEW;
  let name;
  try {
    name = decodeURIComponent(match[1]);
  } catch {
    return DEFAULT_VIEW;
  }
  return isId(name) ? name : DEFAULT_VIEW;
}

/**
 * The transport asked for with `?transport=ws|sse|poll`, if any (tests and debugging).
 * @param {string} search `location.search`
 * @returns {string | undefined}
 */
export function forcedTransport(search) {
  return new URLSearchParams(search).get('transport') ?? undefined;
}

/**
 * Whether a part or score page paints its notation: `?notation=off` leaves it out and keeps the
 * rest (the beat and its marks, the start signal, the cue text, the click on the same clock). For a
 * player reading from paper who wants only the click and the cues, and for the audio lab: ten pages
 * painting notation on one 2-core machine measure the machine's load, not the sound.
 * @param {string} search `location.search`
 * @returns {boolean}
 */
export function notationWanted(search) {
  return new URLSearchParams(search).get('notation') !== 'off';
}
