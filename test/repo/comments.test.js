// Comments point at files of the repository: a reader has neither the tracker's numbers nor the
// team's style notes beside the code.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CITES = new RegExp(['\\b[Ii]ssue \\d+\\b', ['STYLE', 'md'].join('\\.')].join('|'));

describe('code comments', () => {
  it('cite no tracker number and no style notes outside the repository', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--', '*.js', '*.mjs', '*.sh'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    /** @type {string[]} */
    const found = [];
    for (const f of files) {
      let text;
      try {
        text = readFileSync(path.join(ROOT, f), 'utf8');
      } catch {
        continue;
      }
      text.split('\n').forEach((line, i) => {
        if (CITES.test(line)) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 100)}`);
      });
    }
    expect(found).toEqual([]);
  });
});
