// The conductor's console (`/conduct`): without the token only a sign-in form; signed in, the
// transport, seek and tempo controls, the vote tallies, and the audience as the server and the
// phones themselves see it. It follows the performance over the same live stream as the views,
// so several consoles stay in step.

import { Connection } from '../connection.js';
import { browserEnv } from '../browser-env.js';
import { createServerClock } from '../clock.js';
import { createBeatClock } from '../beat-clock.js';
import { ControlError, createControlApi, keepToken, takeToken } from '../control-api.js';
import { h, setText } from './dom.js';
import { renderAudience, renderScores, renderVotes } from './panels.js';

/** @type {import('../transports/index.js').Log} */
const log = (message, detail) => console.info(`[scorecast console] ${message}`, detail ?? '');

/** How often the tallies and the audience panel are refreshed. */
const PANEL_EVERY_MS = 1000;

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const storage = (() => { try { return window.sessionStorage; } catch { return null; } })();

start(takeToken(location, history, storage));

/** @param {string | null} token */
async function start(token) {
  if (token === null) { signIn(); return; }
  const api = createControlApi({ token });
  try {
    await api.status();
  } catch (err) {
    keepToken(storage, null);
    signIn(messageOf(err));
    return;
  }
  keepToken(storage, token);
  consoleFor(api);
}

/** @param {string} [problem] why the last attempt failed */
function signIn(problem = '') {
  const input = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: true, spellcheck: 'false' });
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem);
  const form = h('form', { id: 'sign-in', class: 'sign-in' },
    h('h1', {}, 'Conductor'),
    h('p', { class: 'muted' }, 'The token is printed by the server when it starts (or set with SCORECAST_TOKEN).'),
    h('label', { for: 'token' }, 'Token'),
    input,
    h('button', { type: 'submit' }, 'Sign in'),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = /** @type {HTMLInputElement} */ (input).value.trim();
    if (!token) return;
    setText(error, 'Checking…');
    const api = createControlApi({ token });
    try {
      await api.status();
    } catch (err) {
      setText(error, messageOf(err));
      return;
    }
    keepToken(storage, token);
    consoleFor(api);
  });
  app.replaceChildren(form);
  /** @type {HTMLInputElement} */ (input).focus();
}

/** @param {unknown} err */
function messageOf(err) {
  if (!(err instanceof ControlError)) return 'Something went wrong; try again.';
  if (err.status === 401) return 'That token is not right.';
  if (err.status === 429) return 'Too many failed sign-ins from this address: wait a minute, then try again.';
  if (err.status === 0) return err.message;
  return `${err.message} (${err.code})`;
}

/** @param {import('../control-api.js').ControlApi} api */
function consoleFor(api) {
  const el = {
    title: h('h1', { id: 'score-title' }, 'scorecast'),
    link: h('span', { id: 'link', 'data-state': 'connecting' }, 'connecting'),
    bar: h('span', { id: 'bar', class: 'big' }, '–'),
    beat: h('span', { id: 'beat', class: 'big' }, '–'),
    transport: h('span', { id: 'transport-state', 'data-state': '–' }, '–'),
    tempo: h('span', { id: 'tempo' }, '–'),
    count: h('span', { id: 'count-in' }, ''),
    result: h('p', { id: 'result', role: 'status', class: 'result' }, ''),
    votes: h('div', { id: 'votes' }),
    scores: h('div', { id: 'scores' }),
    audience: h('div', { id: 'audience' }),
  };
  const countIn = /** @type {HTMLSelectElement} */ (h('select', { id: 'count-in-bars', 'aria-label': 'Count-in' },
    h('option', { value: '0' }, 'no count-in'), h('option', { value: '1' }, 'count-in 1 bar'), h('option', { value: '2' }, 'count-in 2 bars')));
  const seekBar = /** @type {HTMLInputElement} */ (h('input', { id: 'seek-bar', type: 'number', min: '0', step: '1', inputmode: 'numeric', 'aria-label': 'Bar' }));
  const seekBeat = /** @type {HTMLInputElement} */ (h('input', { id: 'seek-beat', type: 'number', min: '1', step: '1', inputmode: 'numeric', placeholder: '1', 'aria-label': 'Beat in the bar' }));
  const rate = /** @type {HTMLInputElement} */ (h('input', { id: 'rate', type: 'number', min: '0.25', max: '4', step: '0.05', value: '1', 'aria-label': 'Tempo factor' }));

  /**
   * Run a control call and say what came of it.
   * @param {string} what
   * @param {() => Promise<unknown>} call
   */
  const act = async (what, call) => {
    setText(el.result, `${what}…`);
    try {
      await call();
      setText(el.result, `${what}: done`);
      el.result.dataset.ok = 'true';
    } catch (err) {
      setText(el.result, `${what}: ${messageOf(err)}`);
      el.result.dataset.ok = 'false';
      if (err instanceof ControlError && err.status === 401) { keepToken(storage, null); location.reload(); }
    }
  };
  const button = (/** @type {string} */ id, /** @type {string} */ label, /** @type {() => void} */ fn) => {
    const b = h('button', { id, type: 'button' }, label);
    b.addEventListener('click', fn);
    return b;
  };
  const seekForm = h('form', { id: 'seek', class: 'row' }, h('span', { class: 'label' }, 'Seek to bar'), seekBar, h('span', { class: 'label' }, 'beat'), seekBeat, h('button', { type: 'submit' }, 'Go'));
  seekForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const bar = Number(seekBar.value);
    const beat = seekBeat.value === '' ? undefined : Number(seekBeat.value);
    act(`Seek to bar ${bar}${beat ? ` beat ${beat}` : ''}`, () => api.seek(beat === undefined ? { bar } : { bar, beat }));
  });
  const tempoForm = h('form', { id: 'tempo-form', class: 'row' }, h('span', { class: 'label' }, 'Tempo ×'), rate, h('button', { type: 'submit' }, 'Set'));
  tempoForm.addEventListener('submit', (e) => {
    e.preventDefault();
    act(`Tempo × ${rate.value}`, () => api.tempo({ rate: Number(rate.value) }));
  });

  app.replaceChildren(
    h('header', { class: 'console-head' }, el.title,
      h('p', { class: 'status', role: 'status' }, el.link),
      button('sign-out', 'Sign out', () => { keepToken(storage, null); location.reload(); })),
    h('section', { class: 'panel pos', 'aria-label': 'Position' },
      h('p', {}, h('span', { class: 'label' }, 'Bar '), el.bar, h('span', { class: 'label' }, ' Beat '), el.beat, ' ', el.count),
      h('p', {}, el.transport, ' · ', el.tempo)),
    h('section', { class: 'panel controls', 'aria-label': 'Transport' },
      h('div', { class: 'row' },
        button('play', 'Play', () => act('Play', () => api.play({ countIn: Number(countIn.value) }))),
        countIn,
        button('pause', 'Pause', () => act('Pause', () => api.pause())),
        button('stop', 'Stop', () => act('Stop', () => api.stop()))),
      seekForm, tempoForm, el.result),
    h('section', { class: 'panel', 'aria-label': 'Votes' }, h('h2', {}, 'Votes'), el.votes),
    h('section', { class: 'panel', 'aria-label': 'Scores' }, h('h2', {}, 'Scores'), el.scores),
    h('section', { class: 'panel wide', 'aria-label': 'Audience' }, h('h2', {}, 'Audience'), el.audience),
  );

  // The performance, live, as every view gets it.
  const connection = new Connection({ baseUrl: location.origin, env: browserEnv(log), view: 'conduct' });
  const now = () => performance.now();
  const clock = createServerClock({
    now, timers: window, wall: () => performance.timeOrigin + performance.now(),
    probe: async () => {
      const t0 = now();
      const body = await (await fetch('/api/time', { cache: 'no-store' })).json();
      return typeof body?.t === 'number' ? { t0, t: body.t, t1: now() } : null;
    },
  });
  const beats = createBeatClock({
    getState: () => connection.state, clock, timers: window, now,
    onChange(pos) {
      setText(el.bar, pos.bar === null ? '–' : String(pos.bar));
      setText(el.beat, pos.beatInBar === null ? '–' : String(pos.beatInBar));
      setText(el.count, pos.count > 0 ? `count-in ${pos.count}/${pos.countOf}` : '');
    },
  });
  connection.on('state', (c) => {
    const s = /** @type {any} */ (c.state);
    beats.update();
    setText(el.title, typeof s?.score?.title === 'string' ? s.score.title : 'scorecast');
    document.title = `Conductor · ${s?.score?.title ?? 'scorecast'}`;
    setText(el.transport, String(s?.transport ?? '–'));
    el.transport.dataset.state = String(s?.transport ?? '–');
    setText(el.tempo, typeof s?.tempo === 'number' ? `♩ = ${Math.round(s.tempo * 10) / 10} (× ${s.rate})` : '–');
    if (document.activeElement !== rate && typeof s?.rate === 'number') rate.value = String(s.rate);
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
    } catch (err) {
      if (err instanceof ControlError && err.status === 401) { keepToken(storage, null); location.reload(); }
    }
  };
  refresh();
  setInterval(refresh, PANEL_EVERY_MS);

  // The scores folder: loading another score stops this one, so it takes a second click.
  const showScores = async () => {
    try {
      renderScores(el.scores, await api.scores(), (name, title) => act(`Load ${title}`, async () => {
        await api.load(name);
        await showScores();
      }));
    } catch (err) {
      setText(el.scores, messageOf(err));
    }
  };
  showScores();

  // For browser tests, as on the other pages.
  Object.defineProperty(window, 'scorecast', {
    value: Object.freeze({ get state() { return connection.state; }, get seq() { return connection.seq; }, get epoch() { return connection.epoch; } }),
  });
}
