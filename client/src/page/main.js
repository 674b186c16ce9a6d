// Entry point of the page: wires the connection, the server clock, the beat clock and the view.

import { Connection } from '../live/connection.js';
import { browserEnv } from '../live/browser-env.js';
import { forcedTransport, viewFromPath, DEFAULT_VIEW } from './route.js';
import { loadScore } from './score-assets.js';
import { createView } from './view.js';
import { debugWanted, linkDiagnostics } from './status-line.js';
import { createServerClock, httpTimeProbe } from '../time/clock.js';
import { createBeatClock, positionAt } from '../time/beat-clock.js';
import { createFrameScheduler } from '../time/frame-scheduler.js';
import { createJoinGate } from '../time/join-gate.js';
import { createWakeWatch } from '../time/wake-watch.js';
import { oncePerFrame } from './once-per-frame.js';
import { createAudioCues, clipsOf, stemGainsOf } from '../sound/audio.js';
import { createOutputCompensation, outputReadsMayHang } from '../sound/audio-latency.js';
import { createTapAlong } from '../sound/tap-along.js';
import { createAudienceView, createVoter } from '../audience/audience-view.js';
import { landed, msSinceBeat } from '../audience/rose-motion.js';
import { speakTile } from '../sound/speech.js';
import { createPhoneSound } from '../sound/phone-sound.js';
import { createPlayerSignals } from '../notation/player-signals.js';
import { registerServiceWorker } from './sw-register.js';
import { createAwake, keepAwakeVideo } from './awake.js';
import { createSoundResume } from '../sound/sound-resume.js';
import { createPartView } from '../notation/part-view.js';
import { createScoreView } from '../notation/score-view.js';
import '../notation/notation.css';

/** @type {import('../live/transports/index.js').Log} */
const log = (message, detail) => console.info(`[scorecast] ${message}`, detail ?? '');

/** Entries kept in the logs that browser tests read. */
const LOG_SIZE = 500;

const viewName = viewFromPath(location.pathname);
document.body.dataset.view = viewName;
// Every view but the audience's is a part or the score: the compact strip above the notation
// from the first paint, so the page does not jump when the notation arrives (layout shift).
if (viewName !== DEFAULT_VIEW) document.body.dataset.notation = 'true';
const ui = createView(document, viewName, { debug: debugWanted(location.search, safeStorage()) });
// Musicians' start signal, beat indicator and tempo (part and score views: the audience page has
// no such strip, and does no work for it on its beats).
const signals = viewName === DEFAULT_VIEW ? null : createPlayerSignals(document);
const env = browserEnv(log);
/** This page's id (not the device's): polling sends it so the server can count polling pages. */
const pageId = `p${Math.random().toString(36).slice(2, 12)}`;
const connection = new Connection({
  baseUrl: location.origin,
  env,
  transport: forcedTransport(location.search),
  view: viewName,
  clientId: pageId,
  // Audience phones roam between access points: fresh attempts while the link is silent.
  probe: true,
});
const now = () => performance.now();
/** The page's wall clock: on the server's machine (browser tests), the server's clock itself. */
const wall = () => performance.timeOrigin + performance.now();

// Clock sync: WebSocket ping/pong when that is the link, GET /api/time otherwise.
let pingId = 0;
/** @type {Map<number, (pong: any) => void>} */
const waiting = new Map();
connection.on('pong', (pong) => {
  const id = /** @type {any} */ (pong).id;
  waiting.get(id)?.(pong);
  waiting.delete(id);
});
/** @returns {Promise<import('../../../core/clock-sync.js').SyncSample | null>} */
async function probe() {
  if (connection.transport === 'ws' && connection.linkState === 'live') {
    const id = ++pingId;
    const t0 = now();
    const pong = new Promise((resolve) => {
      waiting.set(id, resolve);
      setTimeout(() => {
        waiting.delete(id);
        resolve(null);
      }, 2000);
    });
    if (connection.send({ type: 'ping', id, t0 })) {
      const answer = /** @type {any} */ (await pong);
      return answer && typeof answer.t === 'number' ? { t0, t: answer.t, t1: now() } : null;
    }
    waiting.delete(id);
  }
  return timeOverHttp();
}
const timeOverHttp = httpTimeProbe((url, init) => fetch(url, init), now);
const clock = createServerClock({ probe, now, timers: window, wall });
// No beat until the clock is good enough, again after every reconnect and every return of the
// tab; beats change on the animation frame nearest their server time.
const frames = createFrameScheduler({ requestFrame: (fn) => requestAnimationFrame(fn), now, timers: window });
const gate = createJoinGate({
  clock,
  now,
  timers: window,
  onChange(state) {
    ui.renderJoin(state);
    beatClock.update();
    if (gate.open) playClips(connection.state);
  },
});

// The beats this page showed, and when (page wall clock and its server-time estimate).
/**
 * `at`: the page's wall clock when it showed the change; `server`: its estimate of the server's
 * clock then; `due`: the server time the change was due (the beat's time), or null.
 * @type {Array<{ beat: number | null, bar: number | null, beatInBar: number | null, count: number, at: number, server: number, due: number | null, predicted: boolean }>}
 */
const shown = [];
// What this page measured, reported to the server every REPORT_EVERY_MS for the conductor's
// console (doc/protocol.md, "Client reports"): push latency and display lag, in ms.
const REPORT_EVERY_MS = 10_000;
const REPORT_SAMPLES = 16;
let lastShownBeat = -2;
const measured = { push: /** @type {number[]} */ ([]), display: /** @type {number[]} */ ([]) };
connection.on('message', (m) => {
  if ((m.type === 'delta' || m.type === 'snapshot') && clock.samples > 0) measured.push.push(clock.serverNow() - m.t);
});
setInterval(() => {
  const round = (/** @type {number[]} */ xs) => xs.slice(-REPORT_SAMPLES).map((x) => Math.round(x * 10) / 10);
  const report = { push: round(measured.push), display: round(measured.display) };
  measured.push = [];
  measured.display = [];
  if (report.push.length + report.display.length === 0 || connection.linkState !== 'live') return;
  if (connection.transport === 'ws' && connection.send({ type: 'report', ...report })) return;
  fetch('/api/report', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...report, transport: connection.transport, view: viewName, client: pageId }),
  }).catch(() => {
    /* a lost report is no loss */
  });
}, REPORT_EVERY_MS);

// The notation of this view, when the score has some for it (parts and the full score).
/** @type {import('../notation/view-base.js').NotationView | null} */
let notation = null;
/** The epoch the notation was drawn for: a new epoch may be a new score (reload). */
let notationEpoch = /** @type {string | null} */ (null);
const notationRoot = /** @type {HTMLElement} */ (document.getElementById('notation'));

/** @param {import('../time/beat-clock.js').Position} pos */
function drawCursor(pos) {
  if (!notation || pos.beat === null) return;
  notation.update(pos.beat, pos.count > 0 ? 0 : pos.fraction);
}

async function mountNotation() {
  if (viewName === DEFAULT_VIEW) return;
  const epoch = connection.epoch;
  const res = await fetch(`/api/score/views/${encodeURIComponent(viewName)}`);
  if (!res.ok) return; // a view without notation (cue text only)
  const data = await res.json();
  if (epoch !== connection.epoch) return; // another score came meanwhile: its own mount follows
  const loadPage = (/** @type {string} */ url) =>
    fetch(url).then((r) => {
      if (!r.ok) throw new Error(`${url}: ${r.status}`);
      return r.text();
    });
  notation?.destroy();
  notation = (viewName === 'score' ? createScoreView : createPartView)(notationRoot, data, { loadPage });
  notationRoot.hidden = false;
  document.body.dataset.notation = 'true';
  notation.setPages?.(connection.state?.pages?.[viewName]);
  drawCursor(positionAt(connection.state, clock.serverNow()));
  performance.mark('scorecast:notation');
}

const beatClock = createBeatClock({
  getState: () => connection.state,
  clock,
  timers: window,
  now,
  frames,
  ready: () => gate.open,
  onFrame: viewName === DEFAULT_VIEW ? null : drawCursor,
  onChange(pos, frameTime) {
    if (pos.joining) {
      ui.renderPosition(pos);
      return;
    }
    // When the page shows the change: the start of the display frame it is drawn in (a change
    // written from a timer, without a frame, is drawn at the browser's next frame).
    const at = performance.timeOrigin + frameTime;
    const server = frameTime + clock.offset;
    ui.renderPosition(pos);
    signals?.showPosition(pos);
    // Display lag of beats reached by playing on (not the first one a page sees, nor a seek's).
    if (
      pos.changeAt !== null &&
      pos.count === 0 &&
      pos.beat !== null &&
      pos.beat === lastShownBeat + 1 &&
      clock.samples > 0
    ) {
      measured.display.push(server - pos.changeAt);
    }
    lastShownBeat = pos.beat ?? -2;
    drawCursor(pos);
    shown.push({
      beat: pos.beat,
      bar: pos.bar,
      beatInBar: pos.beatInBar,
      count: pos.count,
      at,
      server,
      due: pos.changeAt,
      predicted: pos.predicted,
    });
    if (shown.length > LOG_SIZE) shown.shift();
  },
});

// Audio cues on the Web Audio clock, once the person has tapped to join.
const output = createOutputCompensation({
  storage: safeStorage(),
  readOutput: !outputReadsMayHang(navigator.userAgent),
});
const audio = createAudioCues({
  createContext: () => new AudioContext({ latencyHint: 'interactive' }),
  fetchBytes: (url) => fetch(url).then((r) => r.arrayBuffer()),
  clock,
  now,
  log,
  // Sound leaves the speaker on the beat: the device's output delay is compensated.
  output,
});
// The phone's own sound (the granulator of an imported ZScore piece), on the same clock.
const phoneSound = createPhoneSound({
  audio,
  clock,
  timers: window,
  log,
  contextTime: (ctx, local) => output.contextTimeFor(ctx, local, now()),
});
// Sound after the phone slept: resumed at once where the browser allows, else on the next tap.
const soundButton = /** @type {HTMLButtonElement} */ (document.getElementById('sound-resume'));
const soundResume = createSoundResume({
  getContext: () => /** @type {any} */ (audio.context),
  document,
  window,
  timers: window,
  log,
  onTapNeeded(needed) {
    soundButton.hidden = !needed;
  },
  // Clips still due are scheduled on the running context (those whose beat passed are not).
  onRunning: () => playClips(connection.state),
});
soundButton.addEventListener('click', () => soundResume.tap());
// The screen stays on from the join tap to the end of the piece (awake.js).
const awake = createAwake({
  secure: window.isSecureContext,
  wakeLock: /** @type {any} */ (navigator).wakeLock,
  standalone: /** @type {any} */ (navigator).standalone,
  createVideo: () =>
    keepAwakeVideo(document, {
      mp4: new URL('./media/awake.mp4', import.meta.url).href,
      webm: new URL('./media/awake.webm', import.meta.url).href,
    }),
  document,
  window,
  log,
});
// Over plain HTTP the browser keeps no offline copy (no service worker): the page says so, once.
/** @type {HTMLElement} */ (document.getElementById('no-offline')).hidden = window.isSecureContext;
const tapAlong = createTapAlong({ getContext: () => audio.context, output, now, target: document, timers: window });
/** @type {string[]} */
let audioUrls = [];

const voter = createVoter({ fetch: (url, init) => fetch(url, init), storage: safeStorage(), log });
const audience =
  viewName === DEFAULT_VIEW
    ? createAudienceView(document, {
        onVote: vote,
        onSpeak: (word, speech) => {
          speakTile(window.speechSynthesis, window.SpeechSynthesisUtterance, speech, word);
        },
      })
    : null;
if (audience) voter.prepare();

/**
 * Cast a vote with this browser's device credential (client/src/audience/audience-view.js).
 * @param {string} tile @param {string} window
 */
async function vote(tile, window) {
  audience?.voteAnswer(window, await voter.vote(tile, window));
}

let firstState = true;
/** @type {{ epoch: string | null, state: any } | null} what the audience view drew last */
let drawn = null;
function drawState() {
  const c = connection;
  ui.renderState(c);
  notation?.setPages?.(c.state?.pages?.[viewName]);
  if (c.state && c.epoch !== notationEpoch) {
    notationEpoch = c.epoch;
    mountNotation().catch((err) => log('notation unavailable', err));
  }
  if (firstState && c.state) {
    firstState = false;
    // Navigation to the first state drawn: the first-render budget (playwright/views.spec.js) reads it.
    performance.mark('scorecast:first-render');
  }
  const state = c.state;
  if (audience) {
    // A seek, a restart, a late join or a return from a roam lands on its beat: the rose is shown
    // as it is there.
    const now = { epoch: c.epoch, state };
    const where = {
      landed: landed(drawn, now),
      since: (/** @type {number} */ b) => msSinceBeat(state, b, clock.serverNow()),
    };
    drawn = now;
    audience.render(state?.cues?.audience, where);
  }
}
const drawLater = oncePerFrame((fn) => frames.next(fn), drawState);
connection.on('state', (c) => {
  // The musicians' strip knows each change as it comes (the start signal shows on the beat the
  // performance starts on, which the beat clock shows next).
  signals?.showState(c.state);
  // The beat first: a change that arrives before its timer (a late page) is shown at once.
  beatClock.update();
  playClips(c.state);
  awake.update(c.state);
  // The rest of the page on the next frame, from the state then (once-per-frame.js).
  drawLater();
});
// The musicians' click (part and score views): a toggle in the player strip, which also unlocks
// the page's audio (it is the user's gesture). Each beat is clicked as it is announced, a beat
// ahead, through the same output compensation as the clips.
const clickToggle = document.getElementById('click-toggle');
let clicking = false;
if (clickToggle && viewName !== DEFAULT_VIEW) {
  clickToggle.hidden = false;
  clickToggle.addEventListener('click', () => {
    clicking = !clicking;
    clickToggle.setAttribute('aria-pressed', String(clicking));
    if (clicking) audio.unlock().catch((err) => log('could not start audio for the click', err));
  });
}
/** The volume each stem was last given, by URL, so that a ramp is started once. */
/** @type {Map<string, string>} */
const stemGains = new Map();
/** @param {any} state */
function playClips(state) {
  // Not on a clock still being measured: a clip would sound off the beat.
  if (!gate.open) return;
  for (const clip of clipsOf(state, viewName)) audio.play(clip.url, clip.serverT, clip.gain);
  if (clicking && state?.transport === 'playing' && typeof state.next?.t === 'number') {
    audio.click(state.next.t, state.next.beatInBar === 1);
  }
  // Volume ramps of the stems playing (a cue's `stems: {<name>: {gain, glide}}`).
  for (const s of stemGainsOf(state, viewName)) {
    const key = `${s.gain}/${s.glide}`;
    if (stemGains.get(s.url) !== key && audio.setGain(s.url, s.gain, s.glide / 1000)) stemGains.set(s.url, key);
  }
  if (viewName === DEFAULT_VIEW) phoneSound.update(state);
}
let wasLive = false;
connection.on('link', (c) => {
  ui.renderLink(c);
  log(linkDiagnostics(c));
  const live = c.linkState === 'live';
  // Back after a loss (perhaps through another access point): measure the clock again at once,
  // and show beats again when it is good enough; a page that stayed visible meanwhile kept its
  // clock, and shows beats at once if the estimate still meets the bound (join-gate.js).
  if (live && !wasLive && document.visibilityState === 'visible') gate.rejoin();
  else if (!live && wasLive) gate.hold({ keepClock: document.visibilityState === 'visible' });
  wasLive = live;
});
// A tab in the background may have been frozen or throttled for minutes (a phone asleep): its
// estimate may be stale, so it joins again when shown (or restored from the back/forward cache).
// Clips scheduled but not yet sounding are stopped: a context suspended meanwhile would play them
// late; the return schedules those still due (audio.js, cancelPending).
document.addEventListener('visibilitychange', () => {
  wakeWatch.reset();
  if (document.visibilityState !== 'visible') {
    gate.hold();
    audio.cancelPending();
  } else if (connection.linkState === 'live') gate.rejoin();
});
window.addEventListener('pageshow', (event) => {
  wakeWatch.reset();
  if (event.persisted && connection.linkState === 'live') gate.rejoin();
});
// A page frozen while in front (Page Lifecycle: a phone's browser saving power) is away as well.
document.addEventListener('freeze', () => {
  gate.hold();
  audio.cancelPending();
});
document.addEventListener('resume', () => {
  wakeWatch.reset();
  if (connection.linkState === 'live') gate.rejoin();
});
// Suspended with no event to say so (wake-watch.js): everything a return does.
const wakeWatch = createWakeWatch({
  now,
  timers: window,
  onWake(awayMs) {
    if (document.visibilityState !== 'visible') return;
    log(`the page was suspended for ${Math.round(awayMs)} ms`);
    gate.hold();
    audio.cancelPending();
    connection.resumed(awayMs);
    if (connection.linkState === 'live') gate.rejoin();
    awake.refresh();
    soundResume.check();
  },
});

if (audience) {
  const join = /** @type {HTMLElement} */ (document.getElementById('join'));
  join.hidden = false;
  /** @type {HTMLElement} */ (document.getElementById('join-button')).addEventListener('click', () => {
    join.hidden = true;
    document.body.dataset.joined = 'true';
    audio
      .unlock()
      .then(() => {
        audio.preload(audioUrls);
        playClips(connection.state);
      })
      .catch((err) => log('audio unavailable', err));
    awake.start();
    awake.update(connection.state);
  });
}

// For browser tests: a read-only view of the page. `events` lets a test check that no change was
// missed or applied twice; `shown` when each beat was shown; `audio` every clip started.
Object.defineProperty(window, 'scorecast', {
  value: Object.freeze({
    get state() {
      return connection.state;
    },
    get epoch() {
      return connection.epoch;
    },
    get seq() {
      return connection.seq;
    },
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
    // Sound: what this device assumes of its output's delay, its calibration offset (ms; sounds
    // start this much earlier still), and a tap-along that measures it (client/src/sound/tap-along.js).
    get audioLatency() {
      return audio.context ? output.describe(audio.context, now()) : null;
    },
    audioOffset: (/** @type {number | undefined} */ ms) => {
      if (ms !== undefined) output.setOffset(ms);
      return output.offsetMs;
    },
    tapAlong,
    get device() {
      return voter.device;
    },
    view: viewName,
  }),
});

ui.renderLink(connection);
connection.start();
clock.start();
wakeWatch.start();
// Caches the shell and the score's files, so a phone that reloads or rejoins does not download
// them again (secure contexts only: skipped quietly over plain HTTP).
registerServiceWorker(log);

loadScore((url) => fetch(url), log).then((info) => {
  // Every asset the score marks preload is in the browser's cache: the page-load budget's end.
  performance.mark('scorecast:assets-loaded');
  if (info?.title) ui.setFallbackTitle(info.title);
  audioUrls = (info?.assets ?? [])
    .filter((a) => /\.(wav|mp3|ogg|oga|m4a|aac|flac|opus|webm)$/i.test(a.url))
    .map((a) => a.url);
  if (audio.unlocked) audio.preload(audioUrls);
});

/** localStorage, or null where the browser refuses it. */
function safeStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
