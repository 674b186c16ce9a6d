// The roster on its own, on a hand-driven clock: each device's status bounded in rate, silence and
// departure as the console sees them, memory bounded, the audience summed up, parts ready or not,
// actions to one device or to all, and play when ready.

import { describe, it, expect, vi, afterEach } from 'vitest';
import { GONE_AFTER_MS, MAX_DEVICES, WORST_ROWS, createRoster } from '../../../server/live/roster.js';
import {
  AUDIENCE_SILENT_AFTER_MS,
  PART_SILENT_AFTER_MS,
  READY_CLOCK_ERROR_MS,
  SLOW_OUTPUT_MS,
  STATUS_MIN_INTERVAL_MS,
} from '../../../core/roster.js';
import { deviceStatus } from '../../helpers/fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A WebSocket session stands for its connection (polling pages are strings). */
const sockets = new Map();
/** @param {string} name */
const socket = (name) => {
  if (!sockets.has(name)) sockets.set(name, { socket: name });
  return sockets.get(name);
};

/** @param {{ parts?: string[], devicesPerAddress?: number }} [o] */
function setup({ parts = ['violin', 'cello'], devicesPerAddress = 0 } = {}) {
  let t = 1_700_000_000_000;
  /** @type {Array<{ to: unknown, do: string }>} */
  const told = [];
  /** @type {string[]} */
  const toldAll = [];
  const roster = createRoster({
    now: () => t,
    stream: () => ({ epoch: 'e1', seq: 10 }),
    parts: () => parts,
    tell: (connection, envelope) => {
      told.push({ to: connection, do: envelope.do });
      return true;
    },
    tellAll: (envelope) => {
      toldAll.push(`${envelope.do}${envelope.all ? ' (all)' : ''}`);
      return 3;
    },
    devicesPerAddress,
  });
  return {
    roster,
    told,
    toldAll,
    advance: (/** @type {number} */ ms) => {
      t += ms;
    },
    /**
     * A device reports from connection `conn`.
     * @param {string} view @param {Record<string, unknown>} over @param {unknown} [conn] @param {string} [address]
     */
    report(view, over, conn = socket(String(over.id)), address = '10.0.0.1') {
      return roster.note('ws', view, deviceStatus(over), { address, connection: conn });
    },
  };
}

describe('roster: each device', () => {
  it(`counts one status per ${STATUS_MIN_INTERVAL_MS} ms; a faster one is refused and changes nothing`, () => {
    const s = setup();
    expect(s.report('violin', { id: 'd1', name: 'first' })).toBeNull();
    s.advance(STATUS_MIN_INTERVAL_MS - 1);
    expect(s.report('violin', { id: 'd1', name: 'second' })?.code).toBe('SC_ERR_RATE_LIMITED');
    expect(s.roster.view().devices[0].name).toBe('first');
    s.advance(1);
    expect(s.report('violin', { id: 'd1', name: 'second' })).toBeNull();
    expect(s.roster.view().devices[0].name).toBe('second');
  });

  it('a reloaded page (same id, a new connection) replaces its row at once, and its old link closing later changes nothing', () => {
    const s = setup();
    s.report('violin', { id: 'd1' }, socket('old'));
    s.advance(10);
    expect(s.report('violin', { id: 'd1', name: 'back' }, socket('new'))).toBeNull();
    s.roster.closed({ connection: socket('old') });
    const [row] = s.roster.view().devices;
    expect(row).toMatchObject({ id: 'd1', name: 'back', link: 'live' });
    expect(s.roster.act('d1', 'reload')).toEqual({ ok: true, sent: 1 });
    expect(s.told.at(-1)).toEqual({ to: socket('new'), do: 'reload' });
  });

  it(`a sound output over ${SLOW_OUTPUT_MS} ms (a Bluetooth headset) is flagged on its row, as the player is told`, () => {
    const s = setup();
    s.report('violin', { id: 'd1', outputMs: 180 });
    s.report('cello', { id: 'd2', outputMs: SLOW_OUTPUT_MS });
    s.report('cello', { id: 'd3', outputMs: null });
    const rows = Object.fromEntries(s.roster.view().devices.map((d) => [d.id, d]));
    expect(rows.d1).toMatchObject({ outputMs: 180, slowOutput: true });
    expect(rows.d2).toMatchObject({ outputMs: SLOW_OUTPUT_MS, slowOutput: false });
    expect(rows.d3).toMatchObject({ outputMs: null, slowOutput: false });
  });

  it(`a part device unheard for ${PART_SILENT_AFTER_MS} ms is silent, a phone after ${AUDIENCE_SILENT_AFTER_MS} ms`, () => {
    const s = setup();
    s.report('violin', { id: 'd1' });
    s.report('audience', { id: 'p1' });
    s.advance(PART_SILENT_AFTER_MS);
    expect(s.roster.view().devices[0].link).toBe('live');
    s.advance(1);
    expect(s.roster.view().devices[0].link).toBe('silent');
    expect(s.roster.view().audience).toMatchObject({ total: 1, live: 1, silent: 0 });
    s.advance(AUDIENCE_SILENT_AFTER_MS - PART_SILENT_AFTER_MS);
    expect(s.roster.view().audience).toMatchObject({ total: 1, live: 0, silent: 1 });
  });

  it(`a device whose link closed is shown gone, refuses actions with SC_ERR_NO_DEVICE, and is forgotten after ${GONE_AFTER_MS} ms`, () => {
    const s = setup();
    s.report('violin', { id: 'd1' }, socket('conn1'));
    s.roster.closed({ connection: socket('conn1') });
    expect(s.roster.view().devices[0].link).toBe('gone');
    const refused = s.roster.act('d1', 'attention');
    expect(refused).toMatchObject({ ok: false, status: 404, error: { code: 'SC_ERR_NO_DEVICE' } });
    s.advance(GONE_AFTER_MS);
    expect(s.roster.view().devices).toEqual([]);
    expect(s.roster.size).toBe(0);
  });

  it('an unknown device or action is refused', () => {
    const s = setup();
    s.report('violin', { id: 'd1' });
    expect(s.roster.act('nobody', 'reload')).toMatchObject({
      ok: false,
      status: 404,
      error: { code: 'SC_ERR_NO_DEVICE' },
    });
    expect(s.roster.act('d1', 'explode')).toMatchObject({
      ok: false,
      status: 404,
      error: { code: 'SC_ERR_UNKNOWN_ACTION' },
    });
    expect(s.told).toEqual([]);
  });

  it('a polling page (its connection a string key) gets its actions in its next report, at most once each', () => {
    const s = setup();
    s.report('violin', { id: 'd1' }, '10.0.0.1 page1');
    s.roster.act('d1', 'attention');
    s.roster.act('d1', 'attention');
    s.roster.act('d1', 'reload');
    expect(s.told).toEqual([]);
    expect(s.roster.take('10.0.0.1 page1')).toEqual(['attention', 'reload']);
    expect(s.roster.take('10.0.0.1 page1')).toEqual([]);
  });

  it('"all" goes to every connection through the hub and to every polling page', () => {
    const s = setup();
    s.report('violin', { id: 'd1' }, '10.0.0.1 page1');
    expect(s.roster.act('all', 'resync')).toEqual({ ok: true, sent: 4 });
    expect(s.toldAll).toEqual(['resync (all)']);
    expect(s.roster.take('10.0.0.1 page1')).toEqual(['resync']);
  });

  it(`remembers at most ${MAX_DEVICES} devices (the longest unheard forgotten) and a capped number per address`, () => {
    const s = setup();
    for (let i = 0; i <= MAX_DEVICES; i++)
      s.report('audience', { id: `p${i}` }, socket(`c${i}`), `10.1.${i >> 8}.${i & 255}`);
    expect(s.roster.size).toBe(MAX_DEVICES);
    expect(s.roster.act('p0', 'reload').ok).toBe(false);
    expect(s.roster.act(`p${MAX_DEVICES}`, 'reload').ok).toBe(true);

    const capped = setup({ devicesPerAddress: 2 });
    expect(capped.report('audience', { id: 'a1' })).toBeNull();
    expect(capped.report('audience', { id: 'a2' })).toBeNull();
    expect(capped.report('audience', { id: 'a3' })?.code).toBe('SC_ERR_ADDRESS_LIMIT');
    expect(capped.report('audience', { id: 'a3' }, socket('a3'), '10.0.0.2')).toBeNull();
  });
});

describe('roster: what the console gets', () => {
  it(`1,500 phones are summed up: counts, spreads, and the ${WORST_ROWS} worst, never a row each`, () => {
    const s = setup();
    for (let i = 0; i < 1500; i++)
      s.report(
        'audience',
        { id: `p${i}`, clockError: i % 100, seq: 10 - (i % 5), rtt: 2 },
        socket(`c${i}`),
        `10.2.${i >> 8}.${i & 255}`,
      );
    s.report('violin', { id: 'd1' });
    const v = s.roster.view();
    expect(v.devices.map((d) => d.id)).toEqual(['d1']);
    expect(v.audience.total).toBe(1500);
    expect(v.audience.worst).toHaveLength(WORST_ROWS);
    expect(v.audience.clockError).toEqual({ n: 1500, p50: 49, p95: 94, max: 99 });
    expect(v.audience.behind).toMatchObject({ n: 1500, max: 4 });
    // Worst first: furthest behind, then the largest clock error.
    expect(v.audience.worst[0]).toMatchObject({ behind: 4, clockError: 99 });
    expect(JSON.stringify(v).length).toBeLessThan(16 * 1024);
  });

  it('a phone on another epoch is not counted behind', () => {
    const s = setup();
    s.report('audience', { id: 'p1', epoch: 'old', seq: 900 });
    expect(s.roster.view().audience.behind.n).toBe(0);
  });

  it('flags a part with no device, and says why a part is not ready', () => {
    const s = setup();
    s.report('violin', { id: 'd1', audio: false, clockError: READY_CLOCK_ERROR_MS + 5, assets: false });
    const parts = s.roster.view().parts;
    expect(parts).toEqual([
      {
        part: 'violin',
        devices: ['d1'],
        missing: false,
        ready: false,
        why: [
          `clock error ${READY_CLOCK_ERROR_MS + 5} ms > ${READY_CLOCK_ERROR_MS}`,
          'audio locked',
          'assets not cached',
        ],
      },
      { part: 'cello', devices: [], missing: true, ready: false, why: ['no device'] },
    ]);
    s.advance(PART_SILENT_AFTER_MS + 1);
    expect(s.roster.view().parts[0].why[0]).toBe('silent');
  });

  it('a part is ready when one of its devices is', () => {
    const s = setup({ parts: ['violin'] });
    s.report('violin', { id: 'd1', audio: false });
    expect(s.roster.ready()).toBe(false);
    s.report('violin', { id: 'd2' });
    expect(s.roster.ready()).toBe(true);
  });
});

describe('roster: play when ready', () => {
  it('resolves when the last part becomes ready', async () => {
    const s = setup();
    s.report('violin', { id: 'd1' });
    const waiting = s.roster.waitReady(10_000);
    expect(s.roster.view().waiting).toEqual({ since: 1_700_000_000_000, until: 1_700_000_010_000 });
    s.report('cello', { id: 'd2', audio: false });
    s.advance(STATUS_MIN_INTERVAL_MS);
    s.report('cello', { id: 'd2', audio: true });
    await expect(waiting).resolves.toBeUndefined();
    expect(s.roster.view().waiting).toBeNull();
  });

  it('rejects with SC_ERR_NOT_READY listing the parts not ready after its timeout', async () => {
    vi.useFakeTimers();
    const s = setup();
    s.report('violin', { id: 'd1', audio: false });
    const waiting = s.roster.waitReady(5000);
    vi.advanceTimersByTime(5000);
    await expect(waiting).rejects.toMatchObject({
      code: 'SC_ERR_NOT_READY',
      problems: ['not every part ready within 5000 ms', 'violin: audio locked', 'cello: no device'],
    });
  });

  it('is cancelled by another wait or by cancelWait', async () => {
    const s = setup();
    const first = s.roster.waitReady(10_000);
    const second = s.roster.waitReady(10_000);
    await expect(first).rejects.toMatchObject({ code: 'SC_ERR_NOT_READY' });
    s.roster.cancelWait('cancelled by pause');
    await expect(second).rejects.toMatchObject({ problems: expect.arrayContaining(['cancelled by pause']) });
  });

  it('resolves at once when every part is ready already', async () => {
    const s = setup({ parts: ['violin'] });
    s.report('violin', { id: 'd1' });
    await expect(s.roster.waitReady(10)).resolves.toBeUndefined();
  });
});
