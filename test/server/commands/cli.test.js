import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import net from 'node:net';
import os from 'node:os';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { pngHeader } from '../../helpers/fixtures.js';

const run = promisify(execFile);
const CLI = new URL('../../../server/commands/cli.js', import.meta.url).pathname;

/** @param {string[]} args */
async function cli(args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = /** @type {any} */ (err);
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('scorecast check', () => {
  it('says a valid package is valid', async () => {
    const r = await cli(['check', 'scores/seed-profile']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/is valid: 4 bars, 16 beats/);
  });

  it('lists the video parts, and refuses a video browsers cannot play by its bytes, whatever its name', async () => {
    const r = await cli(['check', 'test/fixtures/video-part']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^video violin: video\/guide\.webm \(video\/webm, 192x108, 40 s\)$/m);
    expect(r.stdout).toMatch(/^video cello: video\/guide\.webm/m);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    mkdirSync(path.join(dir, 'video'));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: v\ntitle: T\nparts:\n  - { id: a }\nbars: 2\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\nvideo:\n  a: video/a.webm\n',
    );
    // An AVI's RIFF header under a .webm name.
    writeFileSync(
      path.join(dir, 'video', 'a.webm'),
      Buffer.concat([Buffer.from('RIFF\0\0\0\0AVI LIST'), Buffer.alloc(64)]),
    );
    const bad = await cli(['check', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/SC_ERR_SCORE_VIDEO/);
    expect(bad.stderr).toMatch(
      /video\/a\.webm \(video\.a\): is an AVI file \(read from its first bytes, whatever its name\)/,
    );
  });

  it('lists every problem of a broken package with file and line, and exits 1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: Bad\ntitle: T\nbars: 2\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\ncues:\n  - { bar: 7, set: { text: x } }\n' +
        'openForm:\n  sections:\n    - { id: a, bars: [1, 2], when: [{ meter: ">= 1.5", set: { text: x } }] }\n',
    );
    const r = await cli(['check', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/SC_ERR_SCORE_INVALID/);
    expect(r.stderr).toMatch(/score\.yaml line 1: id: must be lower-case/);
    expect(r.stderr).toMatch(/score\.yaml line 7: cues\[0\]: no bar 7; the score has bars 1\.\.2/);
    // A meter rule (an open-form section's `when`) out of the meter's range, in a section without thumbs.
    expect(r.stderr).toMatch(
      /openForm\.sections\[0\]\.when\[0\]\.meter: must be a test of the meter \(-1\.\.1\) like ">= 0\.6"/,
    );
    expect(r.stderr).toMatch(
      /openForm\.sections\[0\]\.when: follows the audience meter, which moves only while the section takes thumbs/,
    );
  });

  it('refuses a package of 100,000,000 bars with a clear error and exit code 1, not an abort', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: big\ntitle: Big\nbars: 100000000\nmeter: [{ bar: 1, time: 4/4, tempo: 96 }]\n',
    );
    const r = await cli(['check', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'SC_ERR_SCORE_INVALID: The score package is invalid; fix the listed problems and try again.\n' +
        'score.yaml line 3: bars: is 100000000, more than the 10000 bars a package may have; split the piece into movements\n',
    );
  });

  /** A package around a notation fixture of test/fixtures/notation/form. */
  const formPackage = (/** @type {string} */ fixture) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    copyFileSync(new URL(`../../fixtures/notation/form/${fixture}`, import.meta.url), path.join(dir, fixture));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      `id: form\ntitle: Form\ncomposer: A. Composer\nparts:\n  - { id: flute, name: Flute }\nnotation:\n  file: ${fixture}\n`,
    );
    return dir;
  };

  it('prints the bars performed, the length and the warnings', async () => {
    const r = await cli(['check', formPackage('text-da-capo.musicxml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/"Form" by A\. Composer is valid: 4 bars/);
    expect(r.stdout).toMatch(/^performed: 4 bars, 0:08: bars 1-4$/m);
    expect(r.stdout).toMatch(/^warning: bar 4: "D\.C\. al Fine" is written as text only/m);
  });

  it('gives the same as JSON with --json', async () => {
    const r = await cli(['check', '--json', formPackage('ending-repeat-in-section.musicxml')]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      valid: true,
      title: 'Form',
      playedBars: 11,
      writtenBars: 7,
      beats: 44,
      seconds: 22,
      order: '1-2 1-5 3-4 6-7',
      warnings: [],
    });
  });

  it('reports problems as JSON with --json, and exits 1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: bad\ntitle: T\nbars: 2\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\ncues:\n  - { bar: 7, set: { text: x } }\n',
    );
    const r = await cli(['check', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.valid).toBe(false);
    expect(report.code).toBe('SC_ERR_SCORE_INVALID');
    expect(report.problems).toContainEqual(expect.stringMatching(/score\.yaml line 7: cues\[0\]: no bar 7/));
  });

  it('refuses a package whose image view has no beat map yet, naming its bars without positions, and exits 1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-check-'));
    const png = pngHeader(1200, 800);
    writeFileSync(path.join(dir, 'p1.png'), png);
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: unplaced\ntitle: T\nbars: 5\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\npages:\n  score: { files: [p1.png], beatmap: score.csv }\n',
    );
    const r = await cli(['check', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ valid: false, code: 'SC_ERR_SCORE_INVALID' });
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^pages\.score\.beatmap: score\.csv does not exist yet: bars 1-5 of score have no position; place them in the preview's bar-line mode/,
      ),
    ]);
  });

  it('--schema prints the absolute path of the JSON Schema of score.yaml, from any folder, and exits 0', async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'sc-schema-'));
    const { stdout } = await run(process.execPath, [CLI, 'check', '--schema'], { cwd: elsewhere });
    const file = stdout.trimEnd();
    expect(stdout).toBe(`${file}\n`);
    expect(path.isAbsolute(file)).toBe(true);
    // The schema the server validates with, readable from what was printed.
    expect(file).toBe(fileURLToPath(new URL('../../../scores/schema/score.schema.json', import.meta.url)));
    expect(JSON.parse(readFileSync(file, 'utf8')).title).toMatch(/score\.yaml/);
  });

  it('--help tells how to find the schema', async () => {
    const r = await cli(['check', '--help']);
    expect(r.stdout).toMatch(/scorecast check --schema\n/);
    expect(r.stdout).toMatch(/--schema {4}print the absolute path of the JSON Schema of score\.yaml/);
  });

  it('exits 2 with usage on a wrong command', async () => {
    const r = await cli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "frobnicate"/);
  });
});

describe('--help', () => {
  it.each([
    [['--help'], /usage:\n {2}scorecast \[start\]/],
    [['help'], /usage:\n {2}scorecast \[start\]/],
    [['check', '--help'], /usage: scorecast check DIR/],
    [['preview', '--help'], /usage: scorecast preview DIR/],
    [['preview', '-h'], /usage: scorecast preview DIR/],
    [['import-zscore', '--help'], /usage: scorecast import-zscore/],
    [['start', '--help'], /usage: scorecast \[start\] \[options\][\s\S]*--state-file PATH/],
    [['start', '-h', '--port', '1'], /usage: scorecast \[start\] \[options\]/],
  ])('scorecast %j prints its usage and exits 0, starting nothing', async (args, usage) => {
    const r = await cli(/** @type {string[]} */ (args));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(usage);
    expect(r.stdout).not.toMatch(/scorecast is playing/);
  });

  it('node server/commands/start.js --help does the same', async () => {
    const { stdout } = await run(process.execPath, [
      new URL('../../../server/commands/start.js', import.meta.url).pathname,
      '--help',
    ]);
    expect(stdout).toMatch(/usage: scorecast \[start\] \[options\] {3}\(or: node server\/commands\/start\.js/);
  });
});

describe('a port already in use', () => {
  it('is a start error in words, exit 2, with no stack trace', async () => {
    const blocker = net.createServer();
    await new Promise((resolve) => blocker.listen(0, '127.0.0.1', () => resolve(undefined)));
    const { port } = /** @type {import('node:net').AddressInfo} */ (blocker.address());
    try {
      const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-port-')), 'performance.json');
      const r = await cli([
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--score',
        'scores/seed-profile',
        '--state-file',
        stateFile,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`scorecast: cannot start: port ${port} on 127\\.0\\.0\\.1 is in use`));
      expect(r.stderr).not.toMatch(/ at |node:internal|Node\.js v/);
      expect(r.stdout).not.toMatch(/scorecast is playing/);
    } finally {
      blocker.close();
    }
  }, 60_000);
});

describe('--version', () => {
  it.each([['--version'], ['version']])(
    'scorecast %s prints the version of package.json and starts nothing',
    async (arg) => {
      const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
      const r = await cli([arg]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`scorecast ${version}\n`);
    },
  );
});

describe('scorecast preview', () => {
  it('exits 2 with its usage when the package is missing, starting nothing', async () => {
    const r = await cli(['preview']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/which score package\?/);
    expect(r.stderr).toMatch(/usage: scorecast preview DIR/);
  });
});
