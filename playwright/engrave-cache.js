// Playwright's global setup: engrave the shipped demo into the engraving cache with every layout
// before any test starts a server. A server engraves a part's narrower layouts after it starts
// playing (doc/score-format.md, "Layouts of a part"); `scorecast check` waits for them, so the
// tests that expect a phone's narrow layout at once find it on a fresh checkout too. The PDF
// fixture's pages are rendered into the same cache, so pdf-pages.spec.js starts its server warm.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default function engraveCache() {
  for (const dir of [path.join(ROOT, 'scores', 'demo'), path.join(ROOT, 'test', 'fixtures', 'pdf-part')])
    execFileSync(process.execPath, [path.join(ROOT, 'server', 'commands', 'cli.js'), 'check', dir], {
      cwd: ROOT,
      stdio: 'ignore',
      timeout: 120_000,
    });
}
