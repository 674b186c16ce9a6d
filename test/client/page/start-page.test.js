// The whole page started on fakes (start-page.js): a jsdom window and document, a fake server
// behind a fake WebSocket and fetch, and a hand-turned clock. What a person sees: the page joins
// (its clock measured by ping/pong) and shows the beat the server's first message says.

import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { buildScoreModel } from '../../../core/manifest.js';
import { atBeat, initialState, withCountIn, withNext, withPlayback } from '../../../core/performance.js';
import { startPage } from '../../../client/src/page/start-page.js';
import { FakeClock, fakeWebSocketClass, flush, msg } from '../fakes.js';

const html = readFileSync(new URL('../../../client/index.html', import.meta.url), 'utf8').replace(
  /<script[^>]*><\/script>/g,
  '',
);

/** The server's clock runs this far ahead of the page's (ms). */
const SERVER_AHEAD_MS = 5_000;

/** A hand-turned clock with the page's timers: intervals and animation frames too. */
class PageClock extends FakeClock {
  wall = () => 1_700_000_000_000 + this.t;
  /** @param {() => void} fn @param {number} ms */
  setInterval = (fn, ms) => {
    const tick = () => {
      fn();
      this.setTimeout(tick, ms);
    };
    return this.setTimeout(tick, ms);
  };
  clearInterval = () => {};
  /** @param {(t: number) => void} fn */
  requestFrame = (fn) => this.setTimeout(() => fn(this.t), 16);
}

/** A fetch that answers like a server with no score files to give. */
function fakeServerFetch(/** @type {PageClock} */ clock, /** @type {string[]} */ asked = []) {
  /** @param {string} url */
  return async (url) => {
    asked.push(url);
    const json = (/** @type {unknown} */ body, status = 200) =>
      /** @type {Response} */ (
        /** @type {unknown} */ ({
          ok: status < 400,
          status,
          json: async () => body,
          text: async () => JSON.stringify(body),
          arrayBuffer: async () => new ArrayBuffer(0),
          headers: new Headers(),
        })
      );
    if (url.startsWith('/api/time')) return json({ t: clock.t + SERVER_AHEAD_MS });
    if (url === '/api/score') return json({ id: 'demo', title: 'Demo piece', assets: [] });
    return json({ code: 'SC_ERR_NOT_FOUND' }, 404);
  };
}

function model() {
  const r = buildScoreModel({
    id: 'demo',
    title: 'Demo piece',
    bars: 8,
    meter: [{ bar: 1, time: '3/4', tempo: 60 }],
    cues: [{ bar: 2, set: { text: 'Listen' } }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/**
 * The page started on fakes: its window, clock, socket, the URLs it fetched and an answer to every
 * ping so far.
 */
function started(url = 'http://venue.local/') {
  const dom = new JSDOM(html, { url, pretendToBeVisual: true });
  const window = /** @type {Window & typeof globalThis} */ (/** @type {unknown} */ (dom.window));
  const clock = new PageClock();
  const WebSocket = fakeWebSocketClass();
  /** @type {string[]} */
  const fetched = [];
  startPage({
    window,
    document: window.document,
    fetch: fakeServerFetch(clock, fetched),
    WebSocket: /** @type {any} */ (WebSocket),
    clock: /** @type {any} */ (clock),
    log: () => {},
  });
  const $ = (/** @type {string} */ id) => window.document.getElementById(id);
  /** Turn the clock `ms` on, in 50 ms steps, the server answering every ping at once (its own time). */
  const run = async (/** @type {number} */ ms) => {
    for (let i = 0; i < ms / 50; i++) {
      for (const ws of WebSocket.instances)
        for (const sent of ws.sent.splice(0)) {
          if (sent.type === 'ping' && ws.readyState === 1)
            ws.serverSend({ type: 'pong', id: sent.id, t0: sent.t0, t: clock.t + SERVER_AHEAD_MS });
        }
      await flush();
      clock.advance(50);
    }
  };
  return { window, clock, WebSocket, $, run, fetched };
}

describe('the page started on fakes', () => {
  it('joins on a measured clock and shows the bar and beat of the first state the server sends', async () => {
    const { window, clock, WebSocket, $ } = started();
    expect($('link')?.dataset.state).toBe('connecting');

    const ws = WebSocket.instances[0];
    ws.serverOpen();
    ws.serverSend(msg.welcome('e1', 0));
    // Beat 4 (bar 2, beat 2 in 3/4 at 60) sounded a quarter second ago by the server's clock.
    const m = model();
    const state = atBeat(m, withPlayback(initialState(m), 'playing', null), 4, clock.t + SERVER_AHEAD_MS - 250);
    ws.serverSend(msg.snapshot('e1', 0, state));
    // The server answers every ping at once, with its own time.
    for (let i = 0; i < 40; i++) {
      for (const sent of ws.sent.splice(0)) {
        if (sent.type === 'ping')
          ws.serverSend({ type: 'pong', id: sent.id, t0: sent.t0, t: clock.t + SERVER_AHEAD_MS });
      }
      await flush();
      clock.advance(50);
    }

    // The estimate meets the join's bound: beats are shown as on time.
    expect(/** @type {any} */ (window).scorecast.join).toBe('on-time');
    expect($('link')?.dataset.state).toBe('live');
    expect($('bar')?.textContent).toBe('2');
    expect($('beat')?.textContent).toBe('2');
    expect($('cue-text')?.textContent).toBe('Listen');
    expect($('title')?.textContent).toBe('Demo piece');
  });

  it('the server lost during a count-in: the clicks go on and the beat counted in to lands at its time, then joining', async () => {
    const { window, clock, WebSocket, $, run } = started();
    const ws = WebSocket.instances[0];
    ws.serverOpen();
    ws.serverSend(msg.welcome('e1', 0));
    const m = model();
    const server = () => clock.t + SERVER_AHEAD_MS;
    ws.serverSend(msg.snapshot('e1', 0, atBeat(m, initialState(m), 3, null)));
    await run(2000);
    expect(/** @type {any} */ (window).scorecast.join).toBe('on-time');
    // Play from bar 2 with a bar's count-in (three clicks, a second apart) from 1 s on; the link
    // is cut during the second click and stays down.
    const t = server() + 1000;
    ws.serverSend(
      msg.delta('e1', 1, withNext(m, withCountIn(/** @type {any} */ ({}), { t, beats: 3, beatMs: 1000 }), 3, t + 3000)),
    );
    /** What the page shows: count-in click, bar, beat, joining. */
    const showing = () => [
      $('count-in')?.textContent,
      $('bar')?.textContent,
      $('beat')?.textContent,
      !$('joining')?.hidden,
    ];
    /** @type {Array<ReturnType<typeof showing>>} */
    const seen = [];
    /** Turn the clock to server time `at` (+1 ms), noting what shows then. */
    const to = async (/** @type {number} */ at) => {
      await run(Math.ceil((at - server()) / 50) * 50);
      clock.advance(at + 1 - server());
      await flush();
      seen.push(showing());
    };
    await to(t);
    await to(t + 1000);
    ws.serverClose();
    await flush();
    expect($('link')?.dataset.state).not.toBe('live');
    await to(t + 2000);
    await to(t + 3000);
    expect(seen).toEqual([
      ['1', '2', '1', false],
      ['2', '2', '1', false],
      ['3', '2', '1', false],
      ['', '2', '1', false],
    ]);
    // Where what the server announced ends (the beat's length after it), the page stops: joining.
    await to(t + 4000);
    expect(seen.at(-1)?.[3]).toBe(true);
  });

  it('a part page with ?notation=off asks for no notation, keeps the large beat, and joins and shows the beat as with it', async () => {
    /** @param {string} url */
    const page = async (url) => {
      const p = started(url);
      const ws = p.WebSocket.instances[0];
      ws.serverOpen();
      ws.serverSend(msg.welcome('e1', 0));
      const m = model();
      const t = p.clock.t + SERVER_AHEAD_MS;
      ws.serverSend(
        msg.snapshot(
          'e1',
          0,
          withNext(m, atBeat(m, withPlayback(initialState(m), 'playing', null), 4, t), 5, t + 1000),
        ),
      );
      await p.run(2000);
      return p;
    };
    const painted = await page('http://venue.local/view/violin1');
    const bare = await page('http://venue.local/view/violin1?notation=off');
    expect(painted.fetched).toContain('/api/score/views/violin1');
    expect(bare.fetched.filter((u) => u.startsWith('/api/score/views'))).toEqual([]);
    expect(painted.window.document.body.dataset.notation).toBe('true');
    expect(bare.window.document.body.dataset.notation).toBeUndefined();
    // Both joined, on the same clock, and show the same beat.
    for (const p of [painted, bare]) {
      expect(/** @type {any} */ (p.window).scorecast.join).toBe('on-time');
      expect(p.$('beat')?.textContent).toBe(painted.$('beat')?.textContent);
    }
  });
});
