// URLs of the live endpoints (doc/protocol.md, "Transports"), carrying the resume point.

/**
 * Build the URL of a live endpoint. A client that holds nothing sends no epoch and no seq, which
 * the server answers with a snapshot.
 * @param {string} baseUrl http(s) origin of the server
 * @param {string} path e.g. `/live`
 * @param {import('./index.js').Position} from
 * @param {{ seqParam?: string, websocket?: boolean, extra?: Record<string, string | undefined> }} [options]
 *   seqParam: name of the seq parameter (`seq`, or `since` for polling); websocket: ws(s) scheme
 * @returns {string}
 */
export function liveUrl(baseUrl, path, from, options = {}) {
  const url = new URL(path, baseUrl);
  if (options.websocket) url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (from.epoch !== null) {
    url.searchParams.set('epoch', from.epoch);
    url.searchParams.set(options.seqParam ?? 'seq', String(from.seq));
  }
  for (const [key, value] of Object.entries(options.extra ?? {}))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}
