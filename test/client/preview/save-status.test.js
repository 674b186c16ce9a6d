// The preview's Save (save-status.js), shared by the bar-line mode and tap-along: "Saving…" with
// Save held while the request is out, then the server's answer in words (data-state saved), or
// the refusal's message and code with Save given back (data-state refused).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { JSDOM } from 'jsdom';
import { ControlError } from '../../../client/src/console/control-api.js';
import { saveWithStatus } from '../../../client/src/preview/save-status.js';

beforeAll(() => {
  /** @type {any} */ (globalThis).document = new JSDOM('').window.document;
});
afterAll(() => {
  delete (/** @type {any} */ (globalThis).document);
});

function controls() {
  return { save: document.createElement('button'), result: document.createElement('p') };
}

describe('preview: Save with its status line', () => {
  it('says Saving… with Save held, then what was saved; Save stays held', async () => {
    const el = controls();
    /** @type {(v: { bars: number }) => void} */
    let answer = () => {};
    const done = saveWithStatus(
      el,
      () => new Promise((resolve) => (answer = resolve)),
      (r) => `Saved ${r.bars} bars.`,
    );
    expect(el.result.textContent).toBe('Saving…');
    expect(el.save.hasAttribute('disabled')).toBe(true);
    answer({ bars: 6 });
    expect(await done).toBe(true);
    expect(el.result.textContent).toBe('Saved 6 bars.');
    expect(el.result.dataset.state).toBe('saved');
    expect(el.save.hasAttribute('disabled')).toBe(true);
  });

  it('on a refusal says why, with its code, and gives Save back', async () => {
    const el = controls();
    const saved = await saveWithStatus(
      el,
      () => Promise.reject(new ControlError(400, 'SC_ERR_BAD_REQUEST', 'tempo: bar 3: no length; tap again')),
      () => 'never',
    );
    expect(saved).toBe(false);
    expect(el.result.textContent).toBe('Not saved: tempo: bar 3: no length; tap again (SC_ERR_BAD_REQUEST)');
    expect(el.result.dataset.state).toBe('refused');
    expect(el.save.hasAttribute('disabled')).toBe(false);
  });
});
