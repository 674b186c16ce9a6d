// Sound back after the phone slept. A locked phone, a hidden tab or a frozen page may leave the
// AudioContext "suspended" (Chromium, Firefox) or "interrupted" (iOS after a lock, a call or a tab
// switch); some iOS versions refuse to resume it without a new gesture (playcanvas/engine and
// pixijs/sound report contexts that never came back by themselves). So on every return the page
// asks at once (ctx.resume()), and if the context is not running within RESUME_WAIT_MS it shows a
// "Tap to resume sound" button; that tap, or any tap on the page, resumes it from a gesture. The
// button goes away as soon as sound runs.

/** How long a resume() asked for on return may take before the page asks for a tap (ms). */
export const RESUME_WAIT_MS = 600;

/**
 * @typedef {object} ResumableContext  the part of an AudioContext used here
 * @property {string} state  'running', 'suspended', 'interrupted' (iOS) or 'closed'
 * @property {() => Promise<void>} resume
 * @property {(type: 'statechange', listener: () => void) => void} [addEventListener]
 */

/**
 * @typedef {object} ListenerTarget
 * @property {(type: string, listener: (event?: any) => void, options?: any) => void} addEventListener
 * @property {(type: string, listener: (event?: any) => void, options?: any) => void} removeEventListener
 */

/**
 * @param {object} o
 * @param {() => ResumableContext | null} o.getContext  the page's context, once the join tap made it
 * @param {ListenerTarget & { readonly visibilityState: string }} o.document  visibilitychange, resume, taps
 * @param {ListenerTarget} o.window  pageshow
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @param {(needed: boolean) => void} o.onTapNeeded  show or hide the "Tap to resume sound" button
 * @param {() => void} [o.onRunning]  the context runs again: schedule what is still due
 * @param {(message: string, detail?: unknown) => void} [o.log]
 */
export function createSoundResume({ getContext, document: doc, window: win, timers, onTapNeeded, onRunning, log }) {
  let needed = false;
  /** @type {any} */
  let wait = null;
  /** Contexts whose statechange we listen to. @type {WeakSet<ResumableContext>} */
  const watched = new WeakSet();

  /** @param {boolean} next */
  function setNeeded(next) {
    if (needed === next) return;
    needed = next;
    onTapNeeded(next);
  }

  function clearWait() {
    if (wait !== null) timers.clearTimeout(wait);
    wait = null;
  }

  /** @param {ResumableContext} ctx */
  function watch(ctx) {
    if (watched.has(ctx) || !ctx.addEventListener) return;
    watched.add(ctx);
    ctx.addEventListener('statechange', () => {
      if (ctx.state === 'running') running();
      // Interrupted while in front (a call, another app's sound): ask again, then for a tap.
      else if (ctx.state !== 'closed' && doc.visibilityState === 'visible') check();
    });
  }

  function running() {
    clearWait();
    const was = needed;
    setNeeded(false);
    if (was) log?.('sound resumed');
    onRunning?.();
  }

  /** The page is back (or the context stopped while in front): resume now, or ask for a tap. */
  function check() {
    const ctx = getContext();
    if (!ctx || ctx.state === 'closed') return;
    watch(ctx);
    if (ctx.state === 'running') {
      running();
      return;
    }
    ctx.resume().then(
      () => {
        if (ctx.state === 'running') running();
      },
      (/** @type {unknown} */ err) => log?.('the browser did not resume sound by itself', err),
    );
    if (wait === null) {
      wait = timers.setTimeout(() => {
        wait = null;
        if (ctx.state !== 'running' && doc.visibilityState === 'visible') setNeeded(true);
      }, RESUME_WAIT_MS);
    }
  }

  /** A tap (a user gesture): resume from it. */
  function tap() {
    const ctx = getContext();
    if (!ctx || ctx.state === 'running' || ctx.state === 'closed') return;
    watch(ctx);
    ctx.resume().then(
      () => {
        if (ctx.state === 'running') running();
      },
      (/** @type {unknown} */ err) => log?.('sound could not be resumed', err),
    );
  }

  const onVisibility = () => {
    if (doc.visibilityState === 'visible') check();
  };
  // Any tap on the page while sound is stopped is a gesture to resume it with, not only the button's.
  const onTap = () => {
    if (needed) tap();
  };
  doc.addEventListener('visibilitychange', onVisibility);
  doc.addEventListener('resume', check);
  win.addEventListener('pageshow', check);
  doc.addEventListener('click', onTap, { capture: true });

  return {
    /** Whether the page asks for a tap to resume sound. */
    get needed() {
      return needed;
    },
    check,
    tap,
    stop() {
      clearWait();
      doc.removeEventListener('visibilitychange', onVisibility);
      doc.removeEventListener('resume', check);
      win.removeEventListener('pageshow', check);
      doc.removeEventListener('click', onTap, { capture: true });
    },
  };
}
