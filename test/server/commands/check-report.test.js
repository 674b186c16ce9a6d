// What `scorecast check` says of a package (check-report.js): here, an open-form piece's sections
// with the overlays each draws over the parts and what the meter does there, in words.

import { describe, it, expect } from 'vitest';
import { checkReport, formatCheckReport, overlayWords } from '../../../server/commands/check-report.js';
import { tmpdir } from 'node:os';
import { loadPackage } from '../../../server/package/load.js';

describe('scorecast check: an open-form piece', () => {
  it('lists each section with what may follow and its overlays', async () => {
    const pkg = await loadPackage(new URL('../../../scores/open-form/', import.meta.url).pathname, {
      cacheDir: tmpdir(),
    });
    const text = formatCheckReport(checkReport(pkg, 'scores/open-form'));
    expect(text).toContain(
      'section intro: beats 0-7, then pitch or rhythm; overlays: dynamics over violin, from the meter (0..1); timbre over every part at 0.3\n',
    );
    expect(text).toContain(
      'section pitch: beats 8-23, then rhythm or end; overlays: pitch over violin, from the meter (0.2..0.8); when meter >= 0.6 for 2 beats: sets text on audience; meter <= -0.5 for 4 beats: chooses end\n',
    );
    expect(text).toContain('section rhythm: beats 24-39, then pitch or end\n');
  });

  it('words an overlay', () => {
    expect(overlayWords({ band: 'speed', parts: ['a', 'b'], source: null, value: 1, range: [0, 1] })).toBe(
      'speed over a, b at 1',
    );
  });
});
