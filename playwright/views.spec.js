// The score views in a real browser: pages agree on the beat, votes reach the tally, audio clips
// are scheduled for their beat's server time, the count-in, and screenshots of each view.

import { test, expect } from '@playwright/test';
import { freePort, startServer, TOKEN } from './server.js';
import { settledBox } from './settle.js';
import { quantile } from '../core/stats.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort() });
});
test.afterEach(async () => {
  await server.stop();
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * @param {import('@playwright/test').Page} page
 * @returns {Promise<any>}
 */
const sc = (page) =>
  page.evaluate(() => {
    const s = /** @type {any} */ (window).scorecast;
    return { state: s.state, shown: s.shown, clock: s.clock, audio: s.audio, transport: s.transport };
  });

/** @param {string} name @param {import('@playwright/test').Page} page */
async function attachScreenshot(name, page) {
  await test.info().attach(name, { body: await page.screenshot(), contentType: 'image/png' });
}

test("ten pages show each new beat within 15 ms of each other (p95), on the server's clock", {
  tag: '@timing',
}, async ({ browser }) => {
  const context = await browser.newContext();
  const pages = [];
  for (let i = 0; i < 10; i++) {
    const page = await context.newPage();
    await page.goto(`${server.base}/`);
    pages.push(page);
  }
  for (const page of pages) await expect(page.locator('#link')).toHaveText('live');
  // Let every clock settle (a burst of round trips), then record about 48 beats (a p95 over
  // fewer would be the second-worst beat).
  await pages[0].waitForTimeout(3000);
  const from = Date.now();
  await pages[0].waitForTimeout(30_000);
  const records = await Promise.all(pages.map(sc));
  // `at` is the page's own wall clock when it showed the beat: on this machine, the server's.
  /** @type {Map<string, number[]>} */
  const byBeat = new Map();
  for (const r of records) {
    for (const s of r.shown) {
      if (s.beat === null || s.at < from) continue;
      const key = `${s.beat}:${Math.round(s.server / 1000)}`;
      byBeat.set(key, [...(byBeat.get(key) ?? []), s.at]);
    }
  }
  const beats = [...byBeat.values()].filter((ats) => ats.length === pages.length);
  expect(beats.length).toBeGreaterThanOrEqual(40);
  // "Within 15 ms of each other (p95)": the difference between any two pages' moments, over
  // every pair of pages and every beat.
  const pairs = beats.flatMap((ats) => ats.flatMap((a, i) => ats.slice(i + 1).map((b) => Math.abs(a - b))));
  const spreads = beats.map((ats) => Math.max(...ats) - Math.min(...ats));
  const p95 = quantile(pairs, 0.95);
  test.info().annotations.push({
    type: 'sync',
    description: `${beats.length} beats on 10 pages: difference between two pages p50 ${quantile(pairs, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; first to last page p50 ${quantile(spreads, 0.5).toFixed(1)} ms, p95 ${quantile(spreads, 0.95).toFixed(1)} ms, max ${Math.max(...spreads).toFixed(1)} ms; clock errors ${records.map((r) => r.clock.error.toFixed(1)).join(', ')} ms`,
  });
  expect(p95).toBeLessThanOrEqual(15);
  // No page far off (a broken clock shows on every beat): at most two beats in the run with a
  // page over 60 ms from the others. One renderer held up once is the machine's doing: in a
  // clean clone's run beside three other jobs (load 13-17) one beat's spread was 127 ms.
  expect(spreads.filter((x) => x > 60).length).toBeLessThanOrEqual(2);
  // And each page showed each beat when it was due on the server's clock (`at` is the page's
  // wall clock, which on this machine is the server's): late by at most 15 ms (p95).
  const late = records.flatMap((r) =>
    r.shown
      .filter((/** @type {any} */ x) => x.at >= from && x.due !== null)
      .map((/** @type {any} */ x) => x.at - x.due),
  );
  expect(late.length).toBeGreaterThanOrEqual(40 * pages.length);
  test.info().annotations.push({
    type: 'lateness',
    description: `shown after the beat's server time: p50 ${quantile(late, 0.5).toFixed(1)} ms, p95 ${quantile(late, 0.95).toFixed(1)} ms`,
  });
  expect(quantile(late, 0.95)).toBeLessThanOrEqual(15);
  expect(Math.min(...late)).toBeGreaterThan(-15); // never shown early (beyond the clock's error)
  await context.close();
});

test('audience: join, tap a tile in the vote window, the vote reaches the tally', async ({ page }) => {
  await page.setViewportSize(PHONE);
  await page.goto(`${server.base}/`);
  await expect(page.locator('#join')).toBeVisible();
  await attachScreenshot('audience-join-phone', page);
  await page.locator('#join-button').click();
  await expect(page.locator('#join')).toBeHidden();
  // The tiles of the moment are drawn.
  await expect(page.locator('#tiles .tile')).toHaveCount(9);
  await attachScreenshot('audience-tiles-phone', page);
  await server.control('seek', { bar: 19 });
  const bright = page.locator('button.tile[data-tile="bright"]');
  await expect(bright).toBeVisible();
  await bright.click();
  await expect(page.locator('#vote-status')).toHaveText('Your vote: bright. Counted.');
  await expect(bright).toHaveAttribute('aria-pressed', 'true');
  await attachScreenshot('audience-vote-phone', page);
  const votes = await (
    await fetch(`${server.base}/api/votes`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json();
  expect(votes.open).toMatchObject({ id: 'ending', tally: { soft: 0, bright: 1 } });
  // A tap on another tile moves the vote; a tap on the tile voted for takes it back (ZScore's
  // tiles select and unselect): one vote a phone at any time.
  const tallyNow = async () =>
    (await (await fetch(`${server.base}/api/votes`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).open
      .tally;
  const soft = page.locator('button.tile[data-tile="soft"]');
  await soft.click();
  await expect(page.locator('#vote-status')).toHaveText('Your vote: soft. Counted.');
  await expect(soft).toHaveAttribute('aria-pressed', 'true');
  await expect(bright).toHaveAttribute('aria-pressed', 'false');
  expect(await tallyNow()).toEqual({ soft: 1, bright: 0 });
  await soft.click();
  await expect(page.locator('#vote-status')).toHaveText('Your vote is taken back. Tap a tile to vote.');
  await expect(soft).toHaveAttribute('aria-pressed', 'false');
  expect(await tallyNow()).toEqual({ soft: 0, bright: 0 });
  await bright.click();
  await expect(page.locator('#vote-status')).toHaveText('Your vote: bright. Counted.');
  expect(await tallyNow()).toEqual({ soft: 0, bright: 1 });
  await page.setViewportSize(DESKTOP);
  await attachScreenshot('audience-vote-desktop', page);
});

test('audio: the bell is scheduled for the server time of its beat, once', { tag: '@timing' }, async ({ page }) => {
  await page.goto(`${server.base}/`);
  await page.locator('#join-button').click();
  await expect(page.locator('#link')).toHaveText('live');
  // The bell's cue is on bar 32, beat 1; start two bars before it.
  await server.control('seek', { bar: 30 });
  await expect.poll(async () => (await sc(page)).audio.length, { timeout: 10_000 }).toBeGreaterThan(0);
  await expect.poll(async () => (await sc(page)).state.bar, { timeout: 5000 }).toBe(32);
  const { audio, shown } = await sc(page);
  expect(audio).toHaveLength(1);
  expect(audio[0].url).toMatch(/\/scores\/demo\/[0-9a-f]+\/generated\/bell\.wav$/);
  // Scheduled for the moment the bar-32 downbeat was shown (the page's clock is the server's
  // here), ahead of time: not late, nothing skipped.
  const downbeat = shown.find((/** @type {any} */ s) => s.bar === 32 && s.beatInBar === 1);
  expect(Math.abs(audio[0].serverT - downbeat.at)).toBeLessThan(15);
  expect(audio[0].offset).toBe(0);
});

test('an output 150 ms behind (a Bluetooth headset) is flagged beside the click toggle', async ({ page }) => {
  // The context's output timestamps say the speaker plays 150 ms behind the sample computed now.
  await page.addInitScript(() => {
    AudioContext.prototype.getOutputTimestamp = function () {
      return { contextTime: this.currentTime - 0.15, performanceTime: performance.now() };
    };
  });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#link')).toHaveText('live');
  await expect(page.locator('#slow-output')).toBeEmpty();
  await expect(page.locator('#slow-output')).toBeHidden();
  await page.locator('#click-toggle').click();
  // The page reads the stamp against its own clocks a moment later: on a loaded machine the
  // audio thread's currentTime lags and the figure comes out a few ms short (142 ms in a run).
  await expect(page.locator('#slow-output')).toHaveText(/^Sound output 1[3-6]\d ms behind \(Bluetooth\?\)/);
  await expect(page.locator('#slow-output')).toBeVisible();
});

/** @param {import('@playwright/test').Page} page @returns {Promise<number>} the clicks placed so far */
const clicksPlaced = async (page) =>
  (await sc(page)).audio.filter((/** @type {any} */ a) => a.url.startsWith('click')).length;

test('a click held silent while the output settles says why beside the toggle, and the wait ends', async ({ page }) => {
  // Output timestamps that jump 150 ms every 700 ms (a route that will not settle): the mapping
  // restarts on them and is never trusted, so clicks wait until the bound (TRUST_WITHIN_MS, 8 s).
  await page.addInitScript(() => {
    AudioContext.prototype.getOutputTimestamp = function () {
      const jump = Math.floor(performance.now() / 700) % 2 ? 0.15 : 0;
      return { contextTime: this.currentTime - 0.04 - jump, performanceTime: performance.now() };
    };
  });
  await page.setViewportSize(PHONE);
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#link')).toHaveText('live');
  const note = page.locator('#click-wait');
  // Not with the click off; the live region is there, empty and taking no room, before its first words.
  await expect(note).toBeEmpty();
  await expect(note).toBeHidden();
  await expect(note).toHaveAttribute('role', 'status');
  await expect(note).toHaveAttribute('aria-live', 'polite');
  await page.locator('#click-toggle').click();
  await expect(note).toHaveText(/^Click waits/);
  // Once the line through the readings stands, a jump restarts it: the output moved.
  await expect(note).toHaveText(/^Click waits: the sound output moved/);
  await expect(note).toBeVisible();
  // Beside the toggle, over nothing: the strip wraps the words onto a line of their own.
  const [noteBox, toggleBox] = [await note.boundingBox(), await page.locator('#click-toggle').boundingBox()];
  expect(noteBox && toggleBox && noteBox.y >= toggleBox.y + toggleBox.height).toBe(true);
  expect(noteBox && noteBox.x + noteBox.width <= PHONE.width).toBe(true);
  await attachScreenshot('part-click-wait-phone', page);
  await page.screenshot({ path: test.info().outputPath('part-click-wait-phone.png') });
  await page.setViewportSize({ width: PHONE.height, height: PHONE.width });
  await page.screenshot({ path: test.info().outputPath('part-click-wait-landscape.png') });
  // The wait is bounded: the mapping is then used as it is, clicks are placed, the words go.
  await expect.poll(() => clicksPlaced(page), { timeout: 20_000 }).toBeGreaterThan(0);
  await expect(note).toBeHidden();
  // Turned off and on again, the mapping is in use: nothing to wait for.
  await page.locator('#click-toggle').click();
  await page.locator('#click-toggle').click();
  await expect(note).toBeHidden();
});

test('with a steady output the click waits a moment, then sounds and the words are gone', async ({ page }) => {
  // Timestamps on a steady line 30 ms behind the context's time (what the mapping trusts), and a
  // record of every text the note shows.
  await page.addInitScript(() => {
    /** @type {number | null} */
    let at = null;
    AudioContext.prototype.getOutputTimestamp = function () {
      const now = performance.now();
      at ??= this.currentTime - now / 1000;
      return { contextTime: at + now / 1000 - 0.03, performanceTime: now };
    };
    const w = /** @type {any} */ (window);
    w.__waitWords = [];
    new MutationObserver(() => {
      const words = document.getElementById('click-wait')?.textContent ?? '';
      if (words && w.__waitWords.at(-1) !== words) w.__waitWords.push(words);
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#link')).toHaveText('live');
  await page.locator('#click-toggle').click();
  await expect.poll(() => clicksPlaced(page)).toBeGreaterThan(0);
  await expect(page.locator('#click-wait')).toBeHidden();
  // It was told, in one wording, while the line through the readings formed (3 s at least).
  const words = await page.evaluate(() => /** @type {any} */ (window).__waitWords);
  expect(words).toEqual([expect.stringMatching(/^Click waits a few seconds for the sound output to settle/)]);
});

// Timed: a page that gets the play late (a starved renderer, a slow link) rightly skips a count it
// is past, so seeing all four depends on the page keeping time (it missed "1" beside other work).
test('count-in: the clicks are shown, then the first beat; also when the server is lost during the clicks', {
  tag: '@timing',
}, async ({ page }) => {
  // The page's link to the server, cut on demand (`cut`): its socket closed, and every way back
  // (another socket, SSE, polling) refused.
  /** @type {import('@playwright/test').WebSocketRoute[]} */
  const sockets = [];
  let cut = false;
  await page.routeWebSocket(/\/live/, (ws) => {
    if (cut) return ws.close({ code: 1001, reason: 'cut by test' });
    ws.connectToServer();
    sockets.push(ws);
  });
  await page.route(/\/live\/(sse|poll)/, (route) => (cut ? route.abort('connectionrefused') : route.continue()));
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#link')).toHaveText('live');
  // A page still joining shows no beat and no click until it is on time (a first beat on time or
  // not at all): on a loaded machine the first click could fall before that.
  await expect.poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.join)).toBe('on-time');
  await server.control('stop');
  // Every number the count-in element shows, as the page draws it: each shows for one beat
  // (625 ms), shorter than the gaps between a locator's later polls, which could miss one.
  await page.evaluate(() => {
    const el = /** @type {HTMLElement} */ (document.getElementById('count-in'));
    const seen = /** @type {string[]} */ ([]);
    /** @type {any} */ (window).countInSeen = seen;
    new MutationObserver(() => {
      if (!el.hidden && el.textContent && seen.at(-1) !== el.textContent) seen.push(el.textContent);
    }).observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  await server.control('play', { countIn: 1 });
  const countIn = page.locator('#count-in');
  await expect(countIn).toBeVisible();
  await attachScreenshot('part-count-in', page);
  await expect(countIn).toBeHidden({ timeout: 6000 });
  expect(await page.evaluate(() => /** @type {any} */ (window).countInSeen)).toEqual(['1', '2', '3', '4']);
  await expect(page.locator('#bar')).toHaveText('1');
  const { shown } = await sc(page);
  const counts = shown.filter((/** @type {any} */ s) => s.count > 0).map((/** @type {any} */ s) => s.count);
  expect(counts.slice(-4)).toEqual([1, 2, 3, 4]);

  // Again, the link cut at the first click: the page goes on counting on the clock it has, and
  // shows the first beat at its announced time, then (nothing more announced) joining.
  await expect.poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.join)).toBe('on-time');
  await server.control('stop');
  await page.evaluate(() => {
    /** @type {any} */ (window).countInSeen.length = 0;
  });
  const { state } = await server.control('play', { countIn: 1 });
  await expect(countIn).toHaveText('1');
  cut = true;
  for (const ws of sockets.splice(0)) await ws.close({ code: 1001, reason: 'cut by test' });
  await expect(page.locator('#link')).not.toHaveText('live');
  await expect(countIn).toBeHidden({ timeout: 6000 });
  expect(await page.evaluate(() => /** @type {any} */ (window).countInSeen)).toEqual(['1', '2', '3', '4']);
  const { shown: after } = await sc(page);
  const downbeat = after.find((/** @type {any} */ s) => s.count === 0 && s.due === state.next.t);
  expect(downbeat, 'the first beat shown at its announced time').toMatchObject({ bar: 1, beatInBar: 1 });
  await expect(page.locator('#joining')).toBeVisible();
  expect(await page.locator('#link').getAttribute('data-state')).not.toBe('live');
  cut = false;
});

test('first render within 1 s of navigation on loopback', { tag: '@timing' }, async ({ page }) => {
  const { views } = await (await fetch(`${server.base}/api/score`)).json();
  expect(views.length).toBeGreaterThanOrEqual(6);
  for (const path of views.map((/** @type {string} */ v) => (v === 'audience' ? '/' : `/view/${v}`))) {
    await page.goto(`${server.base}${path}`);
    await expect(page.locator('#bar')).toHaveText(/^\d+$/);
    const ms = await page.evaluate(
      () => performance.getEntriesByName('scorecast:first-render')[0]?.startTime ?? Infinity,
    );
    test.info().annotations.push({ type: 'first render', description: `${path}: ${ms.toFixed(0)} ms` });
    expect(ms).toBeLessThanOrEqual(1000);
  }
});

/**
 * The beat map of a view, as the server gives it.
 * @param {string} view
 */
const beatMap = async (view) => (await fetch(`${server.base}/api/score/views/${view}`)).json();

test('part view: two panes of real notation, the next line prepared, the cursor on the beat map', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await server.control('pause');
  await server.control('seek', { bar: 3, beat: 2 });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#bar')).toHaveText('3');
  const panes = page.locator('div.sc-pane');
  await expect(panes).toHaveCount(2);
  const active = page.locator('div.sc-pane[data-role="active"]');
  const next = page.locator('div.sc-pane[data-role="next"]');
  await expect(active).toHaveAttribute('data-state', 'ready');
  await expect(next).toHaveAttribute('data-state', 'ready');
  // Drawn for real: Verovio's noteheads in both panes.
  expect(await active.locator('g.note').count()).toBeGreaterThan(4);
  expect(await next.locator('g.note').count()).toBeGreaterThan(4);
  const activeLine = Number(await active.getAttribute('data-line'));
  expect(Number(await next.getAttribute('data-line'))).toBe(activeLine + 1);
  // The cursor stands in the x-range the beat map gives for bar 3 beat 2 (global beat 9).
  const map = await beatMap('violin1');
  const b = map.beats.find((/** @type {any} */ x) => x.beat === 9);
  const cursor = active.locator('.sc-cursor');
  await expect(cursor).toHaveAttribute('data-beat', '9');
  const x = Number(await cursor.getAttribute('data-x'));
  expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
  expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
  await attachScreenshot('part-violin1-desktop', page);

  // Playing on into the next line: the pane that was "next" becomes active without being redrawn.
  const nextPane = await next.getAttribute('data-pane');
  const before = await next.evaluate((el) => {
    /** @type {any} */ (el.querySelector('svg')).dataset.mark = 'kept';
    return el.getAttribute('data-line');
  });
  const firstOfNext =
    map.beats.find((/** @type {any} */ x) => x.system === Number(before) && x.page === 0)?.beat ?? null;
  expect(firstOfNext).not.toBeNull();
  await server.control('seek', { beat: firstOfNext - 1 });
  await server.control('play');
  await expect(page.locator(`div.sc-pane[data-pane="${nextPane}"]`)).toHaveAttribute('data-role', 'active', {
    timeout: 5000,
  });
  expect(await page.locator(`div.sc-pane[data-pane="${nextPane}"] svg[data-mark="kept"]`).count()).toBe(1);
  // A phone draws the part's narrow layout (part-layout.spec.js tests it at every size).
  await page.setViewportSize(PHONE);
  await expect(page.locator('#notation')).toHaveAttribute('data-layout', 'narrow');
  await attachScreenshot('part-violin1-phone', page);
});

test('full score view: every staff drawn, the cursor follows the beat', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await server.control('pause');
  await server.control('seek', { bar: 5 });
  await page.goto(`${server.base}/view/score`);
  await expect(page.locator('#bar')).toHaveText('5');
  const pageEl = page.locator('.sc-page[data-state="ready"]').first();
  await expect(pageEl).toBeVisible();
  expect(await pageEl.locator('g.staff').count()).toBeGreaterThanOrEqual(4 * 4);
  expect(await pageEl.locator('g.note').count()).toBeGreaterThan(50);
  const map = await beatMap('score');
  const beat = map.beats.find((/** @type {any} */ x) => x.bar === 5);
  await expect(page.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat.beat));
  await attachScreenshot('score-desktop', page);
  await page.setViewportSize(PHONE);
  await attachScreenshot('score-phone', page);
});

test('full score view: the title and composer shown, the bar and beat in sight above the current system when play moves on', async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await server.control('pause');
  await server.control('seek', { bar: 1 });
  await page.goto(`${server.base}/view/score`);
  await expect(page.locator('#title')).toHaveText('First Light');
  await expect(page.locator('#composer')).toHaveText('scorecast ensemble');
  await expect(page.locator('.sc-page[data-state="ready"]').first()).toBeVisible();
  await server.control('seek', { bar: 20 });
  await expect(page.locator('#bar')).toHaveText('20');
  // The band is scrolled to (smoothly): wait until it stops moving, in sight.
  const band = page.locator('.sc-system-band');
  const box = await settledBox(page, band);
  expect(box.y).toBeLessThan(DESKTOP.height);
  const position = await page.locator('.position').boundingBox();
  expect(position?.y).toBeGreaterThanOrEqual(0);
  expect((position?.y ?? 0) + (position?.height ?? 0)).toBeLessThanOrEqual(box?.y ?? 0);
  await attachScreenshot('score-desktop-bar-20', page);
});

test('reduced motion: the cursor steps from beat to beat instead of gliding', async ({ page }) => {
  /**
   * Distinct cursor positions drawn within each beat, sampled every frame for 1.5 s; how far (px)
   * the drawn cursor was from where the page says it is in that frame (`data-glide`: from x0 at
   * `from` to x1 at `to`, page units and timeline ms; else `data-x`, where it stands); the most
   * animations the cursor ran at once.
   */
  const sampleCursor = () =>
    page.evaluate(
      () =>
        new Promise((resolve) => {
          /** @type {Record<string, Set<string>>} */
          const seen = {};
          let off = 0;
          let compared = 0;
          let animations = 0;
          const end = performance.now() + 1500;
          // Each frame, after the page's own frame work (a task after the frame's callbacks).
          const next = () => requestAnimationFrame(() => setTimeout(sample, 0));
          const sample = () => {
            const c = document.querySelector('div.sc-pane[data-role="active"] .sc-cursor');
            const svg = c?.previousElementSibling;
            const beat = c?.getAttribute('data-beat');
            if (c && svg && beat) {
              // The drawn bar: the element's left edge (it moves by a transform, on its own within a beat).
              const drawn = c.getBoundingClientRect().left;
              (seen[beat] ??= new Set()).add(drawn.toFixed(1));
              const [vx, , vw] = (svg.getAttribute('viewBox') ?? '').split(/\s+/).map(Number);
              const box = svg.getBoundingClientRect();
              // Where the page says it is at this frame's time.
              const glide = c.getAttribute('data-glide')?.split(' ').map(Number);
              const t = Number(document.timeline.currentTime);
              const x = glide
                ? glide[0] + (glide[1] - glide[0]) * Math.min(Math.max((t - glide[2]) / (glide[3] - glide[2]), 0), 1)
                : Number(c.getAttribute('data-x'));
              compared += 1;
              off = Math.max(off, Math.abs(drawn - (box.left + ((x - vx) / vw) * box.width)));
              animations = Math.max(animations, c.getAnimations().length);
            }
            if (performance.now() < end) next();
            else resolve({ perBeat: Object.values(seen).map((s) => s.size), off, compared, animations });
          };
          next();
        }),
    );
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('div.sc-pane[data-role="active"] .sc-cursor')).toHaveAttribute('data-beat', /\d+/);
  /** @typedef {{ perBeat: number[], off: number, compared: number, animations: number }} Sampled */
  const gliding = /** @type {Sampled} */ (await sampleCursor());
  expect(Math.max(...gliding.perBeat)).toBeGreaterThan(3);
  // The glide (an animation the browser runs by itself, one a beat) is drawn where the page says
  // the cursor is, in every frame (the page itself runs no frame between beats).
  expect(gliding.off).toBeLessThan(1);
  expect(gliding.compared).toBeGreaterThan(10);
  expect(gliding.animations).toBe(1);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  // Read as each beat is drawn: the beat gliding when it changed may finish its glide.
  await page.waitForTimeout(1000);
  const stepping = /** @type {Sampled} */ (await sampleCursor());
  expect(Math.max(...stepping.perBeat)).toBe(1);
  expect(stepping.animations).toBe(0);
});

test('the seed-profile page, with its 1.9 MB of assets, loads within 5 s on congested WiFi (20/5 Mbit/s, 60 ms)', {
  tag: '@timing',
}, async ({ browser }) => {
  await server.stop();
  server = await startServer({ port: await freePort(), score: 'scores/seed-profile' });
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 60,
    downloadThroughput: 20e6 / 8,
    uploadThroughput: 5e6 / 8,
  });
  // Bytes as they crossed the (throttled) network.
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
  });
  await page.goto(`${server.base}/`);
  await expect(page.locator('#bar')).toHaveText(/^\d+$/);
  const ms = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const check = () => {
          const mark = performance.getEntriesByName('scorecast:assets-loaded')[0];
          if (mark) resolve(mark.startTime);
          else setTimeout(check, 50);
        };
        check();
      }),
  );
  const firstRender = await page.evaluate(
    () => performance.getEntriesByName('scorecast:first-render')[0]?.startTime ?? Infinity,
  );
  test.info().annotations.push({
    type: 'page load',
    description: `seed profile under 20/5 Mbit/s, 60 ms: first render ${Number(firstRender).toFixed(0)} ms, all assets ${Number(ms).toFixed(0)} ms, ${(bytes / 1e6).toFixed(2)} MB`,
  });
  expect(bytes).toBeGreaterThan(1.8e6);
  expect(ms).toBeLessThanOrEqual(5000);
  await context.close();
});
