// The conductor's console (`/conduct`): without the token only a sign-in form; signed in, the
// playback, seek and tempo controls, the vote tallies, and the audience as the server and the
// phones themselves see it. It follows the performance over the same live stream as the views,
// so several consoles stay in step.

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
import { renderAudience, renderCluster, renderScores, renderVotes } from './panels.js';
import { renderNextChoice, renderPageChoices } from './pages-panel.js';
import { renderPresets } from './presets-panel.js';
import { createMarksRow } from './marks-row.js';
import { createLoopRow } from './loop-row.js';
import { createTimelinePanel } from './timeline-panel.js';
import { createRosterPanel } from './roster-panel.js';
import { renderSections } from './sections-panel.js';
import { partLinksPanel } from './part-links-panel.js';

/** @type {import('../live/transports/index.js').Log} */
const log = (message, detail) => console.info(`[scorecast console] ${message}`, detail ?? '');

/** How often the tallies and the audience panel are refreshed. */
const PANEL_EVERY_MS = 1000;
/** How often the roster is refreshed: a device's change shows within a second. */
const ROSTER_EVERY_MS = 500;

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const storage = sessionStore();

signIn(app, { title: 'Conductor', storage }).then(consoleFor);

/** @param {import('../console/control-api.js').ControlApi} api */
function consoleFor(api) {
  // Shown only on a cluster node (with --redis): a single server answers /api/cluster with 404.
  let isCluster = true;
  const el = {
    title: h('h1', { id: 'score-title' }, 'scorecast'),
    link: h('span', { id: 'link', 'data-state': 'connecting' }, 'connecting'),
    votes: h('div', { id: 'votes' }),
    pages: h('div', { id: 'page-choices' }),
    presets: h('div', { id: 'presets' }),
    sections: h('div', { id: 'sections', 'data-testid': 'sections' }),
    scores: h('div', { id: 'scores' }),
    audience: h('div', { id: 'audience' }),
    cluster: h('div', { id: 'cluster' }),
  };
  const clusterPanel = h(
    'section',
    { class: 'panel wide', 'aria-label': 'Cluster', hidden: '' },
    h('h2', {}, 'Cluster'),
    el.cluster,
  );
  const pos = createPositionReadout();
  const playback = createPlaybackControls({ api, signOut: () => signOut(storage) });
  const { act } = playback;
  const roster = createRosterPanel({
    device: (device, action) =>
      act(`${action[0].toUpperCase()}${action.slice(1)} ${device === 'all' ? 'every device' : device}`, () =>
        api.deviceAction(device, /** @type {'resync' | 'reload' | 'attention'} */ (action)),
      ),
    playWhenReady: (timeoutMs) => act('Play when ready', () => api.play({ whenReady: true, timeoutMs })),
    cancelWait: () => act('Cancel the wait', () => api.pause()),
  });
  const seekBar = /** @type {HTMLInputElement} */ (
    h('input', { id: 'seek-bar', type: 'number', min: '0', step: '1', inputmode: 'numeric', 'aria-label': 'Bar' })
  );
  const seekBeat = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'seek-beat',
      type: 'number',
      min: '1',
      step: '1',
      inputmode: 'numeric',
      placeholder: '1',
      'aria-label': 'Beat in the bar',
    })
  );
  const seekForm = h(
    'form',
    { id: 'seek', class: 'row' },
    h('span', { class: 'label' }, 'Seek to bar'),
    seekBar,
    h('span', { class: 'label' }, 'beat'),
    seekBeat,
    h('button', { type: 'submit' }, 'Go'),
  );
  seekForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const bar = Number(seekBar.value);
    const beat = seekBeat.value === '' ? undefined : Number(seekBeat.value);
    act(`Seek to bar ${bar}${beat ? ` beat ${beat}` : ''}`, () =>
      api.seek(beat === undefined ? { bar } : { bar, beat }),
    );
  });

  const marks = createMarksRow({ go: (mark) => act(`Go to mark ${mark}`, () => api.seek({ mark })) });
  /** @param {{ bar: number } | { mark: string }} end */
  const endName = (end) => ('mark' in end ? end.mark : `bar ${end.bar}`);
  const loopRow = createLoopRow({
    set: (l) => act(`Loop ${endName(l.from)} to ${endName(l.to)}`, () => api.loop(l)),
    off: () => act('Loop off', () => api.loop({ off: true })),
  });
  // api.seek sends seeks one after another: two arrow presses reach the server in order.
  const timeline = createTimelinePanel({ seek: (target, words) => act(`Go to ${words}`, () => api.seek(target)) });
  const loadMarks = scoreLoader({ marks, loopRow, timeline });

  // ZScore's composer chose the next tile by hand: the next page choice plays the page of the
  // tile tapped here, whatever the votes.
  const nextTiles = h('div', { id: 'next-choice' });
  app.replaceChildren(
    h(
      'header',
      { class: 'console-head' },
      el.title,
      h('p', { class: 'status', role: 'status' }, el.link),
      button('sign-out', 'Sign out', () => signOut(storage)),
    ),
    h(
      'section',
      { class: 'panel pos', 'aria-label': 'Position' },
      h(
        'p',
        {},
        h('span', { class: 'label' }, 'Bar '),
        pos.bar,
        h('span', { class: 'label' }, ' Beat '),
        pos.beat,
        ' ',
        pos.count,
      ),
      h('p', {}, pos.playback, ' · ', pos.tempo),
    ),
    h('section', { class: 'panel wide', 'aria-label': 'Timeline' }, h('h2', {}, 'Timeline'), timeline.box),
    h(
      'section',
      { class: 'panel controls', 'aria-label': 'Playback' },
      playback.buttons,
      seekForm,
      marks.box,
      loopRow.box,
      playback.tempoForm,
      playback.result,
    ),
    h('section', { class: 'panel', 'aria-label': 'Votes' }, h('h2', {}, 'Votes'), el.votes),
    h(
      'section',
      { class: 'panel', 'aria-label': 'Pages chosen', hidden: '' },
      h('h2', {}, 'Pages chosen'),
      el.pages,
      nextTiles,
    ),
    h('section', { class: 'panel', 'aria-label': 'Sections', hidden: '' }, h('h2', {}, 'Sections'), el.sections),
    h('section', { class: 'panel', 'aria-label': 'Presets', hidden: '' }, h('h2', {}, 'Presets'), el.presets),
    h('section', { class: 'panel', 'aria-label': 'Scores' }, h('h2', {}, 'Scores'), el.scores),
    h('section', { class: 'panel wide', 'aria-label': 'Roster' }, h('h2', {}, 'Roster'), roster.box),
    h('section', { class: 'panel wide', 'aria-label': 'Audience' }, h('h2', {}, 'Audience'), el.audience),
    clusterPanel,
  );

  // The performance, live, as every view gets it.
  const connection = new Connection({ baseUrl: location.origin, env: browserEnv(log), view: 'conduct' });
  app.append(partLinksPanel(api, (f) => connection.on('state', f), log));
  const now = () => performance.now();
  const clock = createServerClock({
    now,
    timers: window,
    wall: () => performance.timeOrigin + performance.now(),
    probe: httpTimeProbe(fetch, now),
  });
  const beats = createBeatClock({
    getState: () => connection.state,
    clock,
    timers: window,
    now,
    onChange: (p) => {
      pos.showPosition(p);
      if (p.beat !== null) timeline.show(p.beat, 0);
    },
  });
  connection.on('state', (c) => {
    const s = /** @type {any} */ (c.state);
    beats.update();
    setText(el.title, typeof s?.score?.title === 'string' ? s.score.title : 'scorecast');
    document.title = `Conductor · ${s?.score?.title ?? 'scorecast'}`;
    pos.showState(s);
    playback.showRate(s?.rate);
    if (typeof s?.score?.id === 'string') loadMarks(`${s.score.id}@${c.epoch}`);
    marks.showState(s);
    loopRow.showState(s);
    timeline.showState(s);
    renderSections(el.sections, s?.section, (id, round, name) =>
      act(`Next section: ${name}`, () => api.chooseSection(id, round)),
    );
    renderPageChoices(
      el.pages,
      s?.pages,
      (s?.score?.views ?? []).filter((/** @type {string} */ v) => v !== 'audience' && v !== 'score'),
    );
  });
  connection.on('link', (c) => {
    setText(el.link, `${c.linkState} via ${c.transport}`);
    el.link.dataset.state = c.linkState;
  });
  connection.start();
  clock.start();

  const refresh = async () => {
    try {
      const [votes, audience] = await Promise.all([api.votes(), api.clients()]);
      renderVotes(el.votes, votes, {
        open: (id) => act(`Open vote ${id}`, () => api.openVote(id).then(refresh)),
        close: () => act('Close the vote', () => api.closeVote().then(refresh)),
      });
      renderAudience(el.audience, audience);
      renderNextChoice(nextTiles, votes?.nextChoice ?? null, (tiles) =>
        act(tiles.length ? `Next page from ${tiles.join(', ')}` : 'Next page back to the votes', () =>
          api.forceNext(tiles).then(refresh),
        ),
      );
    } catch (err) {
      if (err instanceof ControlError && err.status === 401) signOut(storage);
    }
  };
  const refreshCluster = async () => {
    if (!isCluster) return;
    try {
      renderCluster(el.cluster, await api.cluster());
      clusterPanel.hidden = false;
    } catch (err) {
      if (err instanceof ControlError && err.status === 404) isCluster = false;
    }
  };
  const refreshRoster = async () => {
    try {
      roster.show(await api.roster());
    } catch (err) {
      if (err instanceof ControlError && err.status === 401) signOut(storage);
    }
  };
  refresh();
  refreshRoster();
  refreshCluster();
  setInterval(refreshRoster, ROSTER_EVERY_MS);
  setInterval(refresh, PANEL_EVERY_MS);
  setInterval(refreshCluster, 2 * PANEL_EVERY_MS);

  // The scores folder: loading another score stops this one, so it takes a second click.
  const showScores = async () => {
    try {
      renderScores(el.scores, await api.scores(), (name, title) =>
        act(`Load ${title}`, async () => {
          await api.load(name);
          await showScores();
        }),
      );
    } catch (err) {
      setText(el.scores, controlErrorMessage(err));
    }
  };
  showScores();

  // The score's presets (fetched again when another score's stream starts).
  let presetsEpoch = /** @type {string | null} */ (null);
  connection.on('state', (c) => {
    if (c.epoch === presetsEpoch) return;
    presetsEpoch = c.epoch;
    api
      .presets()
      .then((answer) =>
        renderPresets(el.presets, answer, (id, name) => act(`Preset ${name}`, () => api.firePreset(id))),
      )
      .catch((err) => log('presets unavailable', err));
  });

  // For browser tests, as on the other pages.
  exposeForTests(window, connection);
}

/**
 * What the console knows of the score, fetched once per score (and epoch): the marks for the
 * marks and loop rows, the timeline for its panel.
 * @param {{ marks: ReturnType<typeof createMarksRow>, loopRow: ReturnType<typeof createLoopRow>, timeline: ReturnType<typeof createTimelinePanel> }} to
 * @returns {(scoreId: string) => Promise<void>}
 */
function scoreLoader({ marks, loopRow, timeline }) {
  /** The score whose marks the row shows: fetched again when another score is loaded. */
  let marksOf = '';
  return async (scoreId) => {
    if (scoreId === marksOf) return;
    marksOf = scoreId;
    try {
      const [res, line] = await Promise.all(
        ['/api/score', '/api/score/timeline'].map((url) => fetch(url, { cache: 'no-store' })),
      );
      if (res.ok) {
        const score = await res.json();
        marks.setMarks(score?.marks);
        loopRow.setMarks(score?.marks);
      }
      if (line.ok) timeline.set(await line.json());
    } catch {
      marksOf = '';
    }
  };
}
