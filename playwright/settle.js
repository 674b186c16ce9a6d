// Waiting for something that moves smoothly (a scroll to the system band) to come to rest.

import { expect } from '@playwright/test';

/**
 * Polls until `locator`'s box is at the same place 200 ms apart, and returns that box. Where it
 * comes to rest is what is tested, not how soon: on a loaded 2-core machine the pages drawn as the
 * scroll passes them hold the main thread, and a smooth scroll took over 5 s to end (CI, once).
 * @param {import('@playwright/test').Page} page
 * @param {import('@playwright/test').Locator} locator
 * @param {number} [timeout]
 */
export async function settledBox(page, locator, timeout = 15_000) {
  await expect
    .poll(
      async () => {
        const before = await locator.boundingBox();
        await page.waitForTimeout(200);
        const after = await locator.boundingBox();
        return before !== null && after !== null && before.y === after.y;
      },
      { timeout },
    )
    .toBe(true);
  const box = await locator.boundingBox();
  if (box === null) throw new Error('the element left the page after it came to rest');
  return box;
}
