// The service worker (/sw.js, scope /). It keeps the page shell (index.html and the hashed
// /assets/ files of this build) and the score assets (/scores/..., content-hashed) on the phone,
// so a reload or a rejoin on the venue WiFi downloads neither again (the seed report's WiFi
// bottleneck was its 1.9 MB initial load), and a reload with the access point gone still shows
// the page. It answers only the requests `routeOf` names: live updates (/live*), the API,
// /healthz, /metrics and every non-GET request go to the network untouched.
//
// client/vite.config.js prepends the build's precache list: `self.__SCORECAST_BUILD__`.
// doc/client-caching.md describes the policy.

/**
 * The service-worker parts of the global scope. jsconfig checks client/src against the DOM
 * library, whose `self` is a Window; the WebWorker library cannot be loaded beside it.
 * @typedef {Event & { waitUntil(promise: Promise<unknown>): void }} SwExtendableEvent
 * @typedef {SwExtendableEvent & { request: Request, respondWith(response: Promise<Response>): void }} SwFetchEvent
 * @typedef {object} SwScope
 * @property {{ version: string, files: string[] }} [__SCORECAST_BUILD__]
 * @property {() => Promise<void>} skipWaiting
 * @property {{ claim(): Promise<void> }} clients
 * @property {Location} location
 * @property {(type: string, listener: (event: any) => void) => void} addEventListener
 */

const sw = /** @type {SwScope} */ (/** @type {unknown} */ (self));
const BUILD = sw.__SCORECAST_BUILD__ ?? { version: 'unbuilt', files: ['/'] };

const CACHE_PREFIX = 'scorecast-';
/** This build's shell; a new build gets a new name and the old cache is deleted on activate. */
const SHELL_CACHE = `${CACHE_PREFIX}shell-${BUILD.version}`;
/**
 * Score assets never change under their URL, so they outlive client builds: a new build must not
 * make a hall of phones download the score again. Bump the suffix only if what is stored changes.
 */
const SCORES_CACHE = `${CACHE_PREFIX}scores-v1`;
/** Oldest entries go first beyond this (a composer's edits each make new URLs). */
const SCORES_MAX_ENTRIES = 400;
/**
 * Video parts (doc/client-caching.md, "Videos"): a media element asks for byte ranges, which are
 * not kept; the first range of a video of at most VIDEO_MAX_BYTES has the whole file fetched and
 * kept beside, in a cache of its own holding the VIDEOS_MAX_ENTRIES last videos (a phone shows
 * one part; the previous version of it may still be asked for). 128 MiB is a 10-minute guide at
 * 1.5 Mbit/s; two of them stay well inside what phones' browsers give an origin. A longer video
 * plays from the network only.
 */
const VIDEOS_CACHE = `${CACHE_PREFIX}videos-v1`;
const VIDEO_MAX_BYTES = 128 * 1024 * 1024;
const VIDEOS_MAX_ENTRIES = 2;
/** Videos being fetched whole now: one download per video, whatever ranges are asked meanwhile. */
const keeping = new Set();
/**
 * How long a navigation waits for the network before the cached shell is shown. On a dead access
 * point a request can hang for tens of seconds; the page budget is 5 s.
 */
const NAVIGATION_TIMEOUT_MS = 3000;
/**
 * How long a score file's byte range waits for the network before the kept copy answers it, when
 * there is one: on a silent WiFi cut the request hangs, and a video part would stand still for as
 * long (its element asks for its next range a few seconds before it needs it).
 */
const RANGE_TIMEOUT_MS = 3000;
/** The shell: the server sends the same index.html at / and at every view. */
const SHELL_URL = '/';
/**
 * Pages the server answers with the shell (mirrors server/http/client-files.js). The console and the
 * preview are pages of their own, for operators on a working network: not cached.
 */
const PAGE_PATH = /^\/(?:view\/[^/]+)?$/;

sw.addEventListener('install', (/** @type {SwExtendableEvent} */ event) => {
  event.waitUntil(
    (async () => {
      // All or nothing: if one file fails, this worker is discarded and the browser tries again
      // at the next navigation, while the previous worker (if any) keeps serving its own build.
      const shell = await caches.open(SHELL_CACHE);
      await shell.addAll(BUILD.files);
      await warmScoreAssets();
      // One chunk and no lazy imports: a page running the previous build never asks for its old
      // files again, so the new worker can take over at once.
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (/** @type {SwExtendableEvent} */ event) => {
  event.waitUntil(
    (async () => {
      const keep = new Set([SHELL_CACHE, SCORES_CACHE, VIDEOS_CACHE]);
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith(CACHE_PREFIX) && !keep.has(n)).map((n) => caches.delete(n)));
      // Control the page that registered us, so its next reload is already served from the cache.
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('fetch', (/** @type {SwFetchEvent} */ event) => {
  const route = routeOf(event.request);
  if (route === 'page') event.respondWith(networkFirst(event));
  else if (route === 'asset') event.respondWith(cacheFirst(event, SHELL_CACHE));
  else if (route === 'score') event.respondWith(cacheFirst(event, SCORES_CACHE));
  else if (route === 'score-range') event.respondWith(rangeNetworkFirst(event));
  // Anything else: no respondWith, so the browser fetches it as if there were no worker.
});

/**
 * Which requests the worker answers; everything else is left to the network.
 * @param {Request} request
 * @returns {'page' | 'asset' | 'score' | 'score-range' | null}
 */
function routeOf(request) {
  if (request.method !== 'GET') return null;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin) return null;
  if (request.mode === 'navigate') return PAGE_PATH.test(url.pathname) ? 'page' : null;
  // Media elements ask for byte ranges; a cached whole response is not a valid answer to those,
  // but a part of it is (score files only: the shell's files are never media).
  if (request.headers.has('range')) return url.pathname.startsWith('/scores/') ? 'score-range' : null;
  if (url.pathname.startsWith('/assets/')) return 'asset';
  if (url.pathname.startsWith('/scores/')) return 'score';
  return null;
}

/**
 * @param {Response} response
 * @returns {boolean} a whole, same-origin answer worth keeping
 */
const storable = (response) => response.status === 200 && response.type === 'basic';

/**
 * Network first with a short timeout, then the cached shell. A fresh page is kept under its own
 * path for the next time the network is gone. A 5xx (a server restarting answers 503) also
 * falls back to the shell when there is one; a 404 (an unknown view) is passed on.
 * @param {SwFetchEvent} event
 * @returns {Promise<Response>}
 */
async function networkFirst(event) {
  const key = new URL(event.request.url).pathname;
  const network = fetch(event.request);
  // Registered before the race below reads the response, so the copy is taken before the page
  // consumes the body; waitUntil is called now, while the event is still dispatching.
  event.waitUntil(
    network
      .then((response) => {
        if (!storable(response) || !/^text\/html\b/.test(response.headers.get('content-type') ?? '')) return undefined;
        const copy = response.clone();
        return caches.open(SHELL_CACHE).then((cache) => cache.put(key, copy));
      })
      .catch(() => {}),
  );

  try {
    const first = await withinTime(network, NAVIGATION_TIMEOUT_MS);
    if (first !== 'timeout') return first.status >= 500 ? ((await cachedShell(key)) ?? first) : first;
    return (await cachedShell(key)) ?? (await network);
  } catch {
    return (await cachedShell(key)) ?? Response.error();
  }
}

/**
 * The network's answer, or 'timeout' when it has not come within `ms` (it may still come: the
 * caller can wait for `network` again); rejects as the network does.
 * @param {Promise<Response>} network
 * @param {number} ms
 * @returns {Promise<Response | 'timeout'>}
 */
async function withinTime(network, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Promise<'timeout'>} */
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, 'timeout');
  });
  try {
    return await Promise.race([network, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @param {string} path
 * @returns {Promise<Response | undefined>} the page kept for this path, else the shell
 */
async function cachedShell(path) {
  const cache = await caches.open(SHELL_CACHE);
  return (await cache.match(path)) ?? cache.match(SHELL_URL);
}

/**
 * Cache first, for URLs whose content never changes (hashed build files, score assets); a miss
 * is fetched and kept. `ignoreVary`: the server varies on Accept-Encoding, but the cache holds
 * the decoded body, which is the same for every encoding.
 * @param {SwFetchEvent} event
 * @param {string} cacheName
 * @returns {Promise<Response>}
 */
async function cacheFirst(event, cacheName) {
  const cache = await caches.open(cacheName);
  const hit = await cache.match(event.request, { ignoreVary: true });
  if (hit) return hit;
  const response = await fetch(event.request);
  if (storable(response)) {
    const copy = response.clone();
    event.waitUntil(
      cache
        .put(event.request, copy)
        .then(() => trimScores(cacheName))
        .catch(() => {}),
    );
  }
  return response;
}

/**
 * A media element's byte range of a score file (Safari's plays nothing without 206 answers): the
 * network's answer (the server does ranges, doc/score-format.md "Serving"), and when the network
 * fails, or has not answered within RANGE_TIMEOUT_MS, cut from the cached whole file when there
 * is one, so a phone off the network (or on a silent WiFi cut) still plays what it has. Network
 * first: Chromium's element that took its first ranges from the network fails
 * (PIPELINE_ERROR_READ, "data source error") on a later range made here, even with the network's
 * ETag and Last-Modified, and stands still for good (bench/RESULTS.md, video parts: the stall
 * after a seek in a 2-minute video, whose first range did not hold it all); after a timeout that
 * risk is taken, as the network's answer may never come. Without a kept copy the network's answer
 * is waited for. One range only, as the server: any other Range header goes to the network as it is.
 * @param {SwFetchEvent} event
 * @returns {Promise<Response>}
 */
async function rangeNetworkFirst(event) {
  const m = /^bytes=(\d*)-(\d*)$/.exec((event.request.headers.get('range') ?? '').trim());
  const url = event.request.url;
  const network = fetch(event.request);
  // Registered while the event is still dispatching: the video's whole copy is fetched and kept
  // after its first range from the network (keepVideo), even once the kept copy answered.
  event.waitUntil(
    network.then(
      (response) => keepVideo(url, response),
      () => {},
    ),
  );
  const kept = m && (m[1] !== '' || m[2] !== '') ? keptCopy(url) : Promise.resolve(undefined);
  /** @type {Response | undefined} */
  let hit;
  try {
    const first = await withinTime(network, RANGE_TIMEOUT_MS);
    if (first !== 'timeout') return first;
    hit = await kept;
    if (!m || !hit) return await network;
  } catch (failure) {
    hit = await kept;
    if (!m || !hit) throw failure;
  }
  return sliceOf(hit, m);
}

/**
 * The whole file kept for a score file's URL (score files, then videos), if any.
 * @param {string} url
 * @returns {Promise<Response | undefined>}
 */
async function keptCopy(url) {
  const hit = await (await caches.open(SCORES_CACHE)).match(url, { ignoreVary: true });
  return hit ?? (await caches.open(VIDEOS_CACHE)).match(url, { ignoreVary: true });
}

/**
 * A range cut from a kept whole file: 206 with Content-Range, 416 past its end.
 * @param {Response} hit
 * @param {RegExpExecArray} m  the Range header's `bytes=(start)-(end)`
 * @returns {Promise<Response>}
 */
async function sliceOf(hit, m) {
  // A Blob's slice is not a copy: a range of a 100 MB video costs the range, not the video.
  const body = await hit.blob();
  const size = body.size;
  // bytes=a-b, bytes=a- or bytes=-n (the last n bytes); an end past the file is cut to it.
  const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] === '' || m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || start > end) {
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } });
  }
  return new Response(body.slice(start, end + 1), {
    status: 206,
    headers: {
      'content-type': hit.headers.get('content-type') ?? 'application/octet-stream',
      'content-range': `bytes ${start}-${end}/${size}`,
      'content-length': String(end - start + 1),
      'accept-ranges': 'bytes',
    },
  });
}

/**
 * After a video's first range from the network, fetch the whole file and keep it (when within
 * VIDEO_MAX_BYTES), so that the phone plays it off the network next time. Best effort: a full
 * storage or a failed download leaves the video to the network.
 * @param {string} url
 * @param {Response} response  the network's answer to the range
 * @returns {Promise<void> | undefined}  the download, for the fetch event's waitUntil
 */
function keepVideo(url, response) {
  if (response.status !== 206 || response.type !== 'basic' || keeping.has(url)) return;
  if (!/^video\//.test(response.headers.get('content-type') ?? '')) return;
  const total = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1]);
  if (!(total > 0 && total <= VIDEO_MAX_BYTES)) return;
  keeping.add(url);
  return (async () => {
    try {
      const cache = await caches.open(VIDEOS_CACHE);
      if (await cache.match(url, { ignoreVary: true })) return;
      const whole = await fetch(url);
      const length = Number(whole.headers.get('content-length') ?? total);
      if (!storable(whole) || !(length <= VIDEO_MAX_BYTES)) return;
      await cache.put(url, whole);
      const keys = await cache.keys();
      await Promise.all(keys.slice(0, Math.max(0, keys.length - VIDEOS_MAX_ENTRIES)).map((k) => cache.delete(k)));
    } catch {
      // The network plays it.
    } finally {
      keeping.delete(url);
    }
  })();
}

/**
 * Keep the scores cache bounded; Cache.keys() lists entries oldest first.
 * @param {string} cacheName
 */
async function trimScores(cacheName) {
  if (cacheName !== SCORES_CACHE) return;
  const cache = await caches.open(cacheName);
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - SCORES_MAX_ENTRIES)).map((k) => cache.delete(k)));
}

/**
 * Put the current score's preloaded assets (what the page fetches first, see score-assets.js)
 * in the scores cache at install: the page that registered the worker loaded them before the
 * worker existed. Usually they come from the HTTP cache. Best effort: never fails the install.
 */
async function warmScoreAssets() {
  try {
    const res = await fetch('/api/score');
    if (!res.ok) return;
    const info = await res.json();
    const urls = (Array.isArray(info?.assets) ? info.assets : [])
      .filter(
        (/** @type {any} */ a) => a?.preload === true && typeof a.url === 'string' && a.url.startsWith('/scores/'),
      )
      .map((/** @type {{ url: string }} */ a) => a.url);
    const cache = await caches.open(SCORES_CACHE);
    await Promise.all(
      urls.map(async (/** @type {string} */ url) => {
        if (await cache.match(url, { ignoreVary: true })) return;
        const response = await fetch(url);
        if (storable(response)) await cache.put(url, response);
      }),
    );
    await trimScores(SCORES_CACHE);
  } catch {
    // The page fetches them again through the worker, which keeps them then.
  }
}

// A module for the type checker (its names stay out of the global scope); the build emits no export.
export {};
