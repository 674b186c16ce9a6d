// Watches a score package folder and calls back once a burst of changes has settled (editors
// write files in several steps; one reload per save is enough). One reload at a time: a large
// package takes seconds to load (doc/score-format.md, "Limits"), and saves made meanwhile are
// answered by one more reload when it ends, so loads never pile up or finish out of order.

import { watch } from 'node:fs';

/** Quiet time after the last change before reloading (ms). */
const SETTLE_MS = 300;

/**
 * @param {string} dir
 * @param {() => unknown} onChange  may return a promise: no other call starts before it settles
 * @param {{ warn: (obj: object, msg: string) => void }} log
 * @param {{ settleMs?: number }} [options]
 */
export function watchPackage(dir, onChange, log, { settleMs = SETTLE_MS } = {}) {
  /** @type {NodeJS.Timeout | null} */
  let timer = null;
  let running = false;
  let again = false;
  let closed = false;

  async function fire() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await Promise.resolve()
          .then(onChange)
          .catch(() => {});
      } while (again && !closed);
    } finally {
      running = false;
    }
  }

  const watcher = watch(dir, { recursive: true }, (_event, name) => {
    // Our own engraving cache and editor swap files are not the composer's edits.
    if (name && /(^|\/)\.|~$|\.swp$/.test(name)) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      fire();
    }, settleMs);
  });
  watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the score package failed'));
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
