// Bytes on the wire for a ZScore piece imported by `scorecast import-zscore`: every audience tile
// change of the performance and one tile's change alone (as delta envelopes), and the audience
// page's first load (HTML, JS, CSS; what a phone fetches before the first state). Uses the real
// Union Rose export when ../shared/zscore/union-rose is there, else the rose fixture.
// Run: node bench/zscore-rose.js  (after `npm run build`)

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { encode } from '../core/protocol.js';
import { buildApp } from '../server/app.js';
import { createMemoryBus } from '../server/live/bus.js';
import { createConductor } from '../server/performance/conductor.js';
import { importZScore } from '../server/import/zscore/index.js';
import { loadPackage } from '../server/package/load.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REAL = path.resolve(ROOT, '../shared/zscore/union-rose');
const source = existsSync(REAL) ? REAL : path.join(ROOT, 'test/fixtures/zscore/rose');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sc-bench-rose-'));
const dir = path.join(tmp, 'package');
try {
  await importZScore(source, dir);
  // One tile's change alone, added to the imported cues: the first tile dims on beat 3.
  const manifest = parse(readFileSync(path.join(dir, 'score.yaml'), 'utf8'));
  const [firstTile] = Object.keys(manifest.cues.find((/** @type {any} */ c) => c.set?.tiles).set.tiles);
  manifest.cues.push({ at: 3, set: { tiles: { [firstTile]: { state: 'dim' } } } });
  writeFileSync(path.join(dir, 'score.yaml'), stringify(manifest));
  const pkg = await loadPackage(dir, { cacheDir: path.join(tmp, 'cache') });
  const built = { value: pkg.model };

  // Every tile change of the performance, beat by beat.
  const bus = createMemoryBus();
  /** @type {{ beat: number, tiles: number, bytes: number }[]} */
  const changes = [];
  bus.subscribe((c) => {
    const tiles = /** @type {any} */ (c.patch)?.cues?.audience?.tiles;
    if (!tiles || typeof tiles !== 'object') return;
    changes.push({
      beat: /** @type {any} */ (c.state).beat,
      tiles: Object.keys(tiles).length,
      bytes: Buffer.byteLength(encode({ type: 'delta', epoch: 'mwuj39x8qaay', seq: c.seq, t: c.t, patch: c.patch })),
    });
  });
  const conductor = createConductor({
    model: built.value,
    bus,
    clock: { now: () => 0, wall: () => 1_795_000_000_000.123, setTimer: () => 0, clearTimer: () => {} },
  });
  for (let b = 1; b < built.value.map.totalBeats; b++) conductor.seek(b);
  const single = changes.filter((c) => c.tiles === 1);
  const sizes = changes.map((c) => c.bytes).sort((a, b) => a - b);
  console.log(`source: ${path.relative(ROOT, source) || source}`);
  console.log(
    `tile changes in the performance: ${changes.length}; bytes per delta: median ${sizes[Math.floor(sizes.length / 2)]}, max ${sizes[sizes.length - 1]} (tiles changed: max ${Math.max(...changes.map((c) => c.tiles))})`,
  );
  console.log(`one tile's change (${firstTile}, beat 3): ${single.map((c) => `${c.bytes} bytes`).join(', ')}`);

  // The audience page's first load, as the server sends it (no compression asked for).
  const { app } = await buildApp({ score: pkg, token: 'bench-token-123' });
  const html = await app.inject({ method: 'GET', url: '/' });
  const assets = [...html.body.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  let total = Buffer.byteLength(html.body);
  let gzip = 0;
  for (const url of assets) {
    const res = await app.inject({ method: 'GET', url });
    total += res.rawPayload.length;
    const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    gzip += gz.rawPayload.length;
  }
  const state = await app.inject({ method: 'GET', url: '/live/poll?epoch=x&since=0' });
  console.log(
    `audience page first load: ${total} bytes (HTML and ${assets.length} assets: ${assets.join(', ')}); ${gzip + Buffer.byteLength(html.body)} bytes when the assets are gzipped; the first state: ${state.rawPayload.length} bytes`,
  );
  await app.close();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
