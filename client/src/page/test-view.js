// For browser tests: a read-only view of the audience page at window.scorecast (../live/test-view.js).
// `events` lets a test check that no change was missed or applied twice; `shown` when each beat was
// shown; `audio` every clip started.

import { exposeForTests as exposeLive } from '../live/test-view.js';

/**
 * @param {Window} window
 * @param {object} page
 * @param {import('../live/connection.js').Connection} page.connection
 * @param {unknown[]} page.shown
 * @param {{ offset: number, error: number, samples: number, fresh: number, rate: number }} page.clock
 * @param {{ state: unknown }} page.gate
 * @param {{ status: unknown }} page.awake
 * @param {{ device: unknown }} page.voter
 * @param {string} page.view
 * @param {() => number} page.now
 * @param {any} page.audio
 * @param {{ history: unknown, grains: unknown, notes: unknown }} page.phoneSound
 * @param {{ needed: boolean }} page.soundResume
 * @param {{ describe: (ctx: any, now: number) => unknown, setOffset: (ms: number) => void, offsetMs: number,
 *   readingsSince: (since?: number) => unknown[] }} page.output
 * @param {unknown} page.tapAlong
 * @param {{ roster: unknown }} page.device  this device as the roster knows it
 * @param {() => unknown} page.video  a video part's status (client/src/notation/video-part.js), or null
 */
export function exposeForTests(window, page) {
  const { connection, shown, clock, gate, awake, voter, now, audio, phoneSound, soundResume, output } = page;
  exposeLive(window, connection, {
    get transport() {
      return connection.transport;
    },
    get linkState() {
      return connection.linkState;
    },
    get events() {
      return connection.events;
    },
    get shown() {
      return shown.slice();
    },
    // A video part: its time, the score's time as the video's, whether it plays, its rate and seeks.
    get video() {
      return page.video();
    },
    get clock() {
      return {
        offset: clock.offset,
        error: clock.error,
        samples: clock.samples,
        fresh: clock.fresh,
        rate: clock.rate,
      };
    },
    get join() {
      return gate.state;
    },
    get audio() {
      return audio.history;
    },
    // How the screen is kept on (awake.js): method 'wake-lock', 'video' or 'none', and whether held now.
    get awake() {
      return awake.status;
    },
    // The AudioContext's state, and whether the page asks for a tap to resume sound (sound-resume.js).
    get sound() {
      return { state: audio.context?.state ?? null, tapNeeded: soundResume.needed };
    },
    // Granulator starts (beat, server time, context time) and grains started (phone-sound.js).
    get granulator() {
      return { starts: phoneSound.history, grains: phoneSound.grains };
    },
    // The note buttons' notes sounded (phone-sound.js): direction, step, engine, context time.
    get notes() {
      return phoneSound.notes;
    },
    // Sound: what this device assumes of its output's delay, its calibration offset (ms; sounds
    // start this much earlier still), and a tap-along that measures it (client/src/sound/tap-along.js).
    get audioLatency() {
      return audio.context ? output.describe(audio.context, now()) : null;
    },
    // The output mapping's raw readings after page time `since` (audio-latency.js, for the audio lab).
    outputReadings: (/** @type {number | undefined} */ since) => output.readingsSince(since),
    audioOffset: (/** @type {number | undefined} */ ms) => {
      if (ms !== undefined) output.setOffset(ms);
      return output.offsetMs;
    },
    tapAlong: page.tapAlong,
    get device() {
      return voter.device;
    },
    view: page.view,
    // This device as the roster knows it: id, name, and how many times the console asked for attention.
    get roster() {
      return page.device.roster;
    },
  });
}
