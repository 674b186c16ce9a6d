// A ZScore piece imported as ZScore exported it (test/fixtures/zscore/rose, the quirks of Union
// Rose): ten phones vote for the tiles, and at the decision beat the part views turn to the
// pages the votes chose. Screenshots of the audience (phone) and a part (tablet) go into the
// HTML report.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { importZScore } from '../server/import/zscore/index.js';
import { freePort, startServer, TOKEN } from './server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = `.cache/playwright-zscore-rose-${process.pid}`;
const UNION_ROSE = path.resolve(ROOT, '../shared/zscore/union-rose');
const UNION_ROSE_PACKAGE = `.cache/playwright-union-rose-${process.pid}`;
const PHONE = { width: 390, height: 844 };
const TABLET = { width: 1024, height: 768 };

// This file's tests in order in one worker, where `functional` spreads other files' tests over
// both: the package is imported once (a beforeAll runs in each worker that runs the file), and no
// two of its servers, each cleaning every page of the package as it starts, start at once.
test.describe.configure({ mode: 'default' });

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
test.beforeAll(async () => {
  rmSync(path.join(ROOT, PACKAGE), { recursive: true, force: true });
  // The granulator's sound is not in ZScore's export: given to the importer (--granulator-sound).
  const sound = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-grain-')), 'grain.wav');
  writeFileSync(sound, wav());
  await importZScore(path.join(ROOT, 'test/fixtures/zscore/rose'), path.join(ROOT, PACKAGE), {
    granulatorSound: sound,
  });
  rmSync(path.dirname(sound), { recursive: true, force: true });
});

/** A short mono 16-bit WAV (0.1 s of silence at 8 kHz). */
function wav() {
  const samples = 800;
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples * 2, 40);
  return b;
}

/**
 * A Web Audio stand-in (headless Chromium here has no audio device): a context whose clock is the
 * page's, recording every sound started on it, so that a test can count the grains and see when.
 */
function fakeWebAudio() {
  const log = { decoded: 0, starts: /** @type {number[]} */ ([]) };
  const param = () => ({ value: 1, setValueAtTime() {}, linearRampToValueAtTime() {}, cancelScheduledValues() {} });
  const node = () => ({ connect() {}, disconnect() {} });
  class FakeAudioContext {
    constructor() {
      this.state = 'suspended';
      this.destination = node();
      this.t0 = performance.now();
      this.baseLatency = 0;
      this.outputLatency = 0;
    }
    get currentTime() {
      return (performance.now() - this.t0) / 1000;
    }
    async resume() {
      this.state = 'running';
    }
    async decodeAudioData() {
      log.decoded++;
      return { duration: 2 };
    }
    createGain() {
      return { ...node(), gain: param() };
    }
    createBufferSource() {
      return {
        ...node(),
        buffer: null,
        playbackRate: param(),
        start: (/** @type {number} */ when) => {
          log.starts.push(when);
        },
        stop() {},
      };
    }
    getOutputTimestamp() {
      return { contextTime: this.currentTime, performanceTime: performance.now() };
    }
  }
  Object.defineProperty(window, 'AudioContext', { value: FakeAudioContext });
  Object.defineProperty(window, 'soundLog', { value: log });
}
test.afterAll(() => {
  rmSync(path.join(ROOT, PACKAGE), { recursive: true, force: true });
  rmSync(path.join(ROOT, UNION_ROSE_PACKAGE), { recursive: true, force: true });
});
test.afterEach(async () => {
  await server?.stop();
});

/** @param {string} name @param {import('@playwright/test').Page} page */
async function attachScreenshot(name, page) {
  await test.info().attach(name, { body: await page.screenshot(), contentType: 'image/png' });
}

test('ten phones vote; at the decision beat the part views turn to the voted pages', { tag: '@timing' }, async ({
  browser,
}) => {
  server = await startServer({ port: await freePort(), score: PACKAGE, autoplay: false });
  // Beat 2: the vote for page 3 is open (beats 1..5), the tiles carry their words.
  await server.control('seek', { beat: 2 });
  /** @type {import("@playwright/test").Page[]} */
  const phones = [];
  for (let i = 0; i < 10; i++) {
    const context = await browser.newContext({ viewport: PHONE });
    await context.addInitScript(fakeWebAudio);
    // A SpeechSynthesis stand-in that records what the phone says (headless Chromium has no voices).
    await context.addInitScript(() => {
      const said = /** @type {any[]} */ ([]);
      Object.defineProperty(window, 'speechSynthesis', {
        value: {
          speak: (/** @type {any} */ u) =>
            said.push({ text: u.text, volume: u.volume, rate: Math.round(u.rate * 100) / 100, lang: u.lang }),
          cancel() {},
          getVoices: () => [],
        },
      });
      Object.defineProperty(window, 'said', { value: said });
    });
    const page = await context.newPage();
    await page.goto(`${server.base}/`);
    await page.locator('#join-button').click();
    phones.push(page);
  }
  // The tiles are a rose (the export has the rose's shapes): one ring of two, words on the arcs.
  await expect(phones[0].locator('#tiles svg.rose g.tile[role="button"]')).toHaveText(['hope', 'fear']);
  // Seven for "fear" (page 2), three for "hope" (page 1). A tap lands on the sector itself; the
  // bounding box's centre of a ring sector can lie outside it, so the tap is dispatched to it.
  for (const [i, page] of phones.entries()) {
    await page.locator(`g.tile[data-tile="${i < 7 ? 't1-2' : 't1-1'}"]`).dispatchEvent('click');
    await expect(page.locator('#vote-status')).toHaveText(/Counted/);
  }
  await expect(phones[0].locator('g.tile[data-tile="t1-2"]')).toHaveAttribute('aria-pressed', 'true');
  // Speech is on (from beat 1): every tap says the word, as often as one taps. A tap on the tile
  // voted for takes the vote back (ZScore's tiles select and unselect); the next votes again.
  await phones[0].locator('g.tile[data-tile="t1-2"]').dispatchEvent('click');
  await expect(phones[0].locator('#vote-status')).toHaveText(/taken back/);
  await expect(phones[0].locator('g.tile[data-tile="t1-2"]')).toHaveAttribute('aria-pressed', 'false');
  await phones[0].locator('g.tile[data-tile="t1-2"]').dispatchEvent('click');
  await expect(phones[0].locator('#vote-status')).toHaveText(/Counted/);
  expect(await phones[0].evaluate(() => /** @type {any} */ (window).said)).toEqual([
    { text: 'I want fear.', volume: 1, rate: 0.7, lang: 'en-GB' },
    { text: 'I want fear.', volume: 1, rate: 0.7, lang: 'en-GB' },
    { text: 'I want fear.', volume: 1, rate: 0.7, lang: 'en-GB' },
  ]);
  // The votes per tile reach every phone (a moment later while paused): fills darken with them.
  await expect(phones[9].locator('g.tile[data-tile="t1-2"]')).toHaveAttribute('data-votes', '7');
  await expect(phones[9].locator('g.tile[data-tile="t1-1"]')).toHaveAttribute('data-votes', '3');
  expect(
    Number(await phones[9].locator('g.tile[data-tile="t1-2"] path.votes').getAttribute('fill-opacity')),
  ).toBeGreaterThan(
    Number(await phones[9].locator('g.tile[data-tile="t1-1"] path.votes').getAttribute('fill-opacity')),
  );
  await attachScreenshot('rose-audience-voted-phone', phones[0]);
  const votes = await (
    await fetch(`${server.base}/api/votes`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json();
  expect(votes.open).toMatchObject({ id: 'page-3', tally: { 't1-1': 3, 't1-2': 7 } });

  const tablet = await browser.newContext({ viewport: TABLET });
  const parts = { violin1: await tablet.newPage(), cello: await tablet.newPage() };
  for (const [id, page] of Object.entries(parts)) await page.goto(`${server.base}/view/${id}`);
  // Before the decision the next pane of page 2 is the score's own page.
  await expect(parts.violin1.locator('.sc-pane[data-role="active"]')).toHaveAttribute('data-page', '1');
  // The musicians' strip: the tempo (q = 80) and one mark per beat of the 4/4 bar.
  await expect(parts.violin1.locator('#tempo-readout')).toHaveText('♩ = 80');
  await expect(parts.violin1.locator('#beat-marks .mark')).toHaveCount(4);
  await server.control('play');
  // The start signal on the beat the performance starts on.
  await expect(parts.violin1.locator('#start-signal')).toHaveAttribute('data-signal', 'go');
  // The decision: beat 5 (page 2 starts, page 3 is prepared); strategy [1, 1]: one part plays
  // the composer's next tile's page (t1-2: 2, also the most voted), the other the most voted of
  // the rest (1).
  await expect(parts.violin1.locator('.sc-pane[data-role="active"]')).toHaveAttribute('data-page', '2', {
    timeout: 10_000,
  });
  const next = await Promise.all(
    Object.values(parts).map((p) => p.locator('.sc-pane[data-role="next"]').getAttribute('data-page')),
  );
  expect(next.sort()).toEqual(['1', '2']);
  await expect(parts.violin1.locator('.sc-pane[data-role="next"]')).toHaveAttribute('data-state', 'ready');
  await attachScreenshot('rose-part-violin1-tablet', parts.violin1);
  // The phones' granulator starts on its beat (5, playGranulator) on the server's clock: its start
  // is the beat's own time, and its first grain is scheduled at that moment on the audio clock.
  await expect
    .poll(() => phones[0].evaluate(() => /** @type {any} */ (window).scorecast.granulator.starts.length), {
      timeout: 10_000,
    })
    .toBe(1);
  const sound = await phones[0].evaluate(() => {
    const w = /** @type {any} */ (window);
    return {
      start: w.scorecast.granulator.starts[0],
      shown: w.scorecast.shown.find((/** @type {any} */ s) => s.beat === 5),
      grains: w.soundLog.starts,
    };
  });
  expect(sound.start.beat).toBe(5);
  expect(Math.abs(sound.start.serverT - sound.shown.due)).toBeLessThan(1);
  expect(Math.abs(sound.grains[0] - sound.start.at)).toBeLessThan(0.02);
  await expect
    .poll(() => phones[3].evaluate(() => /** @type {any} */ (window).soundLog.starts.length))
    .toBeGreaterThan(20);
  await attachScreenshot('rose-part-cello-tablet', parts.cello);
  await attachScreenshot('rose-audience-after-phone', phones[0]);
  await Promise.all(phones.map((p) => p.context().close()));
  await tablet.close();
});

/**
 * Two joined phones on the audience page: one that lets pages move, one that asks for reduced motion.
 * @param {import('@playwright/test').Browser} browser
 * @param {string} base
 */
async function twoPhones(browser, base) {
  const open = async (/** @type {'reduce' | 'no-preference'} */ reducedMotion) => {
    const page = await (await browser.newContext({ viewport: PHONE, reducedMotion })).newPage();
    await page.goto(`${base}/`);
    await page.locator('#join-button').click();
    return page;
  };
  return { phone: await open('no-preference'), still: await open('reduce') };
}

/** What is being animated on a page, by the class of its target. @param {import('@playwright/test').Page} page */
const moving = (page) =>
  page.evaluate(() =>
    document
      .getAnimations()
      .filter((a) => a.playState === 'running')
      .map((a) => /** @type {KeyframeEffect} */ (a.effect).target?.getAttribute('class')),
  );

test("the rose's motion: the dark disc fades, a ring swings, not for a phone that asks for reduced motion", async ({
  browser,
}) => {
  server = await startServer({ port: await freePort(), score: PACKAGE, autoplay: false });
  const { phone, still } = await twoPhones(browser, server.base);
  // Beat 0: ZScore's stage, the disc over the rose, is dark; nothing moves on a fresh page.
  await expect(phone.locator('svg.rose .rose-stage')).toHaveAttribute('opacity', '1');
  expect(await moving(phone)).toEqual([]);
  // Beat 1: the disc fades out over 2 s (on both phones: a fade moves nothing).
  // Each phone is looked at as soon as its fade begins, both at once: one after the other, on a
  // loaded machine the second phone's 2 s fade had ended before it was looked at.
  await server.control('seek', { beat: 1 });
  const fading = async (/** @type {import('@playwright/test').Page} */ page) => {
    await expect(page.locator('svg.rose .rose-stage')).toHaveAttribute('opacity', '0');
    return moving(page);
  };
  const [onPhone, onStill] = await Promise.all([fading(phone), fading(still)]);
  expect(onPhone).toContain('rose-stage');
  expect(onStill).toContain('rose-stage');
  // Beat 7: ring 1 swings into place, except where the phone asks for reduced motion.
  await server.control('seek', { beat: 7 });
  await expect.poll(() => moving(phone)).toContain('rose-ring');
  await expect(still.locator('svg.rose g.rose-ring[data-ring="1"]')).toHaveCount(1);
  expect(await moving(still)).not.toContain('rose-ring');
  await attachScreenshot('rose-motion-phone', phone);
  await phone.context().close();
  await still.context().close();
});

test('a seek lands the rose as it is at that beat; the playing tile fades under its play line; the closing picture flies in', async ({
  browser,
}, testInfo) => {
  server = await startServer({ port: await freePort(), score: PACKAGE, autoplay: false });
  const { phone, still } = await twoPhones(browser, server.base);
  await expect(phone.locator('svg.rose .rose-stage')).toHaveAttribute('opacity', '1');
  // From beat 0 straight to beat 7: the zoom and the 2 s fade of beat 1 are long over there, so
  // the rose shows their end at once; only the ring swing of beat 7 itself plays.
  await server.control('seek', { beat: 7 });
  await expect.poll(() => moving(phone)).toContain('rose-ring');
  await expect(phone.locator('svg.rose .rose-stage')).toHaveAttribute('opacity', '0');
  const seen = await moving(phone);
  expect(seen).not.toContain('rose-stage');
  expect(seen).not.toContain('rose-zoom');
  // Beat 2: each phone votes for a tile (its selection in ring 1).
  await server.control('seek', { beat: 2 });
  for (const [page, tile] of /** @type {const} */ ([
    [phone, 't1-2'],
    [still, 't1-1'],
  ])) {
    await page.locator(`g.tile[data-tile="${tile}"]`).dispatchEvent('click');
    await expect(page.locator('#vote-status')).toHaveText(/Counted/);
  }
  // Beat 9: t1-2 plays; it fades out while a play line sweeps it (no line with reduced motion).
  await server.control('seek', { beat: 9 });
  await expect(phone.locator('g.tile[data-tile="t1-2"]')).toHaveAttribute('data-state', 'playing');
  await expect.poll(() => moving(phone)).toContain('rose-playline');
  expect(await moving(phone)).toContain('tile');
  await expect(still.locator('g.tile[data-tile="t1-2"]')).toHaveAttribute('data-state', 'playing');
  expect(await still.locator('.rose-playline').count()).toBe(0);
  expect(await moving(still)).toContain('tile');
  // Beat 11: the closing picture, each phone's own selected tile outlined, flying in over 4 s.
  await server.control('seek', { beat: 11 });
  await expect(phone.locator('.rose-picture-tile')).toHaveAttribute('data-tile', 't1-2');
  await expect.poll(() => moving(phone)).toContain('rose-picture-tile');
  await expect(still.locator('.rose-picture-tile')).toHaveAttribute('data-tile', 't1-1');
  expect(await moving(still)).not.toContain('rose-picture-tile');
  await phone.waitForTimeout(1500);
  await phone.screenshot({ path: testInfo.outputPath('closing-picture-flying.png') });
  await attachScreenshot('rose-closing-picture-flying-phone', phone);
  await phone.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'), null, {
    timeout: 10_000,
  });
  await phone.screenshot({ path: testInfo.outputPath('closing-picture.png') });
  await attachScreenshot('rose-closing-picture-phone', phone);
  await phone.context().close();
  await still.context().close();
});

test('the conductor forces the next page from the console: the phones see the tile as next, the choice plays its page', async ({
  browser,
}) => {
  server = await startServer({ port: await freePort(), score: PACKAGE, autoplay: false });
  await server.control('seek', { beat: 2 });
  const phone = await (await browser.newContext({ viewport: PHONE })).newPage();
  await phone.goto(`${server.base}/`);
  await phone.locator('#join-button').click();
  await expect(phone.locator('g.tile[data-tile="t1-1"]')).toHaveAttribute('data-state', 'lit');
  const desk = await (await browser.newContext({ viewport: TABLET })).newPage();
  await desk.goto(`${server.base}/conduct`);
  await desk.fill('#token', TOKEN);
  await desk.click('#sign-in button[type=submit]');
  // The next choice (page 3) offers its tiles, each with the page it stands for.
  const hope = desk.locator('#next-choice button[data-tile="t1-1"]');
  await expect(hope).toHaveText('t1-1: page 1');
  await hope.click();
  await expect(phone.locator('g.tile[data-tile="t1-1"]')).toHaveAttribute('data-state', 'next');
  await expect(hope).toHaveAttribute('aria-pressed', 'true');
  await attachScreenshot('rose-console-next-tile-tablet', desk);
  // A tile that is not one of the choice's is refused.
  await expect(server.control('next', { tiles: ['t9-9'] })).rejects.toThrow(/400/);
  // Past the decision (beat 5): the forced tile's page (1) is played in slot 3.
  await server.control('seek', { beat: 6 });
  await expect
    .poll(() =>
      phone.evaluate(() =>
        Object.values(/** @type {any} */ (window).scorecast.state.pages ?? {}).map((p) => /** @type {any} */ (p)['3']),
      ),
    )
    .toContain(1);
  await desk.context().close();
  await phone.context().close();
});

test('the real Union Rose: the rose of 64 tiles in 8 rings at phone size, a part at tablet size', async ({
  browser,
}) => {
  test.skip(
    !existsSync(UNION_ROSE),
    `${UNION_ROSE} is absent (the real export is test material outside the repository)`,
  );
  rmSync(path.join(ROOT, UNION_ROSE_PACKAGE), { recursive: true, force: true });
  await importZScore(UNION_ROSE, path.join(ROOT, UNION_ROSE_PACKAGE));
  server = await startServer({ port: await freePort(), score: UNION_ROSE_PACKAGE, autoplay: false });
  const phone = await (await browser.newContext({ viewport: PHONE })).newPage();
  await phone.goto(`${server.base}/`);
  await phone.locator('#join-button').click();
  await expect(phone.locator('#tiles svg.rose g.tile')).toHaveCount(64);
  const rings = await phone
    .locator('#tiles svg.rose g.tile')
    .evaluateAll((gs) => new Set(gs.map((g) => /** @type {HTMLElement} */ (g).dataset.tile?.split('-')[0])).size);
  expect(rings).toBe(8);
  await attachScreenshot('union-rose-audience-start-phone', phone);
  // Bar 9: the second ring carries its words and takes votes; its instructions in three lines.
  await server.control('seek', { bar: 9, beat: 4 });
  await expect(phone.locator('g.tile[data-tile="t2-1"][role="button"]')).toHaveText('inadequate');
  await expect(phone.locator('#cue-text')).toHaveText(
    'Vote for a tile !!\nThe tile with most votes\nwill be played next',
  );
  // ZScore's centreShape zoom: rings 1 and 2 fill the view; the stage's disc has faded out.
  await expect(phone.locator('svg.rose .rose-zoom')).toHaveAttribute('transform', 'scale(2.78)');
  await expect(phone.locator('svg.rose .rose-stage')).toHaveAttribute('opacity', '0');
  // The seek started the disc's 8 s fade and the zoom: the picture once they have ended.
  await phone.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'), null, {
    timeout: 15_000,
  });
  await attachScreenshot('union-rose-audience-vote-phone', phone);
  const part = await (await browser.newContext({ viewport: TABLET })).newPage();
  await part.goto(`${server.base}/view/violin1`);
  await expect(part.locator('.sc-pane[data-role="active"]')).toHaveAttribute('data-state', 'ready');
  await expect(part.locator('#tempo-readout')).toHaveText('♩ = 80');
  await expect(part.locator('#beat-marks .mark')).toHaveCount(16);
  await expect(part.locator('#beat-marks .mark[data-on="true"]')).toHaveCount(1);
  await attachScreenshot('union-rose-violin1-tablet', part);
  // The conductor fires ZScore's preset 0 from the console: every phone shows its instructions.
  const desk = await (await browser.newContext({ viewport: TABLET })).newPage();
  await desk.goto(`${server.base}/conduct`);
  await desk.fill('#token', TOKEN);
  await desk.click('#sign-in button[type=submit]');
  await desk.locator('#presets button[data-preset="0"]').click();
  await expect(phone.locator('#cue-text')).toHaveText('get ready for\nUnion Rose\nperformance');
  await expect(phone.locator('#cue-text .line')).toHaveCount(3);
  await attachScreenshot('union-rose-console-presets-tablet', desk);
  await attachScreenshot('union-rose-audience-preset-phone', phone);
});

test('a part on a phone on its side: page images stay one above the other, each as wide as the screen', async ({
  browser,
}) => {
  server = await startServer({ port: await freePort(), score: PACKAGE, autoplay: false });
  const { views } = await (await fetch(`${server.base}/api/score`)).json();
  const part = views.find((/** @type {string} */ v) => v !== 'audience' && v !== 'score');
  const page = await (await browser.newContext({ viewport: { width: 844, height: 390 } })).newPage();
  await page.goto(`${server.base}/view/${part}`);
  const panes = page.locator('#notation .sc-pane');
  await expect(panes).toHaveCount(2);
  await expect(page.locator('#notation .sc-pane[data-state="ready"]').first()).toBeVisible();
  // Engraved parts go side by side here (part-layout.spec.js); a page image at half the width
  // would be drawn at half its size.
  await expect(page.locator('#notation')).not.toHaveAttribute('data-reflow');
  const [a, b] = await Promise.all([panes.nth(0).boundingBox(), panes.nth(1).boundingBox()]);
  expect(a?.width).toBeGreaterThan(844 * 0.9);
  expect(b?.width).toBeGreaterThan(844 * 0.9);
  expect(/** @type {{ y: number }} */ (b).y).toBeGreaterThan(
    /** @type {{ y: number, height: number }} */ (a).y + /** @type {{ height: number }} */ (a).height - 1,
  );
  // The page being played comes first, in sight under the header, also when it is the second pane.
  const active = page.locator('#notation .sc-pane[data-role="active"]');
  const { beats } = await (await fetch(`${server.base}/api/score/views/${part}`)).json();
  const second = beats.findIndex((/** @type {{ page: number }} */ x) => x.page !== beats[0].page);
  expect(second).toBeGreaterThan(0);
  for (const [beat, line] of [
    [0, 0],
    [second, 1],
  ]) {
    await server.control('seek', { beat });
    await expect(active).toHaveAttribute('data-line', String(line));
    await expect(active).toHaveAttribute('data-state', 'ready');
    const box = /** @type {{ y: number, height: number }} */ (await active.boundingBox());
    expect(box.y + box.height).toBeLessThanOrEqual(390);
  }
  await attachScreenshot('zscore-part-phone-landscape', page);
  await page.context().close();
});
