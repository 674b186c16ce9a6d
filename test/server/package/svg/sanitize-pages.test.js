import { describe, it, expect } from 'vitest';
import { sanitizeSvgPages } from '../../../../server/package/svg/sanitize-pages.js';

const page = (/** @type {string} */ body) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${body}</svg>`);

describe('sanitizeSvgPages', () => {
  it('cleans a batch off the event loop, one result per page in order', async () => {
    const pages = [page('<script>alert(1)</script><rect id="a"/>'), Buffer.from('not svg'), page('<rect id="b"/>')];
    // The loop stays free while the worker cleans: a timer set now fires before the batch ends.
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 5);
    const results = await sanitizeSvgPages(pages);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    expect(results).toEqual([
      { ok: true, svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect id="a"/></svg>', removed: 1 },
      { ok: false, reason: expect.stringMatching(/well-formed/) },
      { ok: true, svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect id="b"/></svg>', removed: 0 },
    ]);
  });

  it('does not clean a page it has already cleaned', async () => {
    const p = page('<rect id="again"/>');
    const [first] = await sanitizeSvgPages([p]);
    const [r] = await sanitizeSvgPages([Buffer.from(p)]);
    // The very result of the first batch: no worker was started for the second.
    expect(r).toBe(first);
    expect(r.ok).toBe(true);
  });

  it('fails a page with a reason when the worker runs out of time, and tries again next time', async () => {
    // A page that takes the worker well over 1 ms (2,000 elements, ~100 KB): a one-element page
    // could be cleaned before a 1 ms timer fired on a busy machine.
    const p = page(Array.from({ length: 2000 }, (_, i) => `<rect id="slow${i}" width="2" height="2"/>`).join(''));
    const [r] = await sanitizeSvgPages([p], { timeoutMs: 1 });
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/could not be checked within/) });
    const [again] = await sanitizeSvgPages([p]);
    expect(again.ok).toBe(true);
  });
});
