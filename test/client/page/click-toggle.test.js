// The click toggle on a part's page (click-toggle.js): what the player is told beside it while the
// click is on and held silent, read from the output mapping's trust (a read that takes no reading).

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { CLICK_WAIT_POLL_MS, clickToggle, clickWaitNotice } from '../../../client/src/page/click-toggle.js';
import { FakeClock } from '../fakes.js';

describe('clickWaitNotice', () => {
  it('says what the click waits for while it is held, nothing once clicks may sound', () => {
    const settle = /^Click waits a few seconds for the sound output to settle/;
    expect(clickWaitNotice({ trusted: false, why: 'settling' })).toMatch(settle);
    expect(clickWaitNotice({ trusted: false, why: 'no-timestamps' })).toMatch(settle);
    expect(clickWaitNotice({ trusted: false, why: 'stepped' })).toMatch(/^Click waits: the sound output moved/);
    for (const why of /** @type {const} */ (['trusted', 'waited', 'unmeasured'])) {
      expect(clickWaitNotice({ trusted: true, why })).toBeNull();
    }
    // No sound running: the page's "Tap to resume sound" speaks then.
    expect(clickWaitNotice(null)).toBeNull();
  });
});

/**
 * A part's player strip with its toggle, and a sound whose output mapping says `trust.now`.
 * @param {{ state?: string }} [o]
 */
function strip({ state = 'running' } = {}) {
  const { window } = new JSDOM(
    '<p class="player-strip"><button id="click-toggle" type="button" aria-pressed="false" hidden>Click</button></p>',
  );
  const document = window.document;
  const time = new FakeClock();
  const trust = {
    /** @type {import('../../../client/src/sound/audio-latency.js').OutputTrust} */
    now: { trusted: false, why: 'settling' },
    asked: 0,
  };
  const context = /** @type {any} */ ({ state });
  const sound = {
    audio: { unlock: async () => {}, context },
    output: {
      describe: () => /** @type {const} */ ({ source: 'timestamp', seconds: 0.03, offsetMs: 0 }),
      trust: () => {
        trust.asked += 1;
        return trust.now;
      },
    },
  };
  const click = clickToggle({ document, viewName: 'violin1', sound, time, log: () => {}, changed: () => {} });
  const toggle = /** @type {HTMLElement} */ (document.getElementById('click-toggle'));
  /** How many times the note's words were written. */
  const writes = { n: 0 };
  new window.MutationObserver((records) => {
    writes.n += records.length;
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
  const note = () => document.getElementById('click-wait');
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { document, time, trust, context, click, toggle, note, writes, flush };
}

describe('the click held silent, told beside the toggle', () => {
  it('shows while the click is on and the mapping settles, as a polite status written once; gone once trusted', async () => {
    const s = strip();
    // The live region is there, empty, before it has anything to say: a region added with its
    // first words is missed by some screen readers.
    const note = /** @type {HTMLElement} */ (s.note());
    expect(note.textContent).toBe('');
    expect(note.getAttribute('role')).toBe('status');
    expect(note.getAttribute('aria-live')).toBe('polite');
    s.toggle.click();
    expect(s.click.on).toBe(true);
    expect(s.note()).toBe(note);
    expect(note.textContent).toMatch(/^Click waits a few seconds for the sound output to settle/);
    // Beside the toggle, in its strip.
    expect(s.toggle.nextElementSibling).toBe(note);
    await s.flush();
    const written = s.writes.n;
    // Asked twice a second; the same words are not written again.
    s.time.advance(10 * CLICK_WAIT_POLL_MS);
    await s.flush();
    expect(s.trust.asked).toBe(11);
    expect(s.writes.n).toBe(written);
    s.trust.now = { trusted: false, why: 'stepped' };
    s.time.advance(CLICK_WAIT_POLL_MS);
    expect(note.textContent).toMatch(/^Click waits: the sound output moved/);
    s.trust.now = { trusted: true, why: 'trusted' };
    s.time.advance(CLICK_WAIT_POLL_MS);
    expect(note.textContent).toBe('');
  });

  it('not shown with the click off, nor while no sound runs; turned off, no longer asked', () => {
    const s = strip({ state: 'suspended' });
    const words = () => s.note()?.textContent;
    s.time.advance(5 * CLICK_WAIT_POLL_MS);
    expect(words()).toBe('');
    expect(s.trust.asked).toBe(0);
    s.toggle.click();
    expect(words()).toBe('');
    s.context.state = 'running';
    s.time.advance(CLICK_WAIT_POLL_MS);
    expect(words()).toMatch(/^Click waits/);
    s.toggle.click();
    expect(s.click.on).toBe(false);
    expect(words()).toBe('');
    const asked = s.trust.asked;
    s.time.advance(10 * CLICK_WAIT_POLL_MS);
    expect(s.trust.asked).toBe(asked);
    expect(s.time.timers.size).toBe(0);
  });
});
