// A merge that left its conflict markers in a file (a README table twice over, a .gitignore with
// both sides) passes every other test: look for them in every tracked text file.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MARKER = /^(<{7} |>{7} |={7}$)/m;

/** @param {string} text */
const conflictLines = (text) =>
  text
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => MARKER.test(line))
    .map(({ n, line }) => `${n}: ${line}`);

describe('conflict markers', () => {
  it('are found at the start of a line, and only there', () => {
    expect(conflictLines('a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n')).toEqual([
      '2: <<<<<<< HEAD',
      '4: =======',
      '6: >>>>>>> branch',
    ]);
    expect(conflictLines('a ======= b\n========\n# <<<<<<< in prose\n')).toEqual([]);
  });

  it('are in no tracked file', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter(
        (f) =>
          f &&
          /\.(js|mjs|cjs|json|md|ya?ml|html|css|sh|conf|template|txt|rsc|service|env)$|(^|\/)(\.gitignore|run)$/.test(
            f,
          ),
      )
      .filter((f) => f !== 'package-lock.json');
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
      for (const l of conflictLines(text)) found.push(`${f}:${l}`);
    }
    expect(found).toEqual([]);
  });
});
