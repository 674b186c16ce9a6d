// The page away and back: a tab in the background may have been frozen or throttled for minutes
// (a phone asleep), so its clock estimate may be stale; it joins again when shown (or restored
// from the back/forward cache). Clips scheduled but not yet sounding are stopped: a context
// suspended meanwhile would play them late; the return schedules those still due (audio.js,
// cancelPending). The link lost and found again does the same.

import { createWakeWatch } from '../time/wake-watch.js';
import { linkDiagnostics } from './status-line.js';

/**
 * @param {object} o
 * @param {Window & typeof globalThis} o.window
 * @param {Document} o.document
 * @param {import('./page-clock.js').PageClock} o.timers
 * @param {() => number} [o.announcedUntil]  page time until which the held state says what to show
 *   (a count-in under way): a link lost with the tab visible leaves beats on until then
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {{ hold: (options?: { keepClock?: boolean, until?: number }) => void, rejoin: () => void }} o.gate
 * @param {{ cancelPending: () => void }} o.audio
 * @param {{ refresh: () => void }} o.awake
 * @param {{ check: () => void }} o.soundResume
 * @param {{ renderLink: (c: import('../live/connection.js').Connection) => void }} o.ui
 * @param {import('../live/transports/index.js').Log} o.log
 */
export function watchLifecycle({
  window,
  document,
  timers,
  connection,
  gate,
  audio,
  awake,
  soundResume,
  ui,
  log,
  announcedUntil = () => -Infinity,
}) {
  const live = () => connection.linkState === 'live';
  let wasLive = false;
  connection.on('link', (c) => {
    ui.renderLink(c);
    log(linkDiagnostics(c));
    const isLive = c.linkState === 'live';
    // Back after a loss (perhaps through another access point): measure the clock again at once,
    // and show beats again when it is good enough; a page that stayed visible meanwhile kept its
    // clock, and shows beats at once if the estimate still meets the bound (join-gate.js). Lost
    // with the tab visible, what the held state announced (a count-in) goes on being shown.
    if (isLive && !wasLive && document.visibilityState === 'visible') gate.rejoin();
    else if (!isLive && wasLive) {
      const visible = document.visibilityState === 'visible';
      gate.hold({ keepClock: visible, until: visible ? announcedUntil() : -Infinity });
    }
    wasLive = isLive;
  });
  // Suspended with no event to say so (wake-watch.js): everything a return does.
  const wakeWatch = createWakeWatch({
    now: timers.now,
    timers,
    onWake(awayMs) {
      if (document.visibilityState !== 'visible') return;
      log(`the page was suspended for ${Math.round(awayMs)} ms`);
      gate.hold();
      audio.cancelPending();
      connection.resumed(awayMs);
      if (live()) gate.rejoin();
      awake.refresh();
      soundResume.check();
    },
  });
  document.addEventListener('visibilitychange', () => {
    wakeWatch.reset();
    if (document.visibilityState !== 'visible') {
      gate.hold();
      audio.cancelPending();
    } else if (live()) gate.rejoin();
  });
  window.addEventListener('pageshow', (event) => {
    wakeWatch.reset();
    if (event.persisted && live()) gate.rejoin();
  });
  // A page frozen while in front (Page Lifecycle: a phone's browser saving power) is away as well.
  document.addEventListener('freeze', () => {
    gate.hold();
    audio.cancelPending();
  });
  document.addEventListener('resume', () => {
    wakeWatch.reset();
    if (live()) gate.rejoin();
  });
  return wakeWatch;
}
