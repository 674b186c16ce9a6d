// The composer preview (`/preview`): the audience view in a phone-sized frame, every
// part and the full score side by side, playback controls and a scrubber over the whole piece.
// The server watches the package; on a new version every frame resyncs and redraws by itself
// (a new epoch), and this page refreshes its own picture of the score. A version that fails
// validation is refused by the server and the last good one keeps playing: its problems are
// shown here until a saved fix clears them.

import { Connection } from '../live/connection.js';
import { browserEnv, sessionStore } from '../live/browser-env.js';
import { exposeForTests } from '../live/test-view.js';
import { createServerClock, httpTimeProbe } from '../time/clock.js';
import { createBeatClock } from '../time/beat-clock.js';
import { ControlError } from '../console/control-api.js';
import { controlErrorMessage, signIn, signOut } from '../console/sign-in.js';
import { createPlaybackControls } from '../console/playback-controls.js';
import { createPositionReadout } from '../console/position-readout.js';
import { button, h, setText } from '../console/dom.js';
import { createTimeline } from '../console/timeline.js';
import { createFrames } from './frames.js';
import { createBarLineMode } from './bar-lines.js';

/** @type {import('../live/transports/index.js').Log} */
const log = (message, detail) => console.info(`[scorecast preview] ${message}`, detail ?? '');

/** How often the server is asked whether the last reload was refused. */
const STATUS_EVERY_MS = 1000;
/** States kept for browser tests (epoch, seq, playback, position). */
const HISTORY_SIZE = 300;
/** The sizes, in CSS pixels, the views are drawn at: a phone, and tablets on music stands. */
const PHONE = { width: 390, height: 844 };
const PART = { width: 1024, height: 600 };
const SCORE = { width: 1024, height: 768 };

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
const storage = sessionStore();

signIn(root, { title: 'Composer preview', storage }).then(preview);

/** @param {import('../console/control-api.js').ControlApi} api */
function preview(api) {
  const el = {
    title: h('h1', { id: 'score-title' }, 'Preview'),
    dir: h('p', { id: 'package', class: 'muted' }),
    link: h('span', { id: 'link', 'data-state': 'connecting' }, 'connecting'),
    problems: h('section', { id: 'problems', class: 'problems', 'aria-labelledby': 'problems-title', hidden: true }),
    warnings: h('details', { id: 'warnings', class: 'warnings', hidden: true }),
    timeline: h('div', { id: 'timeline' }),
    phone: h('div', { id: 'phone', class: 'pv-phone' }),
    views: h('div', { id: 'views', class: 'pv-views' }),
    beatmap: h('section', { id: 'beatmap', class: 'pv-beatmap', 'aria-label': 'Beat map', hidden: true }),
  };
  const pos = createPositionReadout();
  const playback = createPlaybackControls({ api, signOut: () => signOut(storage) });
  const { act } = playback;

  root.replaceChildren(
    h(
      'header',
      { class: 'pv-head' },
      h('div', { class: 'pv-titles' }, el.title, el.dir),
      h('p', { class: 'status', role: 'status' }, el.link),
      button('sign-out', 'Sign out', () => signOut(storage)),
    ),
    el.problems,
    h(
      'section',
      { class: 'pv-playback', 'aria-label': 'Playback' },
      playback.buttons,
      playback.tempoForm,
      h(
        'p',
        { class: 'pv-pos' },
        h('span', { class: 'label' }, 'Bar '),
        pos.bar,
        h('span', { class: 'label' }, ' Beat '),
        pos.beat,
        ' ',
        pos.count,
        ' ',
        pos.playback,
        ' · ',
        pos.tempo,
      ),
      playback.result,
    ),
    h(
      'section',
      { class: 'pv-timeline', 'aria-label': 'Timeline' },
      el.timeline,
      h(
        'p',
        { class: 'muted hint' },
        'Click or drag to seek to a barline (Shift: to the beat). Arrow keys: a bar (Shift: a beat).',
      ),
    ),
    el.beatmap,
    h(
      'div',
      { class: 'pv-stage' },
      h(
        'section',
        { 'aria-label': 'Audience view' },
        el.phone,
        h('p', { class: 'muted hint' }, "Tap Join in the phone to hear the piece's sound."),
      ),
      h('section', { 'aria-label': 'Parts and full score' }, el.views),
    ),
    el.warnings,
  );

  const barLines = createBarLineMode(el.beatmap, { api });
  const phone = createFrames(el.phone);
  phone.set([{ id: 'audience', url: '/', label: 'Audience', ...PHONE }]);
  const views = createFrames(el.views);
  // api.seek sends seeks one after another: two arrow presses reach the server in order.
  const timeline = createTimeline(el.timeline, {
    onSeek: (beat) => act(`Seek to ${timeline.describe(beat).toLowerCase()}`, () => api.seek({ beat })),
  });

  // The performance, live, over the same stream as the views.
  const connection = new Connection({ baseUrl: location.origin, env: browserEnv(log), view: 'preview' });
  const now = () => performance.now();
  const clock = createServerClock({
    now,
    timers: window,
    wall: () => performance.timeOrigin + performance.now(),
    probe: httpTimeProbe(fetch, now),
  });
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const beats = createBeatClock({
    getState: () => connection.state,
    clock,
    timers: window,
    now,
    requestFrame: (fn) => requestAnimationFrame(fn),
    // The playhead glides, unless motion is to be kept down: then it steps with the beat.
    onFrame: (at) => {
      if (at.beat !== null && !reduceMotion.matches) timeline.show(at.beat, at.count > 0 ? 0 : at.fraction);
    },
    onChange(at) {
      pos.showPosition(at);
      if (at.beat !== null) timeline.show(at.beat, 0);
    },
  });

  /** @type {Array<{ epoch: string, seq: number, playback: string, beat: number, bar: number, at: number }>} */
  const history = [];
  let epoch = /** @type {string | null} */ (null);
  connection.on('state', (c) => {
    const s = /** @type {any} */ (c.state);
    beats.update();
    if (!s) return;
    history.push({
      epoch: String(c.epoch),
      seq: c.seq,
      playback: s.playback,
      beat: s.beat,
      bar: s.bar,
      at: Date.now(),
    });
    if (history.length > HISTORY_SIZE) history.shift();
    pos.showState(s);
    playback.showRate(s.rate);
    timeline.setSection(s.section);
    if (c.epoch !== epoch) {
      // A new version of the score (or a restarted server): its bars, cues and parts may differ.
      epoch = c.epoch;
      refreshScore(String(epoch)).catch((err) => log('score unavailable', err));
      checkStatus();
    }
  });
  connection.on('link', (c) => {
    setText(el.link, `${c.linkState} via ${c.transport}`);
    el.link.dataset.state = c.linkState;
  });
  connection.start();
  clock.start();

  /** @param {string} forEpoch */
  async function refreshScore(forEpoch) {
    const [score, t] = await Promise.all(
      ['/api/score', '/api/score/timeline'].map(async (url) => {
        const res = await fetch(url, { cache: 'no-store' });
        if (!res.ok) throw new Error(`${url}: ${res.status}`);
        return res.json();
      }),
    );
    if (forEpoch !== epoch) return; // a newer version came meanwhile: its own refresh follows
    setText(el.title, String(score.title ?? 'Preview'));
    document.title = `Preview · ${score.title ?? 'scorecast'}`;
    timeline.set(t);
    barLines.refresh(score.assets);
    /** @type {{ id: string, name?: string }[]} */
    const parts = Array.isArray(score.parts) ? score.parts : [];
    views.set([
      ...parts.map((p) => ({ id: p.id, url: `/view/${encodeURIComponent(p.id)}`, label: p.name || p.id, ...PART })),
      { id: 'score', url: '/view/score', label: 'Full score', ...SCORE },
    ]);
  }

  // Whether the last reload was refused, and why: asked every second (a refused version makes
  // no new epoch), and at once on a new one.
  let statusKey = '';
  /** @type {ReturnType<typeof setTimeout> | null} */
  let statusTimer = null;
  async function checkStatus() {
    if (statusTimer !== null) clearTimeout(statusTimer);
    statusTimer = null;
    try {
      const status = await api.status();
      setText(el.dir, `Watching ${status.dir}`);
      showProblems(status.reload?.problems ?? [], status.reload?.at ?? null, null);
      showWarnings(status.warnings ?? []);
    } catch (err) {
      if (err instanceof ControlError && err.status === 401) {
        signOut(storage);
        return;
      }
      showProblems([], null, controlErrorMessage(err));
    }
    statusTimer = setTimeout(checkStatus, STATUS_EVERY_MS);
  }
  checkStatus();

  /**
   * @param {string[]} problems  of the last refused version; none once a version loads
   * @param {number | null} at   server time of that reload
   * @param {string | null} unreachable  why the server could not be asked
   */
  function showProblems(problems, at, unreachable) {
    const key = JSON.stringify([problems, at, unreachable]);
    if (key === statusKey) return;
    statusKey = key;
    const box = el.problems;
    box.hidden = problems.length === 0 && unreachable === null;
    if (box.hidden) {
      box.replaceChildren();
      return;
    }
    // role=alert on the live part only: it is read out when it appears or changes.
    const list = h('ul', { id: 'problem-list' }, ...problems.map((p) => h('li', {}, p)));
    box.replaceChildren(
      unreachable !== null
        ? h(
            'div',
            { role: 'alert' },
            h('h2', { id: 'problems-title' }, 'The server does not answer'),
            h('p', {}, unreachable),
          )
        : h(
            'div',
            { role: 'alert' },
            h(
              'h2',
              { id: 'problems-title' },
              `The saved package has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}`,
            ),
            h(
              'p',
              {},
              `The last good version keeps playing${at === null ? '' : ` (refused at ${new Date(at).toLocaleTimeString()})`}. Save a fix and it reloads.`,
            ),
            list,
          ),
    );
  }

  /** @param {string[]} warnings */
  function showWarnings(warnings) {
    const key = JSON.stringify(warnings);
    if (el.warnings.dataset.key === key) return;
    el.warnings.dataset.key = key;
    el.warnings.hidden = warnings.length === 0;
    el.warnings.replaceChildren(
      h('summary', {}, `${warnings.length} warning${warnings.length === 1 ? '' : 's'}`),
      h('ul', {}, ...warnings.map((w) => h('li', {}, w))),
    );
  }

  // For browser tests, as on the other pages: `history` holds the states this page was sent.
  exposeForTests(window, connection, {
    get history() {
      return history.slice();
    },
  });
}
