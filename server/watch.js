// Watches a score package folder and calls back once a burst of changes has settled (editors
// write files in several steps; one reload per save is enough).

import { watch } from 'node:fs';

/** Quiet time after the last change before reloading (ms). */
const SETTLE_MS = 300;

/**
 * @param {string} dir
 * @param {() => void} onChange
 * @param {{ warn: (obj: object, msg: string) => void }} log
 */
export function watchPackage(dir, onChange, log) {
  /** @type {NodeJS.Timeout | null} */
  let timer = null;
  const watcher = watch(dir, { recursive: true }, (event, name) => {
    // Our own engraving cache and editor swap files are not the composer's edits.
    if (name && (/(^|\/)\.|~$|\.swp$/.test(name))) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { timer = null; onChange(); }, SETTLE_MS);
  });
  watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the score package failed'));
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
