// The page, as one function of what it runs on: the window and document, fetch, WebSocket and
// the clock (main.js passes the browser's; a test passes fakes). It wires the connection, the
// server clock, the beat clock, the view, the notation and the sound.

import { Connection } from '../live/connection.js';
import { browserEnv } from '../live/browser-env.js';
import { forcedTransport, notationWanted, viewFromPath, DEFAULT_VIEW } from './route.js';
import { loadScore } from './score-assets.js';
import { createView } from './view.js';
import { debugWanted } from './status-line.js';
import { createServerClock } from '../time/clock.js';
import { announcedUntil, createBeatClock, positionAt } from '../time/beat-clock.js';
import { createFrameScheduler } from '../time/frame-scheduler.js';
import { createJoinGate } from '../time/join-gate.js';
import { oncePerFrame } from './once-per-frame.js';
import { clipsOf, stemGainsOf, wantedKeys } from '../sound/audio.js';
import { createAudienceView, createVoter } from '../audience/audience-view.js';
import { landed, msSinceBeat } from '../audience/rose-motion.js';
import { speakTile } from '../sound/speech.js';
import { createPlayerSignals } from '../notation/player-signals.js';
import { registerServiceWorker } from './sw-register.js';
import { createAwake, keepAwakeVideo } from './awake.js';
import { createPartView, paneWidthAhead } from '../notation/part-view.js';
import { MAX_WIDTH_PX } from '../../../core/layout-choice.js';
import { createScoreView } from '../notation/score-view.js';
import { createVideoPart } from '../notation/video-part.js';
import { createClockProbe } from './page-clock.js';
import { startReports } from './page-reports.js';
import { createPageDevice } from './page-device.js';
import { createPageSound } from './page-sound.js';
import { clickBeats, clickToggle } from './click-toggle.js';
import { watchLifecycle } from './page-lifecycle.js';
import { exposeForTests } from './test-view.js';
import { createOpenFormPage, partKeyOf } from './open-form-page.js';

/** Entries kept in the logs that browser tests read. */
const LOG_SIZE = 500;

/**
 * @typedef {object} PageDeps
 * @property {Window & typeof globalThis} window
 * @property {Document} document
 * @property {(url: string, init?: RequestInit) => Promise<Response>} fetch
 * @property {typeof WebSocket | undefined} WebSocket
 * @property {import('./page-clock.js').PageClock} clock
 * @property {import('../live/transports/index.js').Log} [log]
 */

/**
 * The sound output's delay as compensated (ms, with the device's offset), once the audio runs.
 * @param {ReturnType<typeof createPageSound>} sound
 * @param {number} now
 * @returns {number | null}
 */
function soundOutputMs(sound, now) {
  const c = sound.audio.context;
  if (c?.state !== 'running') return null;
  const l = sound.output.describe(c, now);
  return Math.max(0, Math.round(l.seconds * 1000 + l.offsetMs));
}

/**
 * Start the page: connect, measure the clock, show the beats and the cues.
 * @param {PageDeps} deps
 */
export function startPage({ window, document, fetch, WebSocket, clock: time, log = defaultLog }) {
  const { now, wall } = time;
  const mark = (/** @type {string} */ name) => window.performance?.mark?.(name);
  const storage = safeStorage(window);
  const viewName = viewFromPath(window.location.pathname);
  document.body.dataset.view = viewName;
  // Every view but the audience's is a part or the score: the compact strip above the notation
  // from the first paint, so the page does not jump when the notation arrives (layout shift).
  // Without notation (route.js) the beat stays large, as on the audience's page.
  const painted = viewName !== DEFAULT_VIEW && notationWanted(window.location.search);
  if (painted) document.body.dataset.notation = 'true';
  const ui = createView(document, viewName, { debug: debugWanted(window.location.search, storage) });
  // Musicians' start signal, beat indicator and tempo (part and score views: the audience page
  // has no such strip, and does no work for it on its beats).
  const signals = viewName === DEFAULT_VIEW ? null : createPlayerSignals(document);
  const env = { ...browserEnv(log, { window, document, fetch, WebSocket }), timers: time, now };
  /** This page's id (not the device's): polling sends it so the server can count polling pages. */
  const pageId = `p${Math.random().toString(36).slice(2, 12)}`;
  const connection = new Connection({
    baseUrl: window.location.origin,
    env,
    transport: forcedTransport(window.location.search),
    view: viewName,
    clientId: pageId,
    // Audience phones roam between access points: fresh attempts while the link is silent.
    probe: true,
  });

  /** The last clock round trip (ms), for the roster. @type {number | null} */
  let lastRtt = null;
  const probe = createClockProbe({
    connection,
    fetch,
    clock: time,
    onRoundTrip: (ms) => {
      lastRtt = ms;
    },
  });
  const clock = createServerClock({ probe, now, timers: time, wall });
  // No beat until the clock is good enough, again after every reconnect and every return of the
  // tab; beats change on the animation frame nearest their server time. A page with notation
  // runs no frame loop between beats (its cursor glides): it counts trust in frames.
  const frames = createFrameScheduler({ requestFrame: time.requestFrame, now, timers: time, trustByFrame: painted });
  const gate = createJoinGate({
    clock,
    now,
    timers: time,
    onChange(state) {
      ui.renderJoin(state);
      beatClock.update();
      if (gate.open) playClips(connection.state);
    },
  });
  // This device in the conductor's roster: its name, the console's actions, its status in every report.
  const device = createPageDevice({
    window,
    document,
    connection,
    view: viewName,
    timers: time,
    log,
    storage,
    entryUrl: import.meta.url,
  });
  /** The score's preload assets are in the browser's cache (for the roster's "ready"). */
  let assetsCached = false;
  const reports = startReports({
    connection,
    clock,
    timers: time,
    fetch,
    view: viewName,
    pageId,
    status: () =>
      deviceStatus({
        device: device.device,
        connection,
        clock,
        lastRtt,
        audio,
        awake,
        assetsCached,
        outputMs: soundOutputMs(sound, time.now()),
      }),
    onCommands: (commands) => device.obeyAll(commands),
  });
  const notation = (painted ? mountNotation : noNotation)({
    document,
    fetch,
    storage,
    connection,
    viewName,
    mark,
    log,
    video: { serverNow: () => clock.serverNow(), ready: () => gate.open, requestFrame: time.requestFrame, now },
  });
  /**
   * @param {import('../time/beat-clock.js').Position} pos
   * @returns {boolean} whether the notation wants the next frame too (a cursor that cannot glide)
   */
  const drawCursor = (pos) => notation.drawCursor(pos);

  /**
   * The beats this page showed: `at`, the page's wall clock when it showed the change; `server`,
   * its estimate of the server's clock then; `due`, the server time the change was due (the
   * beat's time), or null.
   * @type {Array<{ beat: number | null, bar: number | null, beatInBar: number | null, count: number, at: number, server: number, due: number | null, predicted: boolean }>}
   */
  const shown = [];
  let lastShownBeat = -2;
  const beatClock = createBeatClock({
    getState: () => connection.state,
    clock,
    timers: time,
    now,
    frames,
    ready: () => gate.open,
    onFrame: painted ? drawCursor : null,
    onChange(pos, frameTime) {
      ui.renderPosition(pos);
      if (pos.joining) return;
      // When the page shows the change: the start of the display frame it is drawn in (a change
      // written from a timer, without a frame, is drawn at the browser's next frame).
      const at = wall() - now() + frameTime;
      const server = frameTime + clock.offset;
      signals?.showPosition(pos);
      // Display lag of beats reached by playing on (not the first one a page sees, nor a seek's).
      if (pos.changeAt !== null && pos.count === 0 && pos.beat !== null && pos.beat === lastShownBeat + 1) {
        if (clock.samples > 0) reports.displayLag(server - pos.changeAt);
      }
      lastShownBeat = pos.beat ?? -2;
      drawCursor(pos);
      const { beat, bar, beatInBar, count, changeAt: due, predicted } = pos;
      shown.push({ beat, bar, beatInBar, count, at, server, due, predicted });
      if (shown.length > LOG_SIZE) shown.shift();
    },
  });

  const sound = createPageSound({
    window,
    document,
    fetch,
    timers: time,
    clock,
    storage,
    log,
    onRunning: () => playClips(connection.state),
  });
  const { audio, phoneSound } = sound;
  // The screen stays on from the join tap to the end of the piece (awake.js).
  const awake = createAwake({
    secure: window.isSecureContext,
    wakeLock: /** @type {any} */ (window.navigator).wakeLock,
    standalone: /** @type {any} */ (window.navigator).standalone,
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
  /** @type {string[]} */
  let audioUrls = [];

  const voter = createVoter({ fetch: (url, init) => fetch(url, init), storage, log });
  const openForm = openFormPage({ window, document, fetch, connection, voter, viewName, storage, now, log, sound });
  const audience =
    viewName === DEFAULT_VIEW
      ? createAudienceView(document, {
          // The open form's section may switch votes off (its `audience.vote`).
          onVote: async (tile, win) =>
            openForm.allows('vote', connection.state) && audience?.voteAnswer(win, await voter.vote(tile, win)),
          onSpeak: (word, speech) => speakTile(window.speechSynthesis, window.SpeechSynthesisUtterance, speech, word),
        })
      : null;
  if (audience) voter.prepare();

  const drawState = stateDrawer({ ui, connection, notation, audience, clock, mark, openForm });
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
  const click = clickToggle({ document, viewName, sound, time, log, changed: () => playClips(connection.state) });
  /** The volume each stem was last given, by URL, so that a ramp is started once. */
  /** @type {Map<string, string>} */
  const stemGains = new Map();
  /** @param {any} state */
  function playClips(state) {
    const clips = clipsOf(state, viewName);
    // What the state no longer asks for never sounds (stopping needs no measured clock).
    audio.retain(wantedKeys(clips, state, click.on));
    // Not on a clock still being measured: a clip would sound off the beat; nor on a phone whose
    // open-form section switches the audience's sound off.
    if (!gate.open || (viewName === DEFAULT_VIEW && !openForm.allows('audio', state))) return;
    for (const clip of clips) audio.play(clip.url, clip.serverT, clip.gain);
    if (click.on && clickBeats(audio, state)) click.checkOutput();
    // Volume ramps of the stems playing (a cue's `stems: {<name>: {gain, glide}}`).
    for (const s of stemGainsOf(state, viewName)) {
      const key = `${s.gain}/${s.glide}`;
      if (stemGains.get(s.url) !== key && audio.setGain(s.url, s.gain, s.glide / 1000)) stemGains.set(s.url, key);
    }
    if (viewName === DEFAULT_VIEW) phoneSound.update(state);
  }
  const wakeWatch = watchLifecycle({
    window,
    document,
    timers: time,
    connection,
    gate,
    awake,
    ui,
    log,
    ...sound,
    announcedUntil: () => clock.toLocal(announcedUntil(connection.state)), // a link lost counting in
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

  exposeForTests(window, {
    connection,
    shown,
    clock,
    gate,
    awake,
    voter,
    view: viewName,
    now,
    device,
    video: () => notation.videoStatus(),
    ...sound,
  });

  ui.renderLink(connection);
  connection.start();
  clock.start();
  wakeWatch.start();
  // Caches the shell and the score's files, so a phone that reloads or rejoins does not download
  // them again (secure contexts only: skipped quietly over plain HTTP).
  registerServiceWorker(log, window);

  loadScore((url) => fetch(url), log).then((info) => {
    // Every asset the score marks preload is in the browser's cache: the page-load budget's end.
    mark('scorecast:assets-loaded');
    assetsCached = info !== null;
    if (info?.title) ui.setFallbackTitle(info.title);
    audioUrls = (info?.assets ?? [])
      .filter((a) => /\.(wav|mp3|ogg|oga|m4a|aac|flac|opus|webm)$/i.test(a.url))
      .map((a) => a.url);
    if (audio.unlocked) audio.preload(audioUrls);
  });
  return { connection, clock, gate };
}

/**
 * The open form's parts of this page (open-form-page.js): the meter, the phones' thumbs, a part's
 * choice of the next section with its key.
 * @param {object} o
 * @param {Window} o.window
 * @param {Document} o.document
 * @param {(url: string, init?: RequestInit) => Promise<Response>} o.fetch
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {ReturnType<typeof createVoter>} o.voter
 * @param {string} o.viewName
 * @param {import('../audience/audience-view.js').StorageLike | null} o.storage
 * @param {() => number} o.now
 * @param {import('../live/transports/index.js').Log} o.log
 * @param {{ phoneSound: { note(direction: 'up' | 'down'): unknown } }} o.sound  a note button sounds there
 */
function openFormPage({ window, document, fetch, connection, voter, viewName, storage, now, log, sound }) {
  const audience = viewName === DEFAULT_VIEW;
  return createOpenFormPage(document, {
    view: viewName,
    audience,
    fetch: (url, init) => fetch(url, init),
    send: (message) => connection.send(message),
    device: () => voter.prepare().then(() => voter.device),
    partKey: audience ? null : partKeyOf(window, storage, viewName),
    now,
    onNote: (direction) => sound.phoneSound.note(direction),
    log,
  });
}

/** Figures in the device status are capped at ten minutes (core/roster.js bounds them). */
const STATUS_MS_MAX = 600_000;

/**
 * This device's status now, as the roster reads it (core/roster.js, DeviceStatus).
 * @param {object} o
 * @param {{ id: string, name: { value: string }, app: string }} o.device
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {{ samples: number, error: number }} o.clock
 * @param {number | null} o.lastRtt
 * @param {{ unlocked: boolean }} o.audio
 * @param {{ status: { method: string } }} o.awake
 * @param {boolean} o.assetsCached
 * @param {number | null} o.outputMs  the sound output's delay as compensated, null before the audio runs
 * @returns {import('../../../core/roster.js').DeviceStatus}
 */
function deviceStatus({ device, connection, clock, lastRtt, audio, awake, assetsCached, outputMs }) {
  const ms = (/** @type {number} */ x) => Math.min(STATUS_MS_MAX, Math.round(x * 10) / 10);
  const playback = /** @type {any} */ (connection.state)?.playback;
  return {
    id: device.id,
    name: device.name.value,
    link: connection.linkState,
    playback: typeof playback === 'string' ? playback : 'none',
    epoch: connection.epoch,
    seq: connection.seq,
    clockError: clock.samples > 0 && Number.isFinite(clock.error) ? ms(clock.error) : null,
    rtt: lastRtt === null ? null : ms(lastRtt),
    audio: audio.unlocked,
    outputMs: outputMs === null ? null : Math.min(STATUS_MS_MAX, outputMs),
    awake: awake.status.method,
    assets: assetsCached,
    app: device.app,
  };
}

/** @type {import('../live/transports/index.js').Log} */
const defaultLog = (message, detail) => console.info(`[scorecast] ${message}`, detail ?? '');

/**
 * localStorage, or null where the browser refuses it.
 * @param {Window} window
 */
function safeStorage(window) {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The notation of this view, when the score has some for it (parts and the full score), drawn
 * again for each new epoch (a new epoch may be a new score: reload).
 * @param {object} o
 * @param {Document} o.document
 * @param {(url: string) => Promise<Response>} o.fetch
 * @param {Storage | null} o.storage  where the layout drawn last at this width is kept
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {string} o.viewName
 * @param {(name: string) => void} o.mark
 * @param {import('../live/transports/index.js').Log} o.log
 * @param {{ serverNow: () => number, ready: () => boolean, requestFrame: (fn: (t: number) => void) => unknown, now: () => number }} o.video
 *   what a video part keeps in step with (client/src/notation/video-part.js)
 */
function mountNotation({ document, fetch, storage, connection, viewName, mark, log, video }) {
  /** @type {(import('../notation/view-base.js').NotationView & { status?: () => import('../notation/video-part.js').VideoStatus }) | null} */
  let notation = null;
  /** The epoch the notation was drawn for. */
  let notationEpoch = /** @type {string | null} */ (null);
  const root = /** @type {HTMLElement} */ (document.getElementById('notation'));
  /**
   * Show the position in the notation; whether the next frame must show it again (its cursor
   * cannot glide by itself), else the page's frame loop stops until the next change.
   * @param {import('../time/beat-clock.js').Position} pos
   * @returns {boolean}
   */
  const drawCursor = (pos) => {
    if (!notation || pos.beat === null) return false;
    // The beat announced to follow the one shown: a jump's target has its page prepared.
    const next = connection.state?.beat === pos.beat ? connection.state?.next?.beat : undefined;
    const counting = pos.count > 0;
    // The beat's start and end on the page's clock, over which the cursor glides by itself.
    const start = pos.changeAt === null ? Number.NaN : pos.changeAt - (video.serverNow() - video.now());
    const span = !counting && pos.beatMs > 0 && Number.isFinite(start) ? { from: start, to: start + pos.beatMs } : null;
    notation.update(pos.beat, counting ? 0 : pos.fraction, next ?? Number.NaN, span);
    return notation.moving ?? false;
  };
  /** @param {() => number} serverNow */
  async function mount(serverNow) {
    if (viewName === DEFAULT_VIEW) return;
    const epoch = connection.epoch;
    const url = `/api/score/views/${encodeURIComponent(viewName)}`;
    const width = document.defaultView?.innerWidth ?? 0;
    const layouts = lastLayouts(storage, viewName);
    // The layout this view drew last at this window width, asked for at once: a phone coming back
    // (a reload, a roam) asks for what it drew, whatever the width would choose. One not served
    // (still engraving, or another score now), or not fetched, falls back to the answer for the
    // pane's width.
    const hinted = layouts.find((l) => l.width === width)?.name;
    let res = hinted ? await fetch(`${url}?layout=${encodeURIComponent(hinted)}`).catch(() => null) : null;
    // A part says the width its panes are drawn across: the server answers with the layout the
    // view would choose there, so that a first visit makes one request rather than the default
    // layout's and then its own (a round trip of 100-300 ms on venue WiFi). The full score has one
    // layout.
    if (!res?.ok) {
      const pane = viewName === 'score' ? 0 : paneWidthAhead(root);
      res = await fetch(pane > 0 && pane <= MAX_WIDTH_PX ? `${url}?width=${pane}` : url);
    }
    if (!res.ok || res.status === 204) return; // a view without notation (cue text only)
    const data = await res.json();
    if (epoch !== connection.epoch) return; // another score came meanwhile: its own mount follows
    const loadPage = (/** @type {string} */ url) =>
      fetch(url).then((r) => {
        if (!r.ok) throw new Error(`${url}: ${r.status}`);
        return r.text();
      });
    notation?.destroy();
    notation = data.video
      ? createVideoPart(root, data, { getState: () => connection.state, ...video })
      : (viewName === 'score' ? createScoreView : createPartView)(root, data, {
          loadPage,
          onLayout: (name) => keepLayout(storage, viewName, document.defaultView?.innerWidth ?? 0, name),
        });
    if (data.video) document.body.dataset.video = 'true';
    root.hidden = false;
    // The part's overlays (open-form-page.js) are drawn over its notation.
    const overlays = document.getElementById('part-overlays');
    if (overlays && viewName !== 'score') root.prepend(overlays);
    document.body.dataset.notation = 'true';
    notation.setPages?.(connection.state?.pages?.[viewName]);
    drawCursor(positionAt(connection.state, serverNow()));
    mark('scorecast:notation');
  }
  return {
    drawCursor,
    /** A video part's status (for tests and the bench), or null for other views. */
    videoStatus: () => notation?.status?.() ?? null,
    /**
     * The state drawn: the pages chosen; a new epoch mounts the notation again.
     * @param {() => number} serverNow
     */
    update(serverNow) {
      notation?.setPages?.(connection.state?.pages?.[viewName]);
      if (connection.state && connection.epoch !== notationEpoch) {
        notationEpoch = connection.epoch;
        mount(serverNow).catch((err) => log('notation unavailable', err));
      }
    },
  };
}

/** The localStorage key of the layouts a part view drew last, by window width. */
const LAYOUTS_KEY = 'scorecast:layouts:';
/** Window widths remembered per view (a phone's two orientations, a tablet's, a desktop's). */
const LAYOUTS_KEPT = 4;

/**
 * The layouts a part view drew last, newest first: `{ width, name }` each (the window's
 * innerWidth then, the layout's name). Whatever storage holds that is not that reads as none.
 * @param {Storage | null} storage
 * @param {string} viewName
 * @returns {{ width: number, name: string }[]}
 */
function lastLayouts(storage, viewName) {
  try {
    const list = JSON.parse(storage?.getItem(LAYOUTS_KEY + viewName) ?? '[]');
    return Array.isArray(list)
      ? list.filter((l) => typeof l?.width === 'number' && typeof l?.name === 'string' && /^[\w-]{1,32}$/.test(l.name))
      : [];
  } catch {
    return [];
  }
}

/**
 * Remember the layout a part view drew at this window width (best effort: storage may refuse).
 * @param {Storage | null} storage
 * @param {string} viewName
 * @param {number} width
 * @param {string} name
 */
function keepLayout(storage, viewName, width, name) {
  const list = [{ width, name }, ...lastLayouts(storage, viewName).filter((l) => l.width !== width)];
  try {
    storage?.setItem(LAYOUTS_KEY + viewName, JSON.stringify(list.slice(0, LAYOUTS_KEPT)));
  } catch {
    // full or refused: the next load asks for the default layout first, as on a first visit
  }
}

/**
 * A page without notation (the audience's, or a part's asked for none): nothing to draw.
 * @param {Parameters<typeof mountNotation>[0]} _
 * @returns {ReturnType<typeof mountNotation>}
 */
function noNotation(_) {
  return { drawCursor: () => false, videoStatus: () => null, update: () => {} };
}

/**
 * What draws the state on the next frame: the cue, the link, the notation's pages, the audience's
 * tiles and rose.
 * @param {object} o
 * @param {ReturnType<typeof createView>} o.ui
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {ReturnType<typeof mountNotation>} o.notation
 * @param {ReturnType<typeof createAudienceView> | null} o.audience
 * @param {{ serverNow: () => number }} o.clock
 * @param {(name: string) => void} o.mark
 * @param {ReturnType<typeof createOpenFormPage>} o.openForm
 */
function stateDrawer({ ui, connection: c, notation, audience, clock, mark, openForm }) {
  let firstState = true;
  /** @type {{ epoch: string | null, state: any } | null} what the audience view drew last */
  let drawn = null;
  return () => {
    ui.renderState(c);
    notation.update(() => clock.serverNow());
    if (firstState && c.state) {
      firstState = false;
      // Navigation to the first state drawn: the first-render budget (playwright/views.spec.js) reads it.
      mark('scorecast:first-render');
    }
    const state = c.state;
    openForm.render(state);
    if (audience) {
      // A seek, a restart, a late join or a return from a roam lands on its beat: the rose is
      // shown as it is there.
      const now = { epoch: c.epoch, state };
      const where = {
        landed: landed(drawn, now),
        since: (/** @type {number} */ b) => msSinceBeat(state, b, clock.serverNow()),
      };
      drawn = now;
      audience.render(state?.cues?.audience, where);
    }
  };
}
