// The audience meter in the server (meter-state.js, thumb-guard.js, the conductor's `thumb`, POST
// /api/thumb and the WebSocket `thumb` message): thumbs count while the section shows them, one
// device one voice, the value rides in the state as `meter` as a small patch at most every 250 ms
// and decays back to 0 when nobody thumbs, caps per device and per address, and bad input is
// refused with the catalogue's code and a detail that says what was wrong.

import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createHub } from '../../../server/live/hub.js';
import { createThumbGuard } from '../../../server/performance/thumb-guard.js';
import { createDeviceCredentials } from '../../../server/performance/device-credential.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { fakeLink, openFormModel, packageOf, smallModel } from '../../helpers/fixtures.js';

const THUMBS = { thumbs: true, meter: true };

/** A conductor of the open-form fixture whose intro shows thumbs and the meter. */
/** @param {Record<string, import('../../helpers/fixtures.js').SectionOverrides>} [sections] */
function proc(sections = { intro: { audience: THUMBS } }) {
  const clock = createFakeClock();
  const bus = createMemoryBus();
  /** @type {unknown[]} */
  const patches = [];
  bus.subscribe((c) => patches.push(c.patch));
  const conductor = createConductor({ model: openFormModel(sections), bus, clock, epoch: 'e' });
  const meterOf = () => /** @type {any} */ (conductor.state).meter;
  return { clock, conductor, patches, meterOf };
}

const dev = (/** @type {number} */ i) => `device-${String(i).padStart(16, '0')}`;

describe('the meter in the conductor', () => {
  it('is in the state while the section shows thumbs or the meter, and moves with thumbs', () => {
    const { clock, conductor, patches, meterOf } = proc();
    expect(meterOf()).toBe(0);
    for (let i = 0; i < 6; i++) expect(conductor.thumb(dev(i), 'up')).toBe(null);
    for (let i = 6; i < 8; i++) expect(conductor.thumb(dev(i), 'down')).toBe(null);
    expect(conductor.meterReport()).toMatchObject({ open: true, voices: 8, raw: 0.5 });
    patches.length = 0;
    clock.advance(8000);
    // smoothed towards (6 - 2) / 8 = 0.5, in steps of 0.02, never past it
    expect(meterOf()).toBe(0.5);
    const values = patches.map((p) => /** @type {any} */ (p).meter);
    expect(values.every((v) => typeof v === 'number' && v > 0 && v <= 0.5)).toBe(true);
    // each change is the meter alone: {"meter":0.42}
    for (const p of patches) expect(Object.keys(/** @type {object} */ (p))).toEqual(['meter']);
    // at most one every 250 ms
    expect(patches.length).toBeLessThanOrEqual(8000 / 250);
  });

  it('one device, one voice: a device thumbing again replaces its voice', () => {
    const { clock, conductor } = proc();
    for (let k = 0; k < 3; k++) {
      expect(conductor.thumb(dev(1), 'up')).toBe(null);
      clock.advance(600);
    }
    conductor.thumb(dev(2), 'down');
    expect(conductor.meterReport()).toMatchObject({ voices: 2, raw: 0 });
    clock.advance(600);
    conductor.thumb(dev(1), 'down');
    expect(conductor.meterReport()).toMatchObject({ voices: 2, raw: -1 });
  });

  it('decays back to 0 when nobody thumbs, then stops publishing', () => {
    const { clock, conductor, patches, meterOf } = proc();
    for (let i = 0; i < 4; i++) conductor.thumb(dev(i), 'up');
    clock.advance(4000);
    expect(meterOf()).toBeGreaterThan(0.9);
    clock.advance(30_000);
    expect(meterOf()).toBe(0);
    expect(conductor.meterReport().voices).toBe(0);
    const n = patches.length;
    clock.advance(10_000);
    expect(patches.length).toBe(n);
    expect(clock.pending).toBe(0);
  });

  it('caps a device at 2 thumbs a second (4 at once)', () => {
    const { clock, conductor } = proc();
    for (let k = 0; k < 4; k++) expect(conductor.thumb(dev(1), 'up')).toBe(null);
    expect(conductor.thumb(dev(1), 'up')).toMatchObject({ code: 'SC_ERR_RATE_LIMITED' });
    clock.advance(500);
    expect(conductor.thumb(dev(1), 'down')).toBe(null);
  });

  it('refuses thumbs in a section that shows none, and forgets the voices when thumbs close', () => {
    const { conductor, meterOf } = proc({ intro: { audience: THUMBS }, pitch: { audience: { meter: true } } });
    conductor.thumb(dev(1), 'up');
    conductor.chooseSection({ kind: 'choose', request: { who: { role: 'conductor' }, section: 'pitch', round: 0 } });
    conductor.seek(8);
    expect(/** @type {any} */ (conductor.state).section.id).toBe('pitch');
    expect(conductor.thumb(dev(1), 'up')).toMatchObject({
      code: 'SC_ERR_THUMBS_CLOSED',
      message: expect.stringMatching(/this section shows no thumbs/),
    });
    expect(conductor.meterReport()).toMatchObject({ open: false, voices: 0 });
    // the meter is still shown (at rest) where the section shows the meter
    expect(meterOf()).toBe(0);
    conductor.seek(24);
    expect(meterOf()).toBe(undefined);
  });

  it('refuses thumbs for a score without an open form', () => {
    const conductor = createConductor({ model: smallModel(), bus: createMemoryBus(), clock: createFakeClock() });
    expect(conductor.thumb(dev(1), 'up')).toMatchObject({
      code: 'SC_ERR_THUMBS_CLOSED',
      message: expect.stringMatching(/no open form/),
    });
    expect(/** @type {any} */ (conductor.state).meter).toBe(undefined);
  });
});

describe('the thumb guard', () => {
  const credentials = createDeviceCredentials({ secret: 'secret' });

  it('takes only devices this server issued, and caps an address', () => {
    /** @type {string[]} */
    const counted = [];
    let now = 0;
    const guard = createThumbGuard({
      thumb: (device) => {
        counted.push(device);
        return null;
      },
      credentials,
      phonesPerAddress: 2,
      now: () => now,
    });
    const a = credentials.issue();
    expect(guard.cast({ value: 'up', device: a.credential }, { address: '10.0.0.1' })).toBe(null);
    expect(counted).toEqual([a.id]);
    expect(
      guard.cast({ value: 'up', device: `${a.id}.AAAAAAAAAAAAAAAAAAAAAA` }, { address: '10.0.0.1' }),
    ).toMatchObject({
      code: 'SC_ERR_BAD_DEVICE',
    });
    // 2 phones' worth: 8 at once, then 4 a second
    for (let k = 1; k < 8; k++)
      expect(guard.cast({ value: 'up', device: a.credential }, { address: '10.0.0.1' })).toBe(null);
    expect(guard.cast({ value: 'up', device: a.credential }, { address: '10.0.0.1' })).toMatchObject({
      code: 'SC_ERR_RATE_LIMITED',
      message: expect.stringMatching(/this address/),
    });
    expect(guard.cast({ value: 'up', device: a.credential }, { address: '10.0.0.2' })).toBe(null);
    now += 250;
    expect(guard.cast({ value: 'up', device: a.credential }, { address: '10.0.0.1' })).toBe(null);
  });
});

describe('thumbs over the wire', () => {
  /** @type {Awaited<ReturnType<typeof buildApp>>[]} */
  let apps = [];
  afterEach(async () => {
    for (const a of apps) await a.app.close();
    apps = [];
  });

  async function build() {
    const built = await buildApp({
      score: packageOf(openFormModel({ intro: { audience: THUMBS } })),
      token: 'right-token-123456',
    });
    apps.push(built);
    const device = (await built.app.inject({ method: 'POST', url: '/api/device' })).json().device;
    return { ...built, device };
  }

  it('POST /api/thumb counts a thumb, and refuses bad input with a clear error', async () => {
    const { app, device } = await build();
    const thumb = (/** @type {unknown} */ payload) =>
      app.inject({ method: 'POST', url: '/api/thumb', payload: /** @type {any} */ (payload) });
    const ok = await thumb({ value: 'up', device });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ type: 'thumbed', value: 'up' });
    const sideways = await thumb({ value: 'sideways', device });
    expect(sideways.statusCode).toBe(400);
    expect(sideways.json()).toMatchObject({
      code: 'SC_ERR_BAD_MESSAGE',
      message: expect.stringMatching(/"up" or "down"/),
    });
    const noDevice = await thumb({ value: 'up' });
    expect(noDevice.statusCode).toBe(400);
    expect(noDevice.json().message).toMatch(/POST \/api\/device/);
    const invented = await thumb({ value: 'up', device: 'AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA' });
    expect(invented.statusCode).toBe(403);
    expect(invented.json().code).toBe('SC_ERR_BAD_DEVICE');
  });

  it('a WebSocket thumb is counted without an answer; a refused one gets an error', async () => {
    const clock = createFakeClock();
    const bus = createMemoryBus();
    const conductor = createConductor({ model: openFormModel({ intro: { audience: THUMBS } }), bus, clock });
    const credentials = createDeviceCredentials({ secret: 's' });
    const guard = createThumbGuard({
      thumb: (d, v) => conductor.thumb(d, v),
      credentials,
      phonesPerAddress: 32,
      now: clock.wall,
    });
    const hub = createHub({ bus, now: clock.wall, onThumb: (t, from) => guard.cast(t, from) });
    const link = fakeLink();
    const session = hub.attach(link, { epoch: null, seq: 0 });
    const { credential } = credentials.issue();
    const before = link.messages.length;
    session.receive(JSON.stringify({ type: 'thumb', value: 'up', device: credential }), false);
    session.receive(JSON.stringify({ type: 'thumb', value: 'down', device: credential }), false);
    expect(link.messages.length).toBe(before);
    expect(conductor.meterReport()).toMatchObject({ voices: 1, raw: -1 });
    session.receive(JSON.stringify({ type: 'thumb', value: 'up', device: 'nope' }), false);
    expect(link.messages.at(-1)).toMatchObject({ type: 'error', code: 'SC_ERR_BAD_DEVICE' });
    session.receive(JSON.stringify({ type: 'thumb', value: 1, device: credential }), false);
    expect(link.messages.at(-1)).toMatchObject({
      type: 'error',
      code: 'SC_ERR_BAD_MESSAGE',
      message: expect.stringMatching(/thumb.value must be "up" or "down"/),
    });
    // the pages hear the meter move, as a patch of the meter alone
    clock.advance(1000);
    const deltas = link.messages.slice(before).filter((m) => m.type === 'delta');
    expect(deltas.length).toBeGreaterThan(0);
    for (const d of deltas) expect(Object.keys(d.patch)).toEqual(['meter']);
    expect(/** @type {any} */ (hub.state).meter).toBeLessThan(0);
    hub.close();
  });
});
