// Saving and resuming (server/performance/save/persist.js): coalesced writes, and what happens at start with a good,
// missing or bad file. The file's format and the file operations have their own tests
// (format.test.js, file.test.js).

import path from 'node:path';
import os from 'node:os';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, it, expect } from 'vitest';
import { createMemoryBus } from '../../../../server/live/bus.js';
import { createConductor } from '../../../../server/performance/conductor.js';
import {
  attachPersistence,
  createSaver,
  encodeSave,
  readSave,
  removeStaleTemps,
  startRefusal,
  switchedScore,
} from '../../../../server/performance/save/persist.js';
import { createFakeClock } from '../../../helpers/fake-clock.js';
import { WALL0, model, payload } from '../../../helpers/saved-performance.js';

const tmpDir = () => mkdtempSync(path.join(os.tmpdir(), 'sc-persist-'));
/** Let the saver's promise chain (and real file writes) run. */
const settle = () => new Promise((r) => setTimeout(r, 5));

function fakeLog() {
  /** @type {{ level: string, obj: any, msg: string }[]} */
  const lines = [];
  /** @param {string} level */
  const at = (level) => (/** @type {any} */ obj, /** @type {string} */ msg) => {
    lines.push({ level, obj, msg });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** @param {{ file: string, resume?: boolean, extra?: object, wall?: number }} o */
async function start({ file, resume, extra, wall = WALL0 + 10_000 }) {
  const clock = createFakeClock({ wallStart: wall });
  const bus = createMemoryBus();
  const conductor = createConductor({ model: model(extra), bus, clock, epoch: 'fresh' });
  const log = fakeLog();
  const persistence = await attachPersistence({
    file,
    resume,
    conductor,
    bus,
    clock,
    log,
    scoreDir: () => '/scores/saved',
  });
  return { clock, conductor, persistence, log };
}
describe('temp files of an interrupted save', () => {
  it("are removed at start when their writer is gone; a running writer's are kept", async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'performance.json');
    // A process that has exited: its pid is free (unless reused within this test, which the
    // kernel avoids by counting pids upward).
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(path.join(dir, `performance.json.${deadPid}-3.tmp`), '{"half":');
    writeFileSync(path.join(dir, `performance.json.${process.pid}-1.tmp`), '{"mine":');
    writeFileSync(path.join(dir, 'performance.json.bad-2025-11-22T10-15-03.123Z'), 'kept aside');
    writeFileSync(path.join(dir, 'other.json.1-1.tmp'), 'not ours');
    const { log } = await start({ file });
    expect(readdirSync(dir).sort()).toEqual(
      [
        `performance.json.${process.pid}-1.tmp`,
        'performance.json.bad-2025-11-22T10-15-03.123Z',
        'other.json.1-1.tmp',
        // This server's hold on the file (state-lock.js).
        'performance.json.lock',
      ].sort(),
    );
    expect(log.lines.find((l) => l.msg.includes('interrupted save'))?.obj.removed).toEqual([
      `performance.json.${deadPid}-3.tmp`,
    ]);
    expect(await removeStaleTemps(path.join(dir, 'missing', 'performance.json'))).toEqual([]);
  });
});

describe('coalesced saving', () => {
  /** @param {{ slow?: boolean }} [o] */
  function saver({ slow = false } = {}) {
    const clock = createFakeClock();
    let version = 0;
    /** @type {{ text: string, at: number }[]} */
    const writes = [];
    /** @type {(() => void)[]} */
    const inFlight = [];
    const s = createSaver({
      clock,
      text: () => `v${version}`,
      write: (text) => {
        writes.push({ text, at: clock.now() });
        return slow
          ? new Promise((r) => {
              inFlight.push(() => r(undefined));
            })
          : Promise.resolve();
      },
    });
    return {
      clock,
      s,
      writes,
      inFlight,
      bump() {
        version++;
        s.changed();
      },
    };
  }

  it('writes a stream of beats at most every 250 ms, the first at once and the newest last', async () => {
    const { clock, s, writes, bump } = saver();
    const t0 = clock.now();
    // 600 bpm for 2 s: 20 changes.
    for (let i = 0; i < 20; i++) {
      bump();
      await settle();
      clock.advance(100);
      await settle();
    }
    clock.advance(300);
    await settle();
    expect(writes.map((w) => w.at - t0)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000]);
    expect(writes.at(-1)?.text).toBe('v20');
    expect(s.pending).toBe(false);
  });

  it('writes an urgent change at once, and after the write in progress when there is one', async () => {
    const { clock, s, writes, inFlight } = saver({ slow: true });
    s.changed();
    expect(writes).toHaveLength(1);
    clock.advance(10);
    s.changed(true);
    s.changed(true);
    expect(writes).toHaveLength(1); // one write at a time
    inFlight.shift()?.();
    await settle();
    expect(writes.map((w) => w.at)).toEqual([1000, 1010]); // the two urgent changes in one write
    inFlight.shift()?.();
    await settle();
    expect(s.pending).toBe(false);
  });

  it('flushes the newest state on close, and then ignores changes', async () => {
    const { clock, s, writes, bump } = saver();
    bump();
    bump(); // within the interval: waits for the timer
    await settle();
    expect(writes.map((w) => w.text)).toEqual(['v1']);
    await s.close();
    expect(writes.map((w) => w.text)).toEqual(['v1', 'v2']);
    bump();
    clock.advance(1000);
    await settle();
    expect(writes).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });
});

describe('resume at start', () => {
  it('reports what it resumed with playback and, deprecated for one version, transport alike', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    writeFileSync(file, encodeSave(payload()));
    const { persistence } = await start({ file });
    expect(persistence.status()).toMatchObject({ resumed: true, playback: 'paused', transport: 'paused' });
    await persistence.close();
  });

  it('takes up a valid save for this score and says so', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    writeFileSync(file, encodeSave(payload()));
    const { conductor, persistence, log } = await start({ file });
    expect(conductor.state).toMatchObject({ transport: 'paused', beat: 6 });
    expect(conductor.epoch).not.toBe('fresh');
    expect(persistence.status()).toMatchObject({ resumed: true, file, beat: 6, transport: 'paused', savedAt: WALL0 });
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    await persistence.close();
    const saved = await readSave(file);
    expect(saved).toMatchObject({
      ok: true,
      payload: {
        epoch: conductor.epoch,
        savedAt: WALL0 + 10_000,
        score: { id: 'saved', dir: '/scores/saved' },
        performance: { transport: 'paused', beat: 6 },
      },
    });
    expect(persistence.status().lastWrite).toEqual({ at: WALL0 + 10_000 });
  });

  it('starts fresh without a save, and with resume off (replacing the save)', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'performance.json');
    const none = await start({ file });
    expect(none.persistence.status()).toMatchObject({
      resumed: false,
      note: expect.stringMatching(/no saved performance/),
    });
    await none.persistence.close();

    writeFileSync(file, encodeSave(payload()));
    const off = await start({ file, resume: false });
    expect(off.conductor.state).toMatchObject({ transport: 'stopped', beat: 0 });
    expect(off.persistence.status()).toMatchObject({ resumed: false, note: expect.stringMatching(/resume is off/) });
    await off.persistence.close();
    expect(await readSave(file)).toMatchObject({
      ok: true,
      payload: { performance: { transport: 'stopped', beat: 0 } },
    });
    expect(readdirSync(dir)).toEqual(['performance.json']);
  });

  const good = encodeSave(payload());
  it.each([
    ['corrupt', '{"format":"scorecast-perf\u0000\u0000', 'SC_ERR_SAVE_UNREADABLE', /not valid JSON/],
    ['truncated', good.slice(0, 100), 'SC_ERR_SAVE_UNREADABLE', /not valid JSON/],
    ['edited', good.replace('"beat":6', '"beat":2'), 'SC_ERR_SAVE_UNREADABLE', /sha256 does not match/],
    [
      'from a future version',
      good.replace('"version":1', '"version":7'),
      'SC_ERR_SAVE_UNREADABLE',
      /format version 7 is newer/,
    ],
    [
      'for another score',
      encodeSave({ ...payload(), score: { ...payload().score, id: 'other', dir: '/scores/other' } }),
      'SC_ERR_SAVE_MISMATCH',
      /the save is for score "other" \(\/scores\/other\); this server plays "saved"/,
    ],
    [
      'for another version of the score',
      encodeSave({ ...payload(), score: { ...payload().score, fingerprint: '32:0000000000000000' } }),
      'SC_ERR_SAVE_MISMATCH',
      /another version of "saved": its bars, tempo or vote windows have changed/,
    ],
    [
      'summed but not fitting the score',
      encodeSave(payload({ beat: 99 })),
      'SC_ERR_SAVE_MISMATCH',
      /does not fit the score: .*beat must be in 0\.\.31/,
    ],
  ])('a %s save is refused with the reason, kept aside, and the server starts fresh', async (_, text, code, reason) => {
    const dir = tmpDir();
    const file = path.join(dir, 'performance.json');
    writeFileSync(file, text);
    const { conductor, persistence, log } = await start({ file });
    expect(conductor.state).toMatchObject({ transport: 'stopped', beat: 0 });
    expect(conductor.epoch).toBe('fresh');
    const status = persistence.status();
    expect(status).toMatchObject({
      resumed: false,
      code,
      problem: expect.stringMatching(reason),
      keptAs: `${file}.bad-2023-11-14T22-13-30.000Z`,
    });
    expect(readFileSync(/** @type {string} */ (status.keptAs), 'utf8')).toBe(text);
    const warning = log.lines.find((l) => l.level === 'warn');
    expect(warning?.msg).toMatch(reason);
    expect(warning?.obj).toMatchObject({ code, keptAs: status.keptAs });
    // The fresh performance is saved in its place; the bad file stays where it was put.
    await persistence.close();
    expect(await readSave(file)).toMatchObject({ ok: true, payload: { epoch: 'fresh' } });
    expect(readdirSync(dir).sort()).toEqual(['performance.json', path.basename(/** @type {string} */ (status.keptAs))]);
  });

  it('keeps every bad file: a second one the same millisecond gets its own name', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'performance.json');
    writeFileSync(file, 'first');
    await (await start({ file, wall: WALL0 })).persistence.close();
    writeFileSync(file, 'second');
    const again = await start({ file, wall: WALL0 });
    expect(again.persistence.status().keptAs).toMatch(/\.bad-2023-11-14T22-13-20\.000Z-1$/);
    expect(existsSync(`${file}.bad-2023-11-14T22-13-20.000Z`)).toBe(true);
  });

  it('writes a vote at once, with its voter', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    const { conductor, persistence, clock } = await start({ file });
    conductor.seek(5);
    await persistence.idle();
    clock.advance(10);
    expect(conductor.vote({ tile: 'b', device: 'phone-0001' })).toMatchObject({ ok: true });
    persistence.changed(); // app.js calls it from the conductor's onVoteCast
    await persistence.idle();
    expect(await readSave(file)).toMatchObject({
      ok: true,
      payload: { performance: { beat: 5, ballot: { open: { id: 'v', tally: { b: 1 }, devices: ['phone-0001'] } } } },
    });
    await persistence.close();
  });
});

describe('which start a save belongs to', () => {
  const lib = path.resolve('/srv/scores');
  /**
   * @param {string | null | undefined} start
   * @param {string} dir
   * @param {Partial<import('../../../../server/performance/conductor.js').PerformanceRecord>} [performance]
   * @returns {import('../../../../server/performance/save/persist.js').SavePayload}
   */
  const save = (start, dir, performance = {}) => ({
    savedAt: WALL0,
    epoch: 'e',
    seq: 1,
    score: { id: path.basename(dir), title: path.basename(dir), dir, fingerprint: 'f' },
    performance: { transport: 'playing', beat: 12, rate: 1, ballot: { open: null, closed: [] }, ...performance },
    ...(start === undefined ? {} : { start }),
  });
  const a = path.join(lib, 'a');
  const c = path.join(lib, 'c');

  it("goes on with the console's switch only for the same --score, and only when it was under way", () => {
    expect(switchedScore(save(a, c), a)).toBe(c);
    expect(switchedScore(save(a, c, { transport: 'paused', beat: 3.5 }), a)).toBe(c);
    expect(switchedScore(save(a, c, { transport: 'stopped', beat: 0 }), a)).toBeNull();
    expect(switchedScore(save(a, c), path.join(lib, 'b'))).toBeNull();
    // Not a score of the same folder: never loaded from a save.
    expect(switchedScore(save(a, '/elsewhere/c'), a)).toBeNull();
    // Its own score: nothing to switch to.
    expect(switchedScore(save(a, a), a)).toBeNull();
  });

  it('says why a save is not taken up', () => {
    expect(startRefusal(save(a, a), { start: path.join(lib, 'b'), loadedDir: path.join(lib, 'b') })).toMatchObject({
      code: 'SC_ERR_SAVE_OTHER_START',
    });
    expect(startRefusal(save(a, c, { transport: 'stopped', beat: 0 }), { start: a, loadedDir: a })).toMatchObject({
      code: 'SC_ERR_SAVE_NOT_UNDER_WAY',
    });
    expect(
      startRefusal(save(a, c), { start: a, loadedDir: a, switchProblem: 'its folder or score.yaml is gone' }),
    ).toMatchObject({
      code: 'SC_ERR_SAVE_MISMATCH',
      problem: expect.stringContaining('cannot be loaded now: its folder or score.yaml is gone'),
    });
    expect(startRefusal(save(a, c), { start: a, loadedDir: c })).toBeNull();
    expect(startRefusal(save(a, a, { transport: 'stopped', beat: 0 }), { start: a, loadedDir: a })).toBeNull();
  });

  it('takes a save written before saves named their start to belong to the score it holds', () => {
    expect(startRefusal(save(undefined, a), { start: a, loadedDir: a })).toBeNull();
    expect(startRefusal(save(undefined, c), { start: a, loadedDir: a })).toMatchObject({
      code: 'SC_ERR_SAVE_OTHER_START',
    });
    expect(switchedScore(save(undefined, c), a)).toBeNull();
  });
});
