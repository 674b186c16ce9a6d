// An open-form piece (scores/open-form: intro, pitch, rhythm, chosen live) in real browsers: the
// console shows the sections and the offer, chooses the next one, and the phones and a part see
// the offer, the choice, and the chosen section start on the beat after the intro's last: bar 2
// is followed by bar 7 (rhythm), never by bar 3 (pitch, the default). A server restarted from its
// save file mid-section goes on in the same section, at the beat the save implies.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { closeOtherContexts } from './contexts.js';
import { freePort, startServer, TOKEN } from './server.js';

// Pages opened with browser.newPage() or newContext() closed after each test (contexts.js).
test.afterEach(closeOtherContexts);

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), score: 'scores/open-form', autoplay: false });
});
test.afterEach(async () => {
  await server.stop();
});

/**
 * Every bar the page shows, in order, from now on (a repeated bar once).
 * @param {import('@playwright/test').Page} page
 */
async function recordBars(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const bar = /** @type {HTMLElement} */ (document.getElementById('bar'));
    w.barsSeen = [];
    const note = () => {
      if (w.barsSeen.at(-1) !== bar.textContent) w.barsSeen.push(bar.textContent);
    };
    note();
    new MutationObserver(note).observe(bar, { childList: true, characterData: true, subtree: true });
  });
  return async () => /** @type {string[]} */ (await page.evaluate(() => /** @type {any} */ (window).barsSeen));
}

test('the console chooses the next section; phones and a part see the offer, the choice, and the jump on the right beat', async ({
  browser,
}) => {
  const console_ = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const phones = await Promise.all([0, 1].map(() => browser.newPage({ viewport: { width: 390, height: 844 } })));
  const violin = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await console_.goto(`${server.base}/conduct`);
  await console_.fill('#token', TOKEN);
  await console_.click('#sign-in button[type=submit]');
  for (const p of phones) await p.goto(`${server.base}/`);
  await violin.goto(`${server.base}/view/violin`);

  // Before playing: the intro, and the conductor chooses what follows.
  await expect(console_.getByTestId('sections-now')).toHaveText('Now: Intro');
  await expect(console_.getByTestId('sections-next')).toHaveText('Next: Pitch or Rhythm? The conductor chooses');
  for (const p of [...phones, violin]) {
    await expect(p.getByTestId('section-now')).toHaveText('Now: Intro');
    await expect(p.getByTestId('section-next')).toHaveText('Next: Pitch or Rhythm? The conductor chooses');
  }
  const bars = await Promise.all(phones.map(recordBars));

  await console_.click('#play');
  await expect.poll(async () => (await server.snapshot()).state.playback).toBe('playing');
  // Chosen during the intro (bars 1-2, 4 s): every page shows the choice at once.
  await console_.click('#section-rhythm');
  await expect(console_.locator('#section-rhythm')).toHaveAttribute('aria-pressed', 'true');
  for (const p of [...phones, violin])
    await expect(p.getByTestId('section-next')).toHaveText('Next: Rhythm, chosen by the conductor');
  // The console's timeline: the order taken so far and the section chosen next.
  const steps = console_.locator('#timeline .tl-order li');
  await expect(steps).toHaveText(['Intro', 'next: Rhythm']);
  expect((await server.snapshot()).state.section.chosen).toEqual({ section: 'rhythm', by: 'conductor' });

  // The intro's last beat is followed by rhythm's first: bar 7, beat 1.
  for (const p of [...phones, violin]) {
    await expect(p.getByTestId('section-now')).toHaveText('Now: Rhythm', { timeout: 15_000 });
    await expect(p.getByTestId('section-next')).toHaveText('Next: Pitch or End? The first player to claim it chooses');
  }
  await expect(console_.getByTestId('sections-now')).toHaveText('Now: Rhythm');
  await expect(console_.getByTestId('sections-order')).toHaveText('Order: Intro (start) → Rhythm (the conductor)');
  // The timeline shows the order taken, not the declared one (pitch, bars 3-6, was skipped).
  await expect(steps).toHaveText(['Intro', 'Rhythm']);
  await expect(steps.nth(1)).toHaveAttribute('data-at', 'now');
  const state = (await server.snapshot()).state;
  expect(state.section).toMatchObject({ id: 'rhythm', round: 1, first: 24 });
  expect(state.bar).toBeGreaterThanOrEqual(7);
  for (const seen of bars) {
    const list = await seen();
    // What the phone showed: bars 1 and 2, then 7 straight after; pitch's bars 3-6 never.
    const i = list.indexOf('2');
    expect(i, `bars seen: ${list.join(' ')}`).toBeGreaterThanOrEqual(0);
    expect(list[i + 1], `bars seen: ${list.join(' ')}`).toBe('7');
    expect(list.filter((b) => ['3', '4', '5', '6'].includes(b ?? ''))).toEqual([]);
  }
  // The composer's preview, opened after the choice was played, shows the same order taken; the
  // next section chosen from the console appears on it as the one chosen next.
  const preview = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await preview.goto(`${server.base}/preview#token=${TOKEN}`);
  const previewSteps = preview.locator('#timeline .tl-order li');
  await expect(previewSteps).toHaveText(['Intro', 'Rhythm']);
  await expect(previewSteps.nth(1)).toHaveAttribute('data-at', 'now');
  await console_.click('#section-pitch');
  await expect(previewSteps).toHaveText(['Intro', 'Rhythm', 'next: Pitch']);
  await expect(previewSteps.nth(2)).toHaveAttribute('data-by', 'conductor');
  await test.info().attach('open-form-console', { body: await console_.screenshot(), contentType: 'image/png' });
  await test.info().attach('open-form-phone', { body: await phones[0].screenshot(), contentType: 'image/png' });
});

test('a player claims a first-come choice and chooses; the console overrides it', async ({ browser }) => {
  const console_ = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await console_.goto(`${server.base}/conduct`);
  await console_.fill('#token', TOKEN);
  await console_.click('#sign-in button[type=submit]');
  await phone.goto(`${server.base}/`);
  await console_.fill('#seek-bar', '7');
  await console_.click('#seek button[type=submit]');
  await expect(phone.getByTestId('section-now')).toHaveText('Now: Rhythm');
  const round = (await server.snapshot()).state.section.round;
  // A player's tablet signs in with the conductor's token (doc/open-form.md).
  const post = (/** @type {string} */ path, /** @type {object} */ body) =>
    fetch(`${server.base}/api/section/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('claim', { part: 'cello', round })).status).toBe(200);
  await expect(phone.getByTestId('section-next')).toHaveText('Next: Pitch or End? Cello chooses');
  expect((await post('choose', { part: 'cello', section: 'pitch', round })).status).toBe(200);
  await expect(phone.getByTestId('section-next')).toHaveText('Next: Pitch, chosen by cello');
  await expect(console_.locator('#section-pitch')).toHaveAttribute('aria-pressed', 'true');
  await console_.click('#section-end');
  await expect(phone.getByTestId('section-next')).toHaveText('Next: End, chosen by the conductor');
  expect((await post('choose', { part: 'cello', section: 'pitch', round })).status).toBe(409);
});

test('thumbs from several phones move the meter and the overlay bands on a part’s page; the violin chooses the next section from its page, with its key', async ({
  browser,
}) => {
  const keyOf = async (/** @type {string} */ part) =>
    /** @type {{ key: string, url: string }} */ (
      await (
        await fetch(`${server.base}/api/part-key/${part}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()
    );
  const violinKey = await keyOf('violin');
  const violin = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  const cello = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  const phones = await Promise.all([0, 1, 2].map(() => browser.newPage({ viewport: { width: 390, height: 844 } })));
  await violin.goto(`${server.base}${violinKey.url}`);
  // The key is kept, and taken off the address bar.
  await expect.poll(() => new URL(violin.url()).hash).toBe('');
  await cello.goto(`${server.base}/view/cello`);
  for (const p of phones) {
    await p.goto(`${server.base}/`);
    await p.click('#join-button');
  }

  // The intro shows thumbs and the meter; the musicians see the meter at rest.
  for (const p of phones) await expect(p.getByTestId('thumbs')).toBeVisible();
  await expect(violin.getByTestId('meter')).toBeVisible();
  await expect(violin.getByTestId('thumbs')).toBeHidden();
  await expect(violin.getByTestId('meter')).toHaveAttribute('data-value', '0');
  // The intro's overlays: the violin's dynamics band rests at the middle of its range.
  await expect(violin.getByTestId('overlay-dynamics')).toHaveAttribute('data-value', '0.5');
  await expect(violin.getByTestId('overlay-timbre')).toHaveAttribute('data-value', '0.3');

  // Two thumbs up and one down: the room is +1/3, and the parts' meter moves towards it.
  await phones[0].click('#thumb-up');
  await phones[1].click('#thumb-up');
  await phones[2].click('#thumb-down');
  await expect
    .poll(async () => Number(await violin.getByTestId('meter').getAttribute('data-value')), { timeout: 10_000 })
    .toBeGreaterThan(0.2);
  // The violin's dynamics band follows the meter (0..1 over -1..1); the cello has no such band.
  await expect
    .poll(async () => Number(await violin.getByTestId('overlay-dynamics').getAttribute('data-value')))
    .toBeGreaterThan(0.6);
  expect(await violin.getByTestId('overlay-dynamics').getAttribute('data-source')).toBe('meter');
  await expect(cello.getByTestId('overlay-dynamics')).toHaveCount(0);
  await expect(cello.getByTestId('overlay-timbre')).toHaveAttribute('data-value', '0.3');
  const value = Number(await cello.getByTestId('meter').getAttribute('data-value'));
  expect(value).toBeGreaterThan(0);
  expect(value).toBeLessThanOrEqual(0.34);
  // The phones see it too; one phone changing its mind replaces its voice, it does not add one.
  await expect
    .poll(async () => Number(await phones[2].getByTestId('meter').getAttribute('data-value')))
    .toBeGreaterThan(0);
  await phones[2].waitForTimeout(600);
  await phones[2].click('#thumb-up');
  await expect
    .poll(async () => Number(await violin.getByTestId('meter').getAttribute('data-value')), { timeout: 10_000 })
    .toBeGreaterThan(0.6);

  // Pitch: the violin chooses what follows, from its page; the cello's page offers nothing.
  await server.control('seek', { bar: 3 });
  await expect(violin.getByTestId('section-now')).toHaveText('Now: Pitch (violin leads)');
  await expect(violin.getByTestId('section-choice')).toBeVisible();
  // Pitch's overlay: the violin's pitch band, from the meter between 0.2 and 0.8; the intro's are gone.
  await expect(violin.getByTestId('overlay-pitch')).toBeVisible();
  await expect(violin.getByTestId('overlay-dynamics')).toHaveCount(0);
  expect(Number(await violin.getByTestId('overlay-pitch').getAttribute('data-value'))).toBeGreaterThan(0.5);
  await expect(cello.getByTestId('part-overlays')).toBeHidden();
  await expect(cello.getByTestId('section-choice')).toBeHidden();
  await violin.getByTestId('choose-rhythm').click();
  for (const p of [violin, cello, phones[0]])
    await expect(p.getByTestId('section-next')).toHaveText('Next: Rhythm, chosen by violin');
  expect((await server.snapshot()).state.section.chosen).toEqual({ section: 'rhythm', by: 'part:violin' });
  await expect(violin.getByTestId('section-choice')).toBeHidden();

  // Rhythm shows the meter but no thumbs.
  await server.control('seek', { bar: 7 });
  await expect(phones[0].getByTestId('section-now')).toHaveText('Now: Rhythm');
  await expect(phones[0].getByTestId('thumbs')).toBeHidden();
  await expect(phones[0].getByTestId('meter')).toBeVisible();
  await test.info().attach('open-form-meter-violin', { body: await violin.screenshot(), contentType: 'image/png' });
});

test('the note buttons show on the phones in the section that has them, and a press sounds a note on the phone', async ({
  browser,
}) => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(`${server.base}/`);
  await phone.click('#join-button');
  // The intro: thumbs, no notes; every phone sees its user number.
  await expect(phone.getByTestId('section-now')).toHaveText('Now: Intro');
  await expect(phone.getByTestId('notes')).toBeHidden();
  await expect(phone.getByTestId('user-number')).toHaveText(/^You are no\. [1-9][0-9]{2}$/);
  // Rhythm switches the notes on.
  await server.control('seek', { bar: 7 });
  await expect(phone.getByTestId('section-now')).toHaveText('Now: Rhythm');
  await expect(phone.getByTestId('notes')).toBeVisible();
  await expect.poll(() => phone.evaluate(() => /** @type {any} */ (window).scorecast.sound.state)).toBe('running');
  await phone.getByTestId('note-up').click();
  await phone.waitForTimeout(300);
  await phone.getByTestId('note-up').click();
  await phone.waitForTimeout(300);
  await phone.getByTestId('note-down').click();
  const notes = await phone.evaluate(() => /** @type {any} */ (window).scorecast.notes);
  expect(notes.map((/** @type {any} */ n) => [n.direction, n.step, n.engine])).toEqual([
    ['up', 1, 'synth'],
    ['up', 2, 'synth'],
    ['down', 1, 'synth'],
  ]);
  expect(notes[0].hz).toBeCloseTo(440 * 2 ** (1 / 12), 3);
  // Scheduled on the running context, just ahead of its clock.
  const now = await phone.evaluate(() => /** @type {any} */ (window).scorecast.notes.at(-1).at);
  expect(now).toBeGreaterThan(0);
  // Back to the intro: the buttons go.
  await server.control('seek', { bar: 1 });
  await expect(phone.getByTestId('section-now')).toHaveText('Now: Intro');
  await expect(phone.getByTestId('notes')).toBeHidden();
});

test('the console shows each part’s link and QR code; the violin’s link opens a page that chooses for the violin', async ({
  browser,
}) => {
  const console_ = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await console_.goto(`${server.base}/conduct`);
  await console_.fill('#token', TOKEN);
  await console_.click('#sign-in button[type=submit]');
  const violinLink = console_.getByTestId('part-link-violin');
  await expect(violinLink).toBeVisible();
  await expect(console_.getByTestId('part-link-cello')).toBeVisible();
  // The QR code is drawn (an SVG from the server, no CDN) and the link is this server's address.
  await expect
    .poll(() => violinLink.locator('img').evaluate((img) => /** @type {HTMLImageElement} */ (img).naturalWidth))
    .toBeGreaterThan(0);
  const href = /** @type {string} */ (await violinLink.locator('a').getAttribute('href'));
  expect(href).toMatch(new RegExp(`^${server.base}/view/violin#key=[A-Za-z0-9_-]{22}$`));
  // Opened by loopback: the console says a tablet cannot follow it.
  await expect(console_.getByTestId('part-links-loopback')).toBeVisible();

  const tablet = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await tablet.goto(href);
  await expect.poll(() => new URL(tablet.url()).hash).toBe('');
  await server.control('seek', { bar: 3 });
  await expect(tablet.getByTestId('section-now')).toHaveText('Now: Pitch (violin leads)');
  await tablet.getByTestId('choose-end').click();
  await expect(tablet.getByTestId('section-next')).toHaveText('Next: End, chosen by violin');
});

/**
 * Every state the page's link shows, in order, from now on (a repeated state once).
 * @param {import('@playwright/test').Page} page
 */
async function recordLink(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const link = /** @type {HTMLElement} */ (document.getElementById('link'));
    w.linkSeen = [];
    const note = () => {
      if (w.linkSeen.at(-1) !== link.dataset.state) w.linkSeen.push(link.dataset.state);
    };
    note();
    new MutationObserver(note).observe(link, { attributes: true, attributeFilter: ['data-state'] });
  });
  return async () => /** @type {string[]} */ (await page.evaluate(() => /** @type {any} */ (window).linkSeen));
}

/**
 * Whether the page has drawn a beat after `beat` (not a count-in click) since wall time `since`.
 * @param {import('@playwright/test').Page} page
 * @param {number} beat
 * @param {number} since
 */
function drewBeatAfter(page, beat, since) {
  return page.evaluate(
    ([b, t]) =>
      /** @type {any} */ (window).scorecast.shown.some(
        (/** @type {any} */ s) => s.beat > b && s.count === 0 && s.at >= t,
      ),
    [beat, since],
  );
}

test('a restart mid-section resumes in the same section at the beat its save implies, with the order taken; the pages reconnect to it and play on', async ({
  browser,
}) => {
  await server.stop();
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'scorecast-open-form-')), 'state.json');
  const port = await freePort();
  server = await startServer({ port, score: 'scores/open-form', autoplay: false, stateFile });
  const violinKey = /** @type {{ url: string }} */ (
    await (await fetch(`${server.base}/api/part-key/violin`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()
  );
  const violin = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await violin.goto(`${server.base}${violinKey.url}`);
  await phone.goto(`${server.base}/`);
  await expect(violin.getByTestId('section-now')).toHaveText('Now: Intro');

  // Played from the start: the intro (nobody chooses: pitch, its default), then the violin chooses
  // rhythm from its page during pitch, so the performance is in a section neither first nor default.
  await server.control('play');
  await expect(violin.getByTestId('section-now')).toHaveText('Now: Pitch (violin leads)', { timeout: 15_000 });
  await violin.getByTestId('choose-rhythm').click();
  await expect(phone.getByTestId('section-next')).toHaveText('Next: Rhythm, chosen by violin');
  // Rhythm is bars 7-10 (beats 24-39). Two beats into it, slowed to a beat every 2 s, so that the
  // restart (1-2 s alone, 10 s and more on a loaded machine) lands well inside it: 28 s are left.
  await expect.poll(async () => (await server.snapshot()).state.beat, { timeout: 20_000 }).toBeGreaterThanOrEqual(26);
  await server.control('tempo', { rate: 0.25 });
  const before = (await server.snapshot()).state;
  expect(before.section).toMatchObject({ id: 'rhythm', first: 24, endsAt: 40 });
  expect(before.beat).toBeGreaterThanOrEqual(26);
  expect(before.beat).toBeLessThan(40);
  const order = [
    { section: 'intro', by: 'start', name: 'Intro' },
    { section: 'pitch', by: 'default', name: 'Pitch' },
    { section: 'rhythm', by: 'part:violin', name: 'Rhythm' },
  ];
  expect(before.section.order).toEqual(order);
  const links = await Promise.all([violin, phone].map(recordLink));

  // SIGTERM flushes the save: the beat sounding, when it sounded, the rate, the sections' record.
  await server.stop();
  const saved = JSON.parse(fs.readFileSync(stateFile, 'utf8')).payload.performance;
  expect(saved).toMatchObject({ transport: 'playing', rate: 0.25 });
  expect(saved.sections).toMatchObject({ current: 'rhythm', chosen: null });
  const restarted = Date.now();
  server = await startServer({ port, score: 'scores/open-form', autoplay: false, stateFile });
  const asked = Date.now();
  const after = (await server.snapshot()).state;
  const answered = Date.now();

  // The same section, round, offer and order taken.
  expect(after.playback).toBe('playing');
  expect(after.section).toEqual(before.section);
  // The right beat: the one the save implies by now (q = 120 at a quarter speed: 2 s a beat from
  // the saved beat's time), inside rhythm, never back to its first beat or the piece's.
  const implied = (/** @type {number} */ t) => saved.beat + Math.floor(((t - saved.beatT) * saved.rate) / 500);
  expect(after.beat).toBeGreaterThanOrEqual(before.beat);
  expect(after.beat).toBeGreaterThanOrEqual(implied(asked));
  expect(after.beat).toBeLessThanOrEqual(implied(answered));
  expect(after.beat).toBeLessThan(40);

  // The pages lost the server and came back to it: rhythm, its offer, and its beats going on.
  for (const [i, page] of [violin, phone].entries()) {
    await expect
      .poll(
        async () => {
          const seen = await links[i]();
          return seen.length > 1 && seen.at(-1) === 'live';
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await expect(page.getByTestId('section-now')).toHaveText('Now: Rhythm');
    await expect(page.getByTestId('section-next')).toHaveText(
      'Next: Pitch or End? The first player to claim it chooses',
    );
    await expect.poll(() => drewBeatAfter(page, after.beat, restarted), { timeout: 15_000 }).toBe(true);
  }
  // A phone that comes in after the restart sees the same.
  const late = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await late.goto(`${server.base}/`);
  await expect(late.getByTestId('section-now')).toHaveText('Now: Rhythm');
  await expect.poll(() => drewBeatAfter(late, after.beat, restarted), { timeout: 15_000 }).toBe(true);
  const now = (await server.snapshot()).state;
  expect(now.section.id).toBe('rhythm');
  expect(now.beat).toBeGreaterThan(after.beat);
});
