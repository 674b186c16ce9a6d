// The composer preview (`scorecast preview DIR`, `/preview`): every view in its frame, playback
// and scrubber, and hot reload as the composer saves: each open view updates in place at the
// same position, a broken package shows its problems while the last good version keeps playing.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { freePort, startPreview } from './server.js';
import { previewStateFile } from '../server/commands/preview.js';

/** @typedef {Awaited<ReturnType<typeof startPreview>>} Preview */
/** @typedef {import('@playwright/test').Page} Page */

const DEMO = fileURLToPath(new URL('../scores/demo', import.meta.url));
const VIEWS = ['violin1', 'violin2', 'viola', 'cello', 'score'];

/** @type {Preview} */
let server;
let dir = '';
test.beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sc-preview-'));
  cpSync(DEMO, dir, { recursive: true });
  server = await startPreview({ port: await freePort(), dir });
});
test.afterEach(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(previewStateFile(dir), { force: true });
});

/**
 * Save a package file as an editor would.
 * @param {string} name
 * @param {(text: string) => string} change
 */
function edit(name, change) {
  const file = path.join(dir, name);
  const before = readFileSync(file, 'utf8');
  const after = change(before);
  expect(after, `the edit of ${name} changes it`).not.toBe(before);
  writeFileSync(file, after);
}

/** @param {Page} page @param {string} view */
const frameOf = (page, view) => {
  const frame = page.frame({ url: view === 'audience' ? `${server.base}/` : `${server.base}/view/${view}` });
  if (!frame) throw new Error(`no frame for ${view}`);
  return frame;
};

/** @param {Page} page */
const held = (page) =>
  page.evaluate(() => {
    const sc = /** @type {any} */ (window).scorecast;
    return {
      epoch: /** @type {string} */ (sc.epoch),
      history: /** @type {Array<{ epoch: string, playback: string, bar: number }>} */ (sc.history),
    };
  });

/**
 * Wait for the next version of the score in the page, and check the performance went on from
 * where it was: the state just before and the first one after in the same playback state are
 * within a bar of each other.
 * @param {Page} page
 * @param {string} epoch  the version before the edit
 * @param {number} timeout
 */
async function expectReloadKeepsPosition(page, epoch, timeout) {
  await expect.poll(async () => (await held(page)).epoch, { timeout }).not.toBe(epoch);
  // The new version starts as it was left (a playing one resumes at once): give it that moment.
  await expect
    .poll(
      async () => {
        const { history } = await held(page);
        const last = history.findLastIndex((s) => s.epoch === epoch);
        const before = history[last];
        const after = history.slice(last + 1).find((s) => s.playback === before?.playback);
        return before && after ? Math.abs(after.bar - before.bar) : null;
      },
      { timeout: 3000 },
    )
    .toBeLessThanOrEqual(1);
}

/** @param {string} name @param {Page} page */
async function screenshot(name, page) {
  const file = test.info().outputPath(`${name}.png`);
  await page.screenshot({ path: file });
  await test.info().attach(name, { path: file, contentType: 'image/png' });
}

/**
 * Serialized notation drawn in a view's frame.
 * @param {Page} page @param {string} view
 */
const notationOf = (page, view) =>
  frameOf(page, view).evaluate(() => document.getElementById('notation')?.innerHTML ?? '');

test('frames, playback, scrubber; edits appear in every open view at the same position; problems shown while the last good version plays', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(server.url);
  // The token went from the fragment to this tab: the address bar no longer shows it.
  expect(page.url()).toBe(`${server.base}/preview`);
  await expect(page.locator('#score-title')).toHaveText('First Light');
  await expect(page.locator('#package')).toContainText(dir);
  await expect(page.locator('#link')).toHaveText(/live/);

  // The audience in a phone-sized frame, every part and the full score, notation drawn.
  await expect(page.locator('.pv-frame')).toHaveCount(1 + VIEWS.length);
  const phone = page.locator('.pv-frame[data-view="audience"] iframe');
  await expect(phone).toHaveAttribute('width', '390');
  await expect(phone).toHaveAttribute('height', '844');
  const audience = page.frameLocator('.pv-frame[data-view="audience"] iframe');
  await expect(audience.locator('#cue-text')).toHaveText('First Light. Listen.');
  for (const view of VIEWS) {
    const frame = page.frameLocator(`.pv-frame[data-view="${view}"] iframe`);
    await expect(frame.locator('#view-name')).toHaveText(view);
    await expect(frame.locator('#notation g.note').first()).toBeAttached({ timeout: 15_000 });
  }
  // The composer joins in the phone, as the audience does (this is what unlocks its sound).
  await audience.locator('#join-button').click();
  await expect(audience.locator('#join')).toBeHidden();
  // The timeline: every bar, the cues and the vote window.
  await expect(page.locator('.tl-bar')).toHaveCount(32);
  await expect(page.locator('.tl-cue-vote')).toHaveCount(1);
  await expect(page.locator('.tl-cue-audio')).toHaveCount(1);
  // The rehearsal mark A (the demo's first), the time signature and the tempo at the start.
  await expect(page.locator('.tl-section').first()).toHaveText('[A] 4/4 ♩ = 96');

  // Play: the page, the server and the views agree.
  await page.locator('#play').click();
  await expect(page.locator('#playback-state')).toHaveText('playing');
  expect((await server.snapshot()).state.playback).toBe('playing');
  await expect(audience.locator('#playback-state')).toHaveText('playing');
  await expect(page.locator('#result')).toHaveText('Play: done');

  // Drag the scrubber from bar 20 back to bar 11: it seeks to bar 11 on release. (Bar 11, well
  // past where playing has got to: a seek while playing lands on the beat grid a beat or so later,
  // and until then the performance plays on from bar 1.)
  const track = /** @type {{ x: number, y: number, width: number, height: number }} */ (
    await page.locator('#scrubber').boundingBox()
  );
  const xOfBar = async (/** @type {number} */ bar) => {
    const tick = /** @type {{ x: number }} */ (await page.locator(`.tl-bar[data-bar="${bar}"]`).boundingBox());
    return tick.x + 0.5;
  };
  const y = track.y + track.height / 2;
  await page.mouse.move(await xOfBar(20), y);
  await page.mouse.down();
  await page.mouse.move(await xOfBar(15), y, { steps: 5 });
  await expect(page.locator('.tl-ghost')).toHaveText('Bar 15, beat 1');
  await page.mouse.move(await xOfBar(11), y, { steps: 5 });
  await page.mouse.up();
  await expect(page.locator('.tl-ghost')).toBeHidden();
  // The seek lands on bar 11 or 12 (a held-up page may drag after play has passed bar 12: then
  // the position comes back to them).
  await expect
    .poll(
      async () => {
        const { bar } = (await server.snapshot()).state;
        return bar >= 11 && bar <= 12;
      },
      { timeout: 5000 },
    )
    .toBe(true);
  await expect(page.locator('#bar')).toHaveText(/^1[12]$/);
  await expect(audience.locator('#bar')).toHaveText(/^1[12]$/);
  expect((await server.snapshot()).state.playback).toBe('playing');
  // The playhead is drawn where the position is.
  const head = /** @type {{ x: number }} */ (await page.locator('.tl-head').boundingBox());
  expect(head.x).toBeGreaterThan((await xOfBar(11)) - 2);
  expect(head.x).toBeLessThan(await xOfBar(13));

  // From the keyboard: Home, then a bar at a time.
  await page.locator('#scrubber').focus();
  await page.keyboard.press('Home');
  await expect.poll(async () => (await server.snapshot()).state.bar, { timeout: 10_000 }).toBe(1);
  // As a composer would: the arrows once the playhead shows the jump landed (the server has it
  // as soon as it is asked; the page at its downbeat, up to a beat and 300 ms later).
  await expect(page.locator('#scrubber')).toHaveAttribute('aria-valuetext', /^Bar 1, beat \d$/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  // The second seek is sent once the first has its answer, and each lands on a downbeat at least
  // 300 ms ahead (a beat is 625 ms here): in CI at load the page showed "Seek to bar 3, beat 1:
  // done" after 3 s had passed with the server still at bar 2. What is tested is two presses, two
  // bars, not how fast: 10 s.
  await expect.poll(async () => (await server.snapshot()).state.bar, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  await expect(page.locator('#scrubber')).toHaveAttribute('aria-valuetext', /^Bar [34], beat \d$/);
  await screenshot('preview-playing', page);

  // Save a new cue text (audience and violin I): the frames update in place (no page reload in
  // them), at the same position, still playing.
  await Promise.all(
    ['audience', 'violin1'].map((v) =>
      frameOf(page, v).evaluate(() => {
        /** @type {any} */ (window).kept = true;
      }),
    ),
  );
  let { epoch } = await held(page);
  edit('score.yaml', (t) =>
    t
      .replace('text: "First Light. Listen."', 'text: "First Light, edited."')
      .replace('set: { text: "p dolce: the theme is yours" }', 'set: { text: "p dolce: edited for violin I" }'),
  );
  await expect(audience.locator('#cue-text')).toHaveText('First Light, edited.', { timeout: 10_000 });
  await expect(page.frameLocator('.pv-frame[data-view="violin1"] iframe').locator('#cue-text')).toHaveText(
    'p dolce: edited for violin I',
  );
  await expectReloadKeepsPosition(page, epoch, 1000);
  for (const v of ['audience', 'violin1'])
    expect(await frameOf(page, v).evaluate(() => /** @type {any} */ (window).kept)).toBe(true);
  expect((await server.snapshot()).state.playback).toBe('playing');

  // Save a changed note (violin I, bar 2): re-engraved; the part and the full score redraw their
  // notation for the new version, in place, at the same position.
  const before = { violin1: await notationOf(page, 'violin1'), score: await notationOf(page, 'score') };
  await frameOf(page, 'violin1').evaluate(() => {
    /** @type {HTMLElement} */ (document.querySelector('#notation .sc-notation')).dataset.old = 'true';
  });
  ({ epoch } = await held(page));
  edit('quartet.musicxml', (t) => {
    const bar2 = t.indexOf('<measure number="2">');
    const note = '<note><pitch><step>E</step><octave>5</octave></pitch><duration>4</duration>';
    const at = t.indexOf(note, bar2);
    return `${t.slice(0, at)}<note><pitch><step>C</step><octave>6</octave></pitch><duration>4</duration>${t.slice(at + note.length)}`;
  });
  await expectReloadKeepsPosition(page, epoch, 60_000);
  const violin1 = page.frameLocator('.pv-frame[data-view="violin1"] iframe');
  await expect(violin1.locator('#notation .sc-notation[data-old]')).toHaveCount(0, { timeout: 10_000 });
  await expect(violin1.locator('#notation g.note').first()).toBeAttached({ timeout: 10_000 });
  await expect.poll(() => notationOf(page, 'violin1'), { timeout: 10_000 }).not.toBe(before.violin1);
  await expect.poll(() => notationOf(page, 'score'), { timeout: 10_000 }).not.toBe(before.score);
  expect(await frameOf(page, 'violin1').evaluate(() => /** @type {any} */ (window).kept)).toBe(true);
  expect((await server.snapshot()).state.playback).toBe('playing');
  const good = readFileSync(path.join(dir, 'score.yaml'), 'utf8');

  // Save a cue at a bar the piece does not have: refused, its problem shown, and the last good
  // version plays on (same epoch, beats still coming).
  ({ epoch } = await held(page));
  edit('score.yaml', (t) => t.replace('- { bar: 1, view: cello,', '- { bar: 99, view: cello,'));
  await expect(page.locator('#problems')).toBeVisible({ timeout: 10_000 });
  await expect(page.locator('#problems [role="alert"]')).toContainText('The last good version keeps playing');
  await expect(page.locator('#problem-list')).toContainText(/no bar 99/);
  const playing = await server.snapshot();
  expect(playing.epoch).toBe(epoch);
  expect(playing.state.playback).toBe('playing');
  await expect.poll(async () => (await server.snapshot()).seq, { timeout: 5000 }).toBeGreaterThan(playing.seq);
  await expect(page.locator('#playback-state')).toHaveText('playing');
  await screenshot('preview-problem', page);

  // Save invalid YAML: that problem replaces the last one.
  edit('score.yaml', (t) => t.replace('title: First Light', 'title: [First Light'));
  await expect(page.locator('#problem-list')).toContainText(/score\.yaml/, { timeout: 10_000 });
  await expect(page.locator('#problem-list')).not.toContainText(/no bar 99/);
  expect((await server.snapshot()).epoch).toBe(epoch);

  // Save the fix: the problems go, the fixed version loads where the performance is.
  writeFileSync(path.join(dir, 'score.yaml'), good);
  await expect(page.locator('#problems')).toBeHidden({ timeout: 10_000 });
  await expectReloadKeepsPosition(page, epoch, 5000);
  expect((await server.snapshot()).state.playback).toBe('playing');
  await expect(audience.locator('#cue-text')).not.toBeEmpty();
});

test('without the token: a sign-in form; a wrong token gets a clear 401 message and changes nothing', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const before = await server.snapshot();
  await page.goto(`${server.base}/preview#token=not-the-token`);
  await expect(page.locator('#sign-in')).toBeVisible();
  await expect(page.locator('#sign-in-error')).toHaveText(/That token is not right/);
  await expect(page.locator('iframe')).toHaveCount(0);
  await expect(page.locator('#play')).toHaveCount(0);
  await page.locator('#token').fill('still-not-the-token');
  await page.locator('#sign-in button[type="submit"]').click();
  await expect(page.locator('#sign-in-error')).toHaveText(/That token is not right/);
  await screenshot('preview-sign-in', page);
  // Nothing changed on the server, and the refused token is not kept for the next visit.
  const after = await server.snapshot();
  expect(after.epoch).toBe(before.epoch);
  expect(after.seq).toBe(before.seq);
  expect(after.state.playback).toBe('stopped');
  await page.goto(`${server.base}/preview`);
  await expect(page.locator('#sign-in-error')).toHaveText('');
  // The right one signs in.
  await page.locator('#token').fill(server.token);
  await page.keyboard.press('Enter');
  await expect(page.locator('#score-title')).toHaveText('First Light');
  await expect(page.locator('.pv-frame')).toHaveCount(1 + VIEWS.length);
});
