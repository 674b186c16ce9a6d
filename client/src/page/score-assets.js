// The score's description (`GET /api/score`) and the prefetch of the assets it marks `preload`,
// so that they are in the browser's cache before the score needs them.

/**
 * @typedef {object} ScoreInfo
 * @property {string} [id]
 * @property {string} [title]
 * @property {Array<{ url: string, preload?: boolean }>} assets
 */

/**
 * @typedef {(url: string) => Promise<{ ok: boolean, json(): Promise<unknown>, arrayBuffer(): Promise<unknown> }>} SimpleFetch
 */

/**
 * Fetch `/api/score` and the assets it marks `preload`. Never rejects: the live view works
 * without the score description, so a failure is logged and answered with null.
 * @param {SimpleFetch} fetch
 * @param {(message: string, detail?: unknown) => void} [log]
 * @returns {Promise<ScoreInfo | null>} resolves once every preload has finished or failed
 */
export async function loadScore(fetch, log = () => {}) {
  let info;
  try {
    const res = await fetch('/api/score');
    if (!res.ok) throw new Error('GET /api/score did not answer 200');
    info = toScoreInfo(await res.json());
  } catch (err) {
    log('score description unavailable', err);
    return null;
  }
  const preloads = info.assets
    .filter((a) => a.preload === true)
    .map(async (asset) => {
      try {
        const res = await fetch(asset.url);
        // Read the body: a response whose body is never read may not be cached whole.
        await res.arrayBuffer();
      } catch (err) {
        log(`could not prefetch ${asset.url}`, err);
      }
    });
  await Promise.all(preloads);
  return info;
}

/**
 * Keep only what has the expected shape: the answer comes from the network.
 * @param {unknown} raw
 * @returns {ScoreInfo}
 */
export function toScoreInfo(raw) {
  const obj = raw !== null && typeof raw === 'object' ? /** @type {Record<string, unknown>} */ (raw) : {};
  /** @type {ScoreInfo} */
  const info = { assets: [] };
  if (typeof obj.id === 'string') info.id = obj.id;
  if (typeof obj.title === 'string') info.title = obj.title;
  if (Array.isArray(obj.assets)) {
    for (const a of obj.assets) {
      if (a && typeof a === 'object' && typeof a.url === 'string' && a.url !== '') {
        info.assets.push({ url: a.url, preload: a.preload === true });
      }
    }
  }
  return info;
}
