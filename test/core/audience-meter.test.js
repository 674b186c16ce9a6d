import { describe, it, expect } from 'vitest';
import { AudienceMeter, meterPatch, meterToBand } from '../../core/audience-meter.js';
import { encode } from '../../core/protocol.js';

const dev = (/** @type {number} */ i) => `device-${String(i).padStart(4, '0')}`;

describe('audience meter: thumbs into one bounded value', () => {
  it('is the share of ups minus downs among the voices of the window, between -1 and 1', () => {
    const m = new AudienceMeter({ smoothingMs: 0 }, 0);
    m.setOpen(true, 0);
    expect(m.raw(0)).toBe(0);
    for (let i = 0; i < 3; i++) expect(m.thumb(dev(i), 'up', 10)).toEqual({ ok: true });
    expect(m.thumb(dev(3), 'down', 10)).toEqual({ ok: true });
    expect(m.raw(10)).toBe(0.5);
    expect(m.count(10)).toBe(4);
  });

  it('counts one voice a device: a new thumb replaces its last', () => {
    const m = new AudienceMeter({ smoothingMs: 0, perDevice: { perSecond: 100, burst: 100 } }, 0);
    m.setOpen(true, 0);
    for (let k = 0; k < 10; k++) m.thumb(dev(1), 'up', k);
    m.thumb(dev(2), 'down', 20);
    expect(m.raw(20)).toBe(0);
    m.thumb(dev(1), 'down', 30);
    expect(m.raw(30)).toBe(-1);
    expect(m.count(30)).toBe(2);
  });

  it('forgets a thumb after the window, unless the device thumbed again', () => {
    const m = new AudienceMeter({ smoothingMs: 0, windowMs: 1000 }, 0);
    m.setOpen(true, 0);
    m.thumb(dev(1), 'up', 0);
    m.thumb(dev(2), 'down', 0);
    m.thumb(dev(2), 'down', 600);
    expect(m.raw(999)).toBe(0);
    expect(m.raw(1000)).toBe(-1);
    expect(m.raw(1600)).toBe(0);
    expect(m.count(1600)).toBe(0);
  });

  it('keeps each voice for exactly the window with 1,500 devices thumbing twice a second, at wall-clock times', () => {
    // Enough thumbs that the queue of thumbs to expire is compacted many times over (30,000 held at
    // once), at times such as Date.now() gives, which are not small integers.
    const t0 = 1.8e12 + 0.5;
    const m = new AudienceMeter({ smoothingMs: 0 }, t0);
    m.setOpen(true, t0);
    let t = t0;
    let refused = 0;
    for (let step = 0; step < 60; step++) {
      t = t0 + step * 500;
      for (let i = 0; i < 1500; i++) {
        // Devices 0-499 change their minds every time; the rest hold up (even) or down (odd).
        const value = i < 500 ? (step % 2 ? 'down' : 'up') : i % 2 ? 'down' : 'up';
        if (!m.thumb(dev(i), value, t).ok) refused++;
      }
      expect(m.count(t)).toBe(1500);
    }
    expect(refused).toBe(0);
    // The last round was all down for devices 0-499: 500 ups (even of 500-1499) and 1,000 downs.
    expect(m.raw(t)).toBeCloseTo((500 - 1000) / 1500, 12);
    // Devices 0-749 thumb once more, 250 ms later; then nobody.
    const last = t + 250;
    for (let i = 0; i < 750; i++) m.thumb(dev(i), 'up', last);
    expect(m.count(t + 10_000 - 1)).toBe(1500);
    expect(m.count(t + 10_000)).toBe(750);
    expect(m.raw(t + 10_000)).toBe(1);
    expect(m.count(last + 10_000 - 1)).toBe(750);
    expect(m.count(last + 10_000)).toBe(0);
    expect(m.raw(last + 10_000)).toBe(0);
  });

  it('caps the thumbs of a device, and refuses them while the score shows no thumbs', () => {
    const m = new AudienceMeter({ perDevice: { perSecond: 2, burst: 2 } }, 0);
    expect(m.thumb(dev(1), 'up', 0)).toMatchObject({ ok: false, error: { code: 'SC_ERR_THUMBS_CLOSED' } });
    m.setOpen(true, 0);
    expect(m.thumb(dev(1), 'up', 0).ok).toBe(true);
    expect(m.thumb(dev(1), 'up', 0).ok).toBe(true);
    expect(m.thumb(dev(1), 'up', 0)).toMatchObject({ ok: false, error: { code: 'SC_ERR_RATE_LIMITED' } });
    expect(m.thumb(dev(1), 'up', 500).ok).toBe(true);
    expect(m.thumb('short', 'up', 500)).toMatchObject({ ok: false, error: { code: 'SC_ERR_BAD_DEVICE' } });
    expect(m.thumb(dev(2), 'sideways', 500)).toMatchObject({ ok: false, error: { code: 'SC_ERR_BAD_MESSAGE' } });
    m.setOpen(false, 600);
    expect(m.count(600)).toBe(0);
  });

  it('holds at most maxDevices voices', () => {
    const m = new AudienceMeter({ maxDevices: 2 }, 0);
    m.setOpen(true, 0);
    expect(m.thumb(dev(1), 'up', 0).ok).toBe(true);
    expect(m.thumb(dev(2), 'up', 0).ok).toBe(true);
    expect(m.thumb(dev(3), 'up', 0)).toMatchObject({ ok: false, error: { code: 'SC_ERR_RATE_LIMITED' } });
    expect(m.thumb(dev(1), 'down', 0).ok).toBe(true);
  });
});

describe('audience meter: what is published', () => {
  it('smooths the value and publishes a change at most every minIntervalMs, and only by a step', () => {
    const m = new AudienceMeter({ smoothingMs: 1000, minIntervalMs: 250, step: 0.05 }, 0);
    m.setOpen(true, 0);
    expect(m.poll(0)).toBe(0);
    for (let i = 0; i < 10; i++) m.thumb(dev(i), 'up', 0);
    expect(m.poll(100)).toBe(null); // too soon
    const first = m.poll(250);
    expect(first).toBeCloseTo(0.2, 5); // 1 - e^-0.25 = 0.221, to the step
    /** @type {number[]} */
    const values = [];
    for (let t = 300; t <= 6000; t += 50) {
      const v = m.poll(t);
      if (v !== null) values.push(v);
    }
    // rises towards 1 without overshoot, in steps; never more than 4 a second
    expect(values.at(-1)).toBe(1);
    expect(values.every((v, k) => k === 0 || v > values[k - 1])).toBe(true);
    expect(values.length).toBeLessThanOrEqual(Math.ceil((6000 - 250) / 250));
    // nothing more once it is steady
    expect(m.poll(7000)).toBe(null);
  });

  it('a change is a patch of a few dozen bytes on the wire', () => {
    const delta = encode({
      type: 'delta',
      epoch: 'k3J9x2',
      seq: 123456,
      t: 1764180000000.25,
      patch: meterPatch(-0.42),
    });
    // the state patch itself: the parts, the phones and the console read the same state's
    // `meter`, so one patch serves every page
    expect(JSON.stringify(meterPatch(-0.42))).toBe('{"meter":-0.42}');
    // and the whole delta envelope, as the hub sends it once for every client
    expect(delta.length).toBeLessThanOrEqual(120);
  });

  it('maps the meter to a band of an overlay or a cue', () => {
    expect(meterToBand(-1, [0, 10])).toBe(0);
    expect(meterToBand(0, [0, 10])).toBe(5);
    expect(meterToBand(3, [0, 10])).toBe(10);
  });
});
