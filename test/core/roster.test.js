// A device's status as the roster takes it: names checked as the part page and the server both
// check them, every field of the wrong type refused, and the report message that carries it.

import { describe, it, expect } from 'vitest';
import { DEVICE_NAME_MAX, checkDeviceName, decodeDeviceStatus } from '../../core/roster.js';
import { decodeClientMessage } from '../../core/protocol.js';
import { deviceStatus as status } from '../helpers/fixtures.js';

describe('device names', () => {
  it('are trimmed, their inner spaces made one, and kept in NFC', () => {
    expect(checkDeviceName('  cello   desk\u00a01 ')).toEqual({ ok: true, value: 'cello desk 1' });
    expect(checkDeviceName('Cafe\u0301')).toEqual({ ok: true, value: 'Café' });
    expect(checkDeviceName('')).toEqual({ ok: true, value: '' });
  });

  it(`of ${DEVICE_NAME_MAX} characters pass, counted as characters (an emoji is one), and of ${DEVICE_NAME_MAX + 1} are refused`, () => {
    expect(checkDeviceName('🎻'.repeat(DEVICE_NAME_MAX)).ok).toBe(true);
    const long = checkDeviceName('x'.repeat(DEVICE_NAME_MAX + 1));
    expect(long.ok).toBe(false);
    if (!long.ok) {
      expect(long.error.code).toBe('SC_ERR_BAD_NAME');
      expect(long.error.message).toContain(`41 characters, more than ${DEVICE_NAME_MAX}`);
    }
  });

  it.each([
    ['a line break', 'cello\ndesk'],
    ['a tab', 'cello\tdesk'],
    ['a NUL', 'cello\u0000'],
    ['a C1 control', 'cello\u0085'],
    ['a right-to-left override', 'cello\u202edesk'],
    ['a direction isolate', '\u2067cello'],
  ])('with %s are refused', (_what, name) => {
    const r = checkDeviceName(name);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('SC_ERR_BAD_NAME');
      expect(r.error.message).toContain('control character');
    }
  });

  it('must be strings', () => {
    for (const v of [3, null, {}, ['a']]) expect(checkDeviceName(v).ok).toBe(false);
  });
});

describe('device status', () => {
  it('a valid one is kept as sent, with null clock figures before a round trip', () => {
    expect(decodeDeviceStatus(status())).toEqual({ ok: true, value: status() });
    const early = decodeDeviceStatus(status({ clockError: null, rtt: undefined, epoch: null }));
    expect(early.ok && early.value).toMatchObject({ clockError: null, rtt: null, epoch: null });
    // A page from before the sound output was reported: none.
    const older = decodeDeviceStatus(status({ outputMs: undefined }));
    expect(older.ok && older.value.outputMs).toBeNull();
  });

  it.each([
    ['id', 'not an id!'],
    ['id', 'all'],
    ['id', 'x'.repeat(65)],
    ['link', 3],
    ['link', 'a b'],
    ['playback', ''],
    ['epoch', 'a:b'],
    ['seq', -1],
    ['seq', 1.5],
    ['seq', '4'],
    ['clockError', -1],
    ['clockError', 'big'],
    ['clockError', 1e9],
    ['rtt', Number.NaN],
    ['audio', 'yes'],
    ['outputMs', -1],
    ['outputMs', '180'],
    ['awake', null],
    ['assets', 1],
    ['app', 'x'.repeat(41)],
  ])('%s = %j is refused with SC_ERR_BAD_MESSAGE naming the field', (field, value) => {
    const r = decodeDeviceStatus(status({ [field]: value }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('SC_ERR_BAD_MESSAGE');
      expect(r.error.message).toContain(`report.device.${field}`);
    }
  });

  it('must be an object', () => {
    for (const v of [null, 'd1', [status()]]) expect(decodeDeviceStatus(v).ok).toBe(false);
  });
});

describe('the report message', () => {
  it('carries a device status beside its samples, or alone', () => {
    const r = decodeClientMessage(JSON.stringify({ type: 'report', push: [1], display: [], device: status() }));
    expect(r).toEqual({ ok: true, value: { type: 'report', push: [1], display: [], device: status() } });
    const alone = decodeClientMessage(JSON.stringify({ type: 'report', device: status() }));
    expect(alone.ok && alone.value).toEqual({ type: 'report', push: [], display: [], device: status() });
  });

  it('is refused whole for a bad name, with the name error', () => {
    const r = decodeClientMessage(JSON.stringify({ type: 'report', push: [1], device: status({ name: 'a\nb' }) }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('SC_ERR_BAD_NAME');
  });
});
