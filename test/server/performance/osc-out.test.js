// OSC cues go out over UDP on their beats when the server is started with --osc (ZScore's max:
// lines drove its Max patch this way); listened to on a loopback socket.

import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { decode } from 'node-osc';
import { buildScoreModel } from '../../../core/manifest.js';
import { buildApp } from '../../../server/app.js';
import { createOscOut, encodeOscMessage, parseOscTarget } from '../../../server/performance/osc-out.js';
import { readConfig } from '../../../server/commands/config.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { packageOf } from '../../helpers/fixtures.js';

/** A message as received: address and plain argument values. @param {Buffer} b */
const received = (b) => {
  const m = /** @type {any} */ (decode(b));
  return { address: m.address, args: m.args.map((/** @type {{ value: unknown }} */ a) => a.value) };
};

/** A UDP listener on loopback that keeps every message it gets, decoded. */
async function listener() {
  const socket = dgram.createSocket('udp4');
  /** @type {any[]} */
  const got = [];
  socket.on('message', (b) => got.push(received(b)));
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(undefined)));
  return { socket, got, port: socket.address().port };
}

/** @param {() => boolean} cond */
async function until(cond, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
}

/**
 * A score of `bars` bars of 4/4 at 120 with these OSC cues.
 * @param {unknown[]} osc @param {number} [bars]
 */
function withOsc(osc, bars = 2) {
  const r = buildScoreModel({ id: 'osc', title: 'OSC', bars, meter: [{ bar: 1, time: '4/4', tempo: 120 }], osc });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/** 2 bars of 4/4 at 120 with OSC cues on beats 0, 1 and 5. */
const model = () =>
  withOsc([
    { at: 5, address: '/zs/b2', args: ['stop'] },
    { at: 0, address: '/zs/b1', args: ['play'] },
    { bar: 1, beat: 2, address: '/zs/mcGroove.mcgHarmonics', args: ['send', 'int', 3, 0.5] },
  ]);

/** @type {(() => unknown)[]} */
let cleanup = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A listener and an OSC output sending to it, both closed after the test. */
async function sender() {
  const l = await listener();
  cleanup.push(() => new Promise((r) => l.socket.close(() => r(undefined))));
  const out = createOscOut({ host: '127.0.0.1', port: l.port });
  cleanup.push(() => out.close());
  return { l, out };
}

describe('OSC output', () => {
  it('encodes OSC 1.0: whole numbers as int32, others as float32, text as strings', () => {
    const b = encodeOscMessage('/zs/x', ['send', 3, 0.5]);
    expect(b.length % 4).toBe(0);
    expect(b.subarray(0, 8).toString('latin1')).toBe('/zs/x\0\0\0');
    expect(b.subarray(8, 12).toString('latin1')).toBe(',sif');
    expect(received(b)).toEqual({ address: '/zs/x', args: ['send', 3, 0.5] });
  });

  it('sends the messages of a beat as it sounds, and nothing on beats without any', async () => {
    const { l, out } = await sender();
    const m = model();
    expect(out.beat(m, 2)).toBe(0);
    expect(out.beat(m, 1)).toBe(1);
    expect(await until(() => l.got.length === 1)).toBe(true);
    expect(l.got[0]).toEqual({ address: '/zs/mcGroove.mcgHarmonics', args: ['send', 'int', 3, 0.5] });
  });

  it('names the page chosen for a slot where a cue says {page:N} (the slot itself while undecided)', async () => {
    const { l, out } = await sender();
    const m = withOsc([{ at: 1, address: '/zs/b2', args: ['setFile', 'UnionRose_b{page:10}.wav'] }], 1);
    out.beat(m, 1, (slot) => (slot === 10 ? 3 : null));
    out.beat(m, 1);
    expect(await until(() => l.got.length === 2)).toBe(true);
    expect(l.got.map((m) => m.args[1])).toEqual(['UnionRose_b3.wav', 'UnionRose_b10.wav']);
  });

  it('a playing server sends each cue on its beat, in beat order', async () => {
    const { l, out: osc } = await sender();
    const clock = createFakeClock();
    const { app, conductor } = await buildApp({ score: packageOf(model()), token: 'tok-123456789', clock, osc });
    cleanup.push(() => app.close());
    conductor.play();
    expect(await until(() => l.got.length === 1)).toBe(true);
    expect(l.got[0].address).toBe('/zs/b1');
    clock.advance(500);
    expect(await until(() => l.got.length === 2)).toBe(true);
    clock.advance(1000); // beats 2 and 3: nothing
    await new Promise((r) => setTimeout(r, 50));
    expect(l.got).toHaveLength(2);
    clock.advance(1000); // beats 4 and 5
    expect(await until(() => l.got.length === 3)).toBe(true);
    expect(l.got.map((m) => m.args[0])).toEqual(['play', 'send', 'stop']);
  });

  it("sends the set-up of a start position (ZScore's reset= lines): the latest set at or before it, and set-up-only cues never on their beat", async () => {
    const { l, out: osc } = await sender();
    const clock = createFakeClock();
    const m = withOsc([
      { at: 1, address: '/zs/b1', args: ['setFile', 'a1.wav'], setup: 'only' },
      { at: 1, address: '/zs/2', args: ['preset'], setup: 'only' },
      { at: 1, address: '/zs/b1', args: ['play'] },
      { at: 4, address: '/zs/b2', args: ['setFile', 'a2.wav'], setup: 'also' },
    ]);
    const { app, conductor } = await buildApp({ score: packageOf(m), token: 'tok-123456789', clock, osc });
    cleanup.push(() => app.close());
    // From the top: beat 0 comes before every set-up, so nothing is sent as set-up.
    conductor.play();
    await new Promise((res) => setTimeout(res, 50));
    expect(l.got).toEqual([]);
    clock.advance(500); // beat 1: its cue, not its set-up-only lines
    expect(await until(() => l.got.length === 1)).toBe(true);
    expect(l.got[0]).toEqual({ address: '/zs/b1', args: ['play'] });
    // A seek to beat 3 while playing, landing on the grid where beat 2 would have sounded: the
    // set of beat 1 (the latest at or before 3), then beat 3.
    conductor.seek(3);
    clock.advance(500);
    expect(await until(() => l.got.length === 3)).toBe(true);
    expect(l.got.slice(1)).toEqual([
      { address: '/zs/b1', args: ['setFile', 'a1.wav'] },
      { address: '/zs/2', args: ['preset'] },
    ]);
    clock.advance(500); // beat 4 sounds: an `also` line is a cue too
    expect(await until(() => l.got.length === 4)).toBe(true);
    expect(l.got[3]).toEqual({ address: '/zs/b2', args: ['setFile', 'a2.wav'] });
    // Paused, moved, played: the set-up of the new start (beat 6: the set of beat 4).
    conductor.pause();
    conductor.seek(6);
    await new Promise((res) => setTimeout(res, 50));
    expect(l.got).toHaveLength(4);
    conductor.play();
    expect(await until(() => l.got.length === 5)).toBe(true);
    expect(l.got[4]).toEqual({ address: '/zs/b2', args: ['setFile', 'a2.wav'] });
    await new Promise((res) => setTimeout(res, 50));
    expect(l.got).toHaveLength(5);
  });

  it('reads --osc HOST:PORT, and is off without it', () => {
    expect(parseOscTarget('127.0.0.1:7000')).toEqual({ host: '127.0.0.1', port: 7000 });
    expect(parseOscTarget('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(() => parseOscTarget('localhost')).toThrow(/HOST:PORT/);
    expect(() => parseOscTarget('a:70000')).toThrow(/HOST:PORT/);
    expect(readConfig(['--osc', 'max.local:7400'], {}).osc).toEqual({ host: 'max.local', port: 7400 });
    expect(readConfig([], {}).osc).toBeNull();
  });
});
