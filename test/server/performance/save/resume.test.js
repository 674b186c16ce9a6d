// Resume after restart, end to end: the app reports what it resumed, and the real server
// (server/commands/start.js in a child process) killed mid-piece comes back at the right beat.

import path from 'node:path';
import os from 'node:os';
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../../server/app.js';
import { encodeSave, readSave, scoreFingerprint } from '../../../../server/performance/save/persist.js';
import { buildScoreModel } from '../../../../core/manifest.js';
import { packageOf, smallModel } from '../../../helpers/fixtures.js';
import { forkStart } from '../../../helpers/fork-start.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const TOKEN = 'resume-token-123456';
const auth = { authorization: `Bearer ${TOKEN}` };
/** 240 bpm: 250 ms a beat, 64 bars (64 s): long enough never to end during a test. */
const BEAT_MS = 250;

/** @type {(() => unknown)[]} */
let cleanup = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

const tmpDir = () => mkdtempSync(path.join(os.tmpdir(), 'sc-resume-'));

describe('resume in the app', () => {
  /** @param {import('../../../../server/performance/save/persist.js').PersistenceOptions | null} persist */
  async function build(persist) {
    const built = await buildApp({ score: packageOf(smallModel()), token: TOKEN, persist });
    cleanup.push(() => built.app.close());
    return built;
  }

  it('reports what it resumed in /api/status, and saves on close', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    const model = smallModel();
    writeFileSync(
      file,
      encodeSave({
        savedAt: 1_700_000_000_000,
        epoch: 'before',
        seq: 9,
        score: { id: model.id, title: model.title, dir: '.', fingerprint: scoreFingerprint(model) },
        performance: { transport: 'paused', beat: 7, rate: 1.5, ballot: { open: null, closed: [] } },
      }),
    );
    const { app, hub } = await build({ file });
    expect(hub.state).toMatchObject({ transport: 'paused', beat: 7, rate: 1.5 });
    expect(hub.epoch).not.toBe('before');
    const status = (await app.inject({ url: '/api/status', headers: auth })).json();
    expect(status.resume).toMatchObject({
      resumed: true,
      beat: 7,
      transport: 'paused',
      savedAt: 1_700_000_000_000,
      file,
    });
    await app.inject({ method: 'POST', url: '/api/control/seek', headers: auth, payload: { beat: 3 } });
    await app.close();
    expect(await readSave(file)).toMatchObject({
      ok: true,
      payload: { epoch: hub.epoch, performance: { transport: 'paused', beat: 3, rate: 1.5 } },
    });
  });

  it('shows a refused save as a problem in /api/status', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    writeFileSync(file, '{"format":"scorecast-performance","version":1,"sha2');
    const { app, hub } = await build({ file });
    expect(hub.state).toMatchObject({ transport: 'stopped', beat: 0 });
    const { resume } = (await app.inject({ url: '/api/status', headers: auth })).json();
    expect(resume).toMatchObject({
      resumed: false,
      code: 'SC_ERR_SAVE_UNREADABLE',
      problem: expect.stringMatching(/not valid JSON/),
      keptAs: expect.stringMatching(/performance\.json\.bad-/),
    });
  });

  it("the console's forced next tile is saved at once and comes back after a restart", async () => {
    const file = path.join(tmpDir(), 'performance.json');
    const r = buildScoreModel({
      id: 'choice',
      title: 'Choice',
      bars: 4,
      meter: [{ bar: 1, time: '4/4', tempo: 120 }],
      parts: [{ id: 'a', name: 'A' }],
      pages: { a: { files: [1, 2, 3, 4].map((n) => `pages/a-${n}.png`), beatmap: 'beatmaps/a.json' } },
      pageChoices: [{ slot: 4, at: 12, from: [1, 3], groups: [1], tiles: { 't1-1': 1, 't1-2': 2, 't1-3': 3 } }],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    // A long interval: only a write asked for at once gets the forced tile on disk in time.
    const first = await buildApp({ score: packageOf(r.value), token: TOKEN, persist: { file, intervalMs: 600_000 } });
    cleanup.push(() => first.app.close());
    await first.app.inject({ method: 'POST', url: '/api/control/seek', headers: auth, payload: { beat: 2 } });
    const next = { method: /** @type {const} */ ('POST'), url: '/api/control/next', headers: auth };
    expect((await first.app.inject({ ...next, payload: { tiles: ['t1-3'] } })).statusCode).toBe(200);
    /** @type {any} */
    let saved = null;
    for (let i = 0; i < 50 && saved?.performance?.forced === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const read = await readSave(file);
      saved = read.ok ? read.payload : null;
    }
    expect(saved?.performance?.forced).toEqual({ slot: 4, tiles: ['t1-3'] });
    await first.app.close();
    const second = await buildApp({ score: packageOf(r.value), token: TOKEN, persist: { file } });
    cleanup.push(() => second.app.close());
    const votes = (await second.app.inject({ url: '/api/votes', headers: auth })).json();
    expect(votes.nextChoice).toMatchObject({ slot: 4, forced: ['t1-3'] });
  });

  it('a jump asked for while playing is saved at once, before it lands', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    // A long interval: only a write asked for at once gets the jump on disk in time.
    const model = smallModel({ tempo: 60, bars: 64 });
    const first = await buildApp({ score: packageOf(model), token: TOKEN, persist: { file, intervalMs: 600_000 } });
    cleanup.push(() => first.app.close());
    await first.app.inject({ method: 'POST', url: '/api/control/play', headers: auth });
    await first.app.inject({ method: 'POST', url: '/api/control/seek', headers: auth, payload: { bar: 40 } });
    /** @type {any} */
    let saved = null;
    for (let i = 0; i < 50 && saved?.performance?.jump === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const read = await readSave(file);
      saved = read.ok ? read.payload : null;
    }
    // 1 s a beat: the jump lands on the next beat due 300 ms or more from the seek.
    expect(saved?.performance?.jump).toEqual({ to: 156, t: expect.any(Number), countIn: 0 });
    expect(first.hub.state.beat).toBeLessThan(156);
  });

  it('comes back from a save with a jump that landed while it was down at its target, and from a save during a count-in counting in again', async () => {
    const model = smallModel({ tempo: 240, bars: 64 });
    const save = (/** @type {{ beat: number } & Record<string, unknown>} */ performance) => {
      const file = path.join(tmpDir(), 'performance.json');
      writeFileSync(
        file,
        encodeSave({
          savedAt: Date.now() - 1000,
          epoch: 'before',
          seq: 9,
          score: { id: model.id, title: model.title, dir: '.', fingerprint: scoreFingerprint(model) },
          performance: { transport: 'playing', rate: 1, ballot: { open: null, closed: [] }, ...performance },
        }),
      );
      return file;
    };
    // The server's wall clock (beat-grid.js, systemClock), which can stand a few ms off Date.now().
    const wall = () => performance.timeOrigin + performance.now();
    const now = wall();
    // Bar 2 sounding 1.25 s ago, a jump to bar 40 (beat 156) on the next beat, 1 s ago: bar 40 has
    // played 4 beats.
    const jumped = await buildApp({
      score: packageOf(model),
      token: TOKEN,
      persist: { file: save({ beat: 4, beatT: now - 1250, jump: { to: 156, t: now - 1000, countIn: 0 } }) },
    });
    cleanup.push(() => jumped.app.close());
    expect(jumped.hub.state).toMatchObject({ playback: 'playing' });
    // At least 1 s since the jump landed (4 beats); at most the time until now (a loaded machine
    // may take a while to build the app).
    const since = Math.ceil((wall() - (now - 1000)) / 250);
    expect(jumped.hub.state.beat).toBeGreaterThanOrEqual(156 + 4);
    expect(jumped.hub.state.beat).toBeLessThanOrEqual(156 + since);
    await jumped.app.close();
    // Counting in 8 clicks to bar 9 (beat 32), due 1.9 s after the save: its clicks began 0.1 s
    // before it. Eight clicks again, from the resume. (Its own time, taken now: the first app's
    // build, at load, took long enough for a count-in timed from the start of the test to be over.)
    const later = wall();
    const counting = await buildApp({
      score: packageOf(model),
      token: TOKEN,
      persist: { file: save({ beat: 32, beatT: later + 1900, countIn: 8 }) },
    });
    cleanup.push(() => counting.app.close());
    const state = counting.hub.state;
    expect(state).toMatchObject({ playback: 'playing', beat: 32, countIn: { beats: 8, beatMs: 250 } });
    expect(state.beatT).toBeUndefined();
    expect(/** @type {any} */ (state.next).t - /** @type {any} */ (state.countIn).t).toBeCloseTo(2000, 6);
    // From the resume, not from the clicks' first start (0.1 s before the save's time).
    expect(/** @type {any} */ (state.countIn).t).toBeGreaterThanOrEqual(later);
  });

  it('saves nothing unless asked (tests, the preview, the autoplay demo)', async () => {
    const { app } = await build(null);
    const { resume } = (await app.inject({ url: '/api/status', headers: auth })).json();
    expect(resume).toMatchObject({ resumed: false, note: expect.stringMatching(/not saved/) });
  });
});

/**
 * The real server in a child process, as `node server/commands/start.js` runs it.
 * @param {string[]} args
 */
async function spawnServer(args) {
  const s = forkStart(['--port', '0', '--host', '127.0.0.1', '--log-level', 'warn', ...args], {
    env: { SCORECAST_TOKEN: TOKEN },
  });
  const { child, exited } = s;
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  });
  const { port } = await s.listening;
  const base = `http://127.0.0.1:${port}`;
  return {
    child,
    exited,
    /** The log (pino, on stdout) and anything on stderr. */
    get output() {
      return s.output();
    },
    /** @param {string} action */
    control: (action) =>
      fetch(`${base}/api/control/${action}`, { method: 'POST', headers: auth }).then((r) => r.json()),
    /** @param {string} url @param {object} body */
    post: (url, body) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json()),
    /** @returns {Promise<{ epoch: string, t: number, state: any }>} */
    snapshot: () =>
      fetch(`${base}/live/poll`)
        .then((r) => r.json())
        .then(([s]) => s),
    status: () => fetch(`${base}/api/status`, { headers: auth }).then((r) => r.json()),
  };
}

/** A score package of its own: no notation, 240 bpm. */
function scorePackage() {
  const dir = tmpDir();
  writeFileSync(
    path.join(dir, 'score.yaml'),
    `id: crash-test
title: Crash test
bars: 64
meter:
  - { bar: 1, time: 4/4, tempo: 240 }
cues:
  - { at: 0, set: { text: "go" } }
  - { bar: 9, set: { text: "bar 9" } }
`,
  );
  return dir;
}

/** Two score packages side by side in one folder, `a` and `b` (ids piece-a, piece-b), 240 bpm. */
function twoScores() {
  const library = tmpDir();
  for (const name of ['a', 'b']) {
    mkdirSync(path.join(library, name));
    writeFileSync(
      path.join(library, name, 'score.yaml'),
      `id: piece-${name}\ntitle: Piece ${name}\nbars: 64\nmeter: [{ bar: 1, time: 4/4, tempo: 240 }]\n`,
    );
  }
  return library;
}

/** @param {string} text */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('the real server restarted mid-piece', () => {
  it('killed (SIGKILL), it comes back in a new epoch within one beat of where the piece is now, on its beat grid', async () => {
    const score = scorePackage();
    const file = path.join(tmpDir(), 'performance.json');
    const args = ['--score', score, '--state-file', file];
    const first = await spawnServer(args);
    await first.control('play');
    await sleep(1100);
    const before = await first.snapshot();
    expect(before.state).toMatchObject({ transport: 'playing' });
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    // The crash came between two coalesced writes (one every 250 ms while beats stream).
    const last =
      /** @type {{ ok: true, payload: import('../../../../server/performance/save/persist.js').SavePayload }} */ (
        await readSave(file)
      );
    expect(last.ok).toBe(true);
    expect(killedAt - last.payload.savedAt).toBeLessThan(750);

    // The killed server's hold on the file is left behind, naming a pid that is gone: the next
    // start takes it over.
    expect(Number(readFileSync(`${file}.lock`, 'utf8').split('\n')[0])).toBe(first.child.pid);

    const second = await spawnServer(args);
    expect(Number(readFileSync(`${file}.lock`, 'utf8').split('\n')[0])).toBe(second.child.pid);
    const after = await second.snapshot();
    expect(after.epoch).not.toBe(before.epoch);
    expect(after.state.transport).toBe('playing');
    // Where the piece is at the moment the new server answered, by the first server's grid.
    const expected = before.state.beat + Math.floor((after.t - before.state.beatT) / BEAT_MS);
    expect(Math.abs(after.state.beat - expected)).toBeLessThanOrEqual(1);
    expect(after.state.beat).toBeGreaterThan(before.state.beat);
    // Same grid: the beat sounded a whole number of beats after the one seen before the crash.
    const beats = (after.state.beatT - before.state.beatT) / BEAT_MS;
    expect(beats).toBeCloseTo(after.state.beat - before.state.beat, 6);
    const { resume } = await second.status();
    expect(resume).toMatchObject({ resumed: true, transport: 'playing', file });
    expect(resume.beat).toBeGreaterThan(before.state.beat);
    expect(second.output).not.toMatch(/saved performance not used/);
  }, 30_000);

  it('after the console loaded another score of the scores folder and played it, the restart with the same --score goes on with that score at the right beat', async () => {
    const library = tmpDir();
    for (const [name, id] of [
      ['first', 'first-piece'],
      ['second', 'second-piece'],
    ]) {
      mkdirSync(path.join(library, name));
      writeFileSync(
        path.join(library, name, 'score.yaml'),
        `id: ${id}\ntitle: ${id}\nbars: 64\nmeter: [{ bar: 1, time: 4/4, tempo: 240 }]\n`,
      );
    }
    const file = path.join(tmpDir(), 'performance.json');
    const args = ['--score', path.join(library, 'first'), '--state-file', file];
    const first = await spawnServer(args);
    const loaded = await first.post('/api/load', { score: 'second' });
    expect(loaded).toMatchObject({ score: 'second-piece' });
    await first.control('play');
    await sleep(600);
    // The kill comes once the switch and the play are on disk (written at once, but on a loaded
    // machine the atomic write can take longer than the 600 ms above: a kill before it restarts
    // the first piece, stopped, which is right for a crash before the write).
    for (let tries = 0; tries < 100; tries++) {
      const read = existsSync(file) ? await readSave(file) : null;
      if (read?.ok && read.payload.score.id === 'second-piece' && read.payload.performance.transport === 'playing')
        break;
      await sleep(100);
    }
    const before = await first.snapshot();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await spawnServer(args);
    const after = await second.snapshot();
    expect(after.state).toMatchObject({ transport: 'playing', score: { id: 'second-piece' } });
    const expected = before.state.beat + Math.floor((after.t - before.state.beatT) / BEAT_MS);
    expect(Math.abs(after.state.beat - expected)).toBeLessThanOrEqual(1);
    expect((await second.status()).resume).toMatchObject({ resumed: true });
    expect(second.output).toMatch(
      new RegExp(
        `score: +${escapeRegExp(path.join(library, 'second'))} +\\(the console's switch, resumed; --score was ${escapeRegExp(path.join(library, 'first'))}\\)`,
      ),
    );
  }, 30_000);

  it('a score the console loaded but never played is not resumed: --score plays, and the banner and status say why', async () => {
    const library = twoScores();
    const file = path.join(tmpDir(), 'performance.json');
    const args = ['--score', path.join(library, 'a'), '--state-file', file];
    const first = await spawnServer(args);
    expect(await first.post('/api/load', { score: 'b' })).toMatchObject({ score: 'piece-b' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await spawnServer(args);
    expect((await second.snapshot()).state).toMatchObject({ transport: 'stopped', beat: 0, score: { id: 'piece-a' } });
    const { resume } = await second.status();
    expect(resume).toMatchObject({
      resumed: false,
      code: 'SC_ERR_SAVE_NOT_UNDER_WAY',
      problem: expect.stringMatching(/never played/),
    });
    expect(readFileSync(resume.keptAs, 'utf8')).toMatch(/"piece-b"/);
    expect(second.output).toMatch(/not resumed \(SC_ERR_SAVE_NOT_UNDER_WAY\): the console had switched to "Piece b"/);
  }, 30_000);

  it('stopped (SIGTERM), it flushes the save on the way out and comes back paused where it was', async () => {
    const score = scorePackage();
    const file = path.join(tmpDir(), 'performance.json');
    const args = ['--score', score, '--state-file', file];
    const first = await spawnServer(args);
    await first.control('play');
    await sleep(600);
    const paused = (await first.control('pause')).state;
    await sleep(400);
    const savedBefore =
      /** @type {{ ok: true, payload: import('../../../../server/performance/save/persist.js').SavePayload }} */ (
        await readSave(file)
      );
    expect(savedBefore.payload.performance).toMatchObject({ transport: 'paused' });
    // Paused mid-beat: the save keeps the fraction, so that play goes on for the rest of the beat.
    expect(Math.floor(savedBefore.payload.performance.beat)).toBe(paused.beat);
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const saved =
      /** @type {{ ok: true, payload: import('../../../../server/performance/save/persist.js').SavePayload }} */ (
        await readSave(file)
      );
    // Nothing changed while paused: only the shutdown flush wrote after the signal.
    expect(saved.payload.savedAt).toBeGreaterThanOrEqual(signalledAt - 5);
    expect(saved.payload.performance).toEqual(savedBefore.payload.performance);

    const second = await spawnServer(args);
    expect((await second.snapshot()).state).toMatchObject({ transport: 'paused', beat: paused.beat, bar: paused.bar });
    expect((await second.status()).resume).toMatchObject({
      resumed: true,
      beat: paused.beat,
      savedAt: saved.payload.savedAt,
    });
  }, 30_000);

  it('a damaged save is reported, kept aside, and the server starts fresh; --no-resume starts fresh too', async () => {
    const score = scorePackage();
    const file = path.join(tmpDir(), 'performance.json');
    writeFileSync(file, '{"format":"scorecast-performance","version":1,"sha256":"00","payload":{"savedAt":1}}');
    const first = await spawnServer(['--score', score, '--state-file', file]);
    expect((await first.snapshot()).state).toMatchObject({ transport: 'stopped', beat: 0 });
    const { resume } = await first.status();
    expect(resume).toMatchObject({
      resumed: false,
      code: 'SC_ERR_SAVE_UNREADABLE',
      problem: expect.stringMatching(/sha256 does not match/),
    });
    expect(readFileSync(resume.keptAs, 'utf8')).toMatch(/"sha256":"00"/);
    expect(first.output).toMatch(/saved performance not used: the sha256 does not match/);
    await first.control('play');
    first.child.kill('SIGTERM');
    await first.exited;

    const second = await spawnServer(['--score', score, '--state-file', file, '--no-resume']);
    expect((await second.snapshot()).state).toMatchObject({ transport: 'stopped', beat: 0 });
    expect((await second.status()).resume).toMatchObject({
      resumed: false,
      note: expect.stringMatching(/resume is off/),
    });
  }, 30_000);
});

describe('the score named is the score that plays', () => {
  it("a save made under another --score never overrides the command line: b plays, and the banner and status say why a's save was set aside", async () => {
    const library = twoScores();
    const file = path.join(tmpDir(), 'performance.json');
    // Started on a, stopped with nothing played: the save holds a at beat 0.
    const first = await spawnServer(['--score', path.join(library, 'a'), '--state-file', file]);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await readSave(file)).toMatchObject({
      ok: true,
      payload: { score: { id: 'piece-a' }, start: path.join(library, 'a') },
    });

    const second = await spawnServer(['--score', path.join(library, 'b'), '--state-file', file]);
    expect((await second.snapshot()).state).toMatchObject({ score: { id: 'piece-b' } });
    const { resume } = await second.status();
    expect(resume).toMatchObject({
      resumed: false,
      code: 'SC_ERR_SAVE_OTHER_START',
      problem: expect.stringContaining(`started with --score ${path.join(library, 'a')}`),
    });
    // Kept aside, never lost.
    expect(readFileSync(resume.keptAs, 'utf8')).toMatch(/"piece-a"/);
    expect(second.output).toMatch(/scorecast is playing "Piece b"/);
    expect(second.output).toMatch(new RegExp(`score: +${escapeRegExp(path.join(library, 'b'))}\n`));
    expect(second.output).toMatch(new RegExp(`save: +${escapeRegExp(file)}\n`));
    expect(second.output).toMatch(
      /not resumed \(SC_ERR_SAVE_OTHER_START\): the save belongs to a server started with --score/,
    );
    expect(second.output).toMatch(/the save is kept as .*performance\.json\.bad-/);
  }, 30_000);

  it("by default each --score has its own save: a then b serves b, and a's save is still there for a", async () => {
    const library = twoScores();
    const started = [];
    for (const name of ['a', 'b']) {
      const server = await spawnServer(['--score', path.join(library, name)]);
      const file = /save: +(\S+)/.exec(server.output)?.[1] ?? '';
      // In the project's .cache: removed after the test, with its lock and anything kept aside.
      cleanup.push(() => {
        for (const f of readdirSync(path.dirname(file)).filter((n) => n.startsWith(path.basename(file))))
          rmSync(path.join(path.dirname(file), f));
      });
      expect((await server.snapshot()).state).toMatchObject({ score: { id: `piece-${name}` } });
      expect((await server.status()).resume).toMatchObject({
        resumed: false,
        note: expect.stringMatching(/no saved performance/),
      });
      if (name === 'a') await server.control('play');
      await sleep(300);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      started.push(file);
    }
    expect(started[0]).not.toBe(started[1]);
    expect(started.map((f) => path.dirname(f))).toEqual([path.join(ROOT, '.cache'), path.join(ROOT, '.cache')]);
    const again = await spawnServer(['--score', path.join(library, 'a')]);
    expect((await again.snapshot()).state).toMatchObject({ transport: 'playing', score: { id: 'piece-a' } });
    expect((await again.status()).resume).toMatchObject({ resumed: true, file: started[0] });
  }, 30_000);

  it('a second server on the same state file refuses to start, naming the file and --state-file; with a file of its own it runs', async () => {
    const library = twoScores();
    const file = path.join(tmpDir(), 'performance.json');
    const first = await spawnServer(['--score', path.join(library, 'a'), '--state-file', file]);
    const refused = fork(
      path.join(ROOT, 'server', 'commands', 'start.js'),
      ['--port', '0', '--host', '127.0.0.1', '--score', path.join(library, 'b'), '--state-file', file],
      {
        env: { ...process.env, SCORECAST_TOKEN: TOKEN, SCORECAST_QR: '0' },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    );
    let stderr = '';
    refused.stderr?.on('data', (d) => {
      stderr += d;
    });
    refused.stdout?.resume();
    /** @type {boolean} */
    let listened = false;
    refused.on('message', () => {
      listened = true;
    });
    const code = await new Promise((resolve) => refused.once('exit', resolve));
    expect(listened).toBe(false);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file} is held by the server running as pid ${first.child.pid}`);
    expect(stderr).toContain('--state-file');
    // The first server's save and hold are untouched.
    expect(Number(readFileSync(`${file}.lock`, 'utf8').split('\n')[0])).toBe(first.child.pid);
    expect((await first.snapshot()).state).toMatchObject({ score: { id: 'piece-a' } });

    const own = await spawnServer(['--score', path.join(library, 'b'), '--state-file', path.join(tmpDir(), 'b.json')]);
    expect((await own.snapshot()).state).toMatchObject({ score: { id: 'piece-b' } });
    expect((await first.snapshot()).state).toMatchObject({ score: { id: 'piece-a' } });
    // On the way out each server lets go of its file.
    first.child.kill('SIGTERM');
    await first.exited;
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 30_000);
});
