// Registers the service worker (client/src/page/sw.js, built to /sw.js) for the whole site.

/** The worker's URL; the build writes it unhashed because the URL is the worker's identity. */
export const SERVICE_WORKER_URL = '/sw.js';

/**
 * @typedef {object} RegisterEnv  what the registration needs from the page (the window by default)
 * @property {boolean} [isSecureContext]
 * @property {{ serviceWorker?: Pick<ServiceWorkerContainer, 'register'> }} navigator
 * @property {{ readyState: DocumentReadyState }} document
 * @property {(type: 'load', listener: () => void, options: { once: true }) => void} addEventListener
 */

/**
 * Register the service worker once the page has loaded, so that its install (which fetches the
 * shell and the score's preloads, mostly from the HTTP cache) never competes with the page's own
 * first load. Skipped quietly where it cannot work: no Service Worker API, or not a secure
 * context, as on plain HTTP on a venue LAN (browsers allow workers only over HTTPS or on
 * localhost). Never throws or rejects: the page works the same without a worker.
 * @param {(message: string, detail?: unknown) => void} [log]
 * @param {RegisterEnv} [env]
 * @returns {Promise<ServiceWorkerRegistration | null>} null when skipped or when registration failed
 */
export async function registerServiceWorker(
  log = () => {},
  env = /** @type {RegisterEnv} */ (/** @type {unknown} */ (globalThis)),
) {
  const container = env.navigator?.serviceWorker;
  if (!container || env.isSecureContext !== true) return null;
  try {
    if (env.document.readyState !== 'complete') {
      await new Promise((resolve) => {
        env.addEventListener('load', () => resolve(undefined), { once: true });
      });
    }
    // The browser looks for a new /sw.js (a new build) at navigations, past the HTTP cache.
    return await container.register(SERVICE_WORKER_URL, { scope: '/' });
  } catch (err) {
    log('service worker not registered', err);
    return null;
  }
}
