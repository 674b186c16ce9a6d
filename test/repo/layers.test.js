// The folders of server/ and client/src/ are layers (doc/architecture.md, "The map"): a module
// imports only from its own folder, from core/ and from folders of a lower layer, so each
// capability can be read, tested and changed without the ones above it. JSDoc type imports
// count too: a type is a dependency a reader has to follow.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** @type {Record<string, number>} Folder -> layer; a folder may import from folders of a strictly lower layer. */
const LAYERS = {
  core: 0,
  'server/lib': 1,
  'server/http': 2,
  'server/live': 3,
  'server/package': 3,
  'server/performance': 4,
  'server/import': 4,
  'server/cluster': 5,
  'server/app.js': 6,
  'server/commands': 7,
  'client/src/time': 1,
  'client/src/live': 1,
  'client/src/sound': 2,
  'client/src/notation': 2,
  'client/src/console': 2,
  'client/src/audience': 3,
  'client/src/page': 4,
  'client/src/conduct': 4,
  'client/src/preview': 4,
};

/**
 * The layer folder a repository path belongs to, or null outside the layered tree.
 * @param {string} file
 */
function folderOf(file) {
  let best = null;
  for (const folder of Object.keys(LAYERS)) {
    if ((file === folder || file.startsWith(`${folder}/`)) && (!best || folder.length > best.length)) best = folder;
  }
  return best;
}

/**
 * Every relative import (static, dynamic or a JSDoc type) of `text`, resolved from `file`.
 * @param {string} file
 * @param {string} text
 */
function importsOf(file, text) {
  const found = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s*)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    found.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])));
  }
  return found;
}

/**
 * Imports that point up or sideways across layers, as "from -> to" lines.
 * @param {{ file: string, text: string }[]} sources
 */
function upwardImports(sources) {
  const wrong = [];
  for (const { file, text } of sources) {
    const from = folderOf(file);
    if (!from) continue;
    for (const target of importsOf(file, text)) {
      const to = folderOf(target);
      if (!to || to === from) continue;
      if (LAYERS[to] >= LAYERS[from]) wrong.push(`${file} -> ${target}`);
    }
  }
  return wrong;
}

describe('layers', () => {
  it('finds an import that points up, and a type import too', () => {
    expect(
      upwardImports([
        { file: 'server/live/hub.js', text: "import { x } from '../performance/conductor.js';" },
        { file: 'server/http/metrics.js', text: "/** @type {import('../live/hub.js').Hub} */" },
        { file: 'server/performance/conductor.js', text: "import { b } from '../live/bus.js';" },
        {
          file: 'server/live/hub.js',
          text: "import { p } from '../../core/protocol.js';\nimport { l } from './bus.js';",
        },
      ]),
    ).toEqual([
      'server/live/hub.js -> server/performance/conductor.js',
      'server/http/metrics.js -> server/live/hub.js',
    ]);
  });

  it('finds an import between two folders of the same layer', () => {
    expect(upwardImports([{ file: 'server/live/hub.js', text: "import '../package/load.js';" }])).toEqual([
      'server/live/hub.js -> server/package/load.js',
    ]);
  });

  it('hold in server/ and client/src/, and every folder there has a layer', () => {
    const files = execFileSync('git', ['ls-files', '-z', 'server', 'client/src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(100);
    const unplaced = files.filter((f) => !folderOf(f));
    expect(unplaced).toEqual([]);
    const sources = files.map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));
    expect(upwardImports(sources)).toEqual([]);
  });
});
