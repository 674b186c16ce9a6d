// Every `npm run bench:*` answers --help with what it measures and its options (its opening
// comment, or its own help text), and refuses an option it does not know in one line, exit code 2.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { headerOf } from '../../bench/cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
const benches = Object.entries(scripts)
  .filter(([name, cmd]) => name.startsWith('bench:') && /^node bench\/[\w-]+\.js$/.test(String(cmd)))
  .map(([name, cmd]) => [name, String(cmd).slice('node '.length)]);

/** @param {string} file @param {string[]} args */
const run = (file, args) =>
  spawnSync(process.execPath, [file, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

describe('the benches on the command line', () => {
  it('there are benches to ask', () => {
    expect(benches.length).toBeGreaterThan(15);
  });

  it.each(benches)('%s --help says what it measures and how to run it, and exits 0', (name, file) => {
    const r = run(file, ['--help']);
    expect(r.status, r.stderr).toBe(0);
    // How to run it: by its file or by its npm script.
    expect(r.stdout.includes(`bench/${path.basename(file)}`) || r.stdout.includes(name), r.stdout).toBe(true);
    expect(r.stdout.split('\n').length).toBeGreaterThan(3);
  });

  it.each(benches)('%s refuses an option it does not know in one line, exit 2', (_name, file) => {
    const r = run(file, ['--no-such-option']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--no-such-option/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('the opening comment is read after a #! line, without its // marks', () => {
    const text = headerOf(path.join(ROOT, 'bench', 'fanout.js'));
    expect(text.startsWith('Fan-out benchmark (`npm run bench:fanout`)')).toBe(true);
    expect(text).toContain('node bench/fanout.js [--profile seed|small]');
    expect(text).not.toMatch(/^\/\//m);
  });
});
