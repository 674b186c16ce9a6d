// Checks of plain values shared by every layer: what a JSON object is, and what an id is. A leaf
// module: imports nothing.

/**
 * A JSON object: not null, not an array.
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The ids of the protocol and of score packages (epochs, views, page and client ids, tiles, vote
 * windows): 1 to 64 of A-Z, a-z, 0-9, `_` and `-` (doc/protocol.md), safe in a URL path, a query,
 * a file name and a CSS selector.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @param {unknown} v
 * @returns {v is string}
 */
export const isId = (v) => typeof v === 'string' && ID_PATTERN.test(v);
