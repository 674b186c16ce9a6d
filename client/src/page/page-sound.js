// The page's sound: audio cues on the Web Audio clock once the person has tapped to join, the
// phone's own sound (the granulator of an imported ZScore piece), the resume after the phone
// slept, and the output-latency compensation and tap-along that keep it on the beat.

import { createAudioCues } from '../sound/audio.js';
import { createOutputCompensation, outputReadsMayHang } from '../sound/audio-latency.js';
import { createTapAlong } from '../sound/tap-along.js';
import { createPhoneSound } from '../sound/phone-sound.js';
import { createSoundResume } from '../sound/sound-resume.js';

/**
 * @param {object} o
 * @param {Window & typeof globalThis} o.window
 * @param {Document} o.document
 * @param {(url: string) => Promise<Response>} o.fetch
 * @param {import('./page-clock.js').PageClock} o.timers
 * @param {ReturnType<typeof import('../time/clock.js').createServerClock>} o.clock  the server clock estimate
 * @param {Storage | null} o.storage
 * @param {import('../live/transports/index.js').Log} o.log
 * @param {() => void} o.onRunning  the context runs again: schedule the clips still due
 */
export function createPageSound({ window, document, fetch, timers, clock, storage, log, onRunning }) {
  const now = timers.now;
  // Firefox on desktop Linux can freeze the page when asked for its output latency while it plays
  // (audio-latency.js, outputReadsMayHang): there the device offset corrects a fixed estimate.
  const output = createOutputCompensation({
    storage,
    readOutput: !outputReadsMayHang(window.navigator.userAgent),
  });
  const audio = createAudioCues({
    createContext: () => new window.AudioContext({ latencyHint: 'interactive' }),
    fetchBytes: (url) => fetch(url).then((r) => r.arrayBuffer()),
    clock,
    now,
    log,
    // Sound leaves the speaker on the beat: the device's output delay is compensated.
    output,
  });
  const phoneSound = createPhoneSound({
    audio,
    clock,
    timers,
    log,
    contextTime: (ctx, local) => output.contextTimeFor(ctx, local, now()),
  });
  // Sound after the phone slept: resumed at once where the browser allows, else on the next tap.
  const soundButton = /** @type {HTMLButtonElement} */ (document.getElementById('sound-resume'));
  const soundResume = createSoundResume({
    getContext: () => /** @type {any} */ (audio.context),
    document,
    window,
    timers,
    log,
    onTapNeeded(needed) {
      soundButton.hidden = !needed;
    },
    // Clips still due are scheduled on the running context (those whose beat passed are not).
    onRunning,
  });
  soundButton.addEventListener('click', () => soundResume.tap());
  const tapAlong = createTapAlong({ getContext: () => audio.context, output, now, target: document, timers });
  return { output, audio, phoneSound, soundResume, tapAlong };
}
