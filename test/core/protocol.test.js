import { describe, it, expect } from 'vitest';
import {
  decodeClientMessage,
  decodeServerMessage,
  decodeResyncQuery,
  parseEventId,
  formatEventId,
  encode,
} from '../../core/protocol.js';

/** @param {unknown} v */
const code = (v) => {
  const r = /** @type {any} */ (v);
  return r.ok ? null : r.error.code;
};

describe('decodeClientMessage', () => {
  it('accepts hello, ping and tap', () => {
    expect(decodeClientMessage('{"type":"hello","epoch":"abc","seq":4,"view":"violin"}')).toEqual({
      ok: true,
      value: { type: 'hello', epoch: 'abc', seq: 4, view: 'violin' },
    });
    expect(decodeClientMessage('{"type":"hello"}')).toEqual({
      ok: true,
      value: { type: 'hello', epoch: null, seq: 0 },
    });
    expect(decodeClientMessage('{"type":"ping","id":1,"t0":12.5}')).toEqual({
      ok: true,
      value: { type: 'ping', id: 1, t0: 12.5 },
    });
    expect(decodeClientMessage('{"type":"ping","id":2,"t0":1,"proof":1073741823}')).toEqual({
      ok: true,
      value: { type: 'ping', id: 2, t0: 1, proof: 1073741823 },
    });
    expect(decodeClientMessage(new TextEncoder().encode('{"type":"tap","tile":"t3"}'))).toEqual({
      ok: true,
      value: { type: 'tap', tile: 't3' },
    });
  });

  it('accepts a thumb up or down with its device, and nothing else of it', () => {
    expect(decodeClientMessage('{"type":"thumb","value":"down","device":"a.b","extra":1}')).toEqual({
      ok: true,
      value: { type: 'thumb', value: 'down', device: 'a.b' },
    });
  });

  it.each([
    ['not json', 'SC_ERR_BAD_JSON'],
    ['', 'SC_ERR_BAD_JSON'],
    ['[1,2]', 'SC_ERR_BAD_MESSAGE'],
    ['null', 'SC_ERR_BAD_MESSAGE'],
    ['"hello"', 'SC_ERR_BAD_MESSAGE'],
    ['{}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"explode"}', 'SC_ERR_UNKNOWN_TYPE'],
    ['{"type":42}', 'SC_ERR_UNKNOWN_TYPE'],
    ['{"type":"hello","seq":-1}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"hello","seq":"4"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"hello","seq":1.5}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"hello","epoch":"has space"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"hello","epoch":{"$gt":""}}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","id":1,"t0":"now"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","t0":1}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","id":1,"t0":1,"proof":"12"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","id":1,"t0":1,"proof":-1}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","id":1,"t0":1,"proof":1073741824}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"ping","id":1,"t0":1,"proof":1.5}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"tap","tile":{}}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"tap","tile":""}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"tap","tile":"x","window":7}', 'SC_ERR_BAD_MESSAGE'],
    [`{"type":"tap","tile":"${'x'.repeat(5000)}"}`, 'SC_ERR_TOO_BIG'],
    ['{"type":"thumb","value":"sideways","device":"d"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"thumb","value":1,"device":"d"}', 'SC_ERR_BAD_MESSAGE'],
    ['{"type":"thumb","value":"up"}', 'SC_ERR_BAD_MESSAGE'],
    [`{"type":"thumb","value":"up","device":"${'d'.repeat(65)}"}`, 'SC_ERR_BAD_MESSAGE'],
  ])('refuses %s with %s', (raw, expected) => {
    expect(code(decodeClientMessage(raw))).toBe(expected);
  });

  it('refuses binary frames', () => {
    expect(code(decodeClientMessage(new Uint8Array([1, 2, 3]), true))).toBe('SC_ERR_BAD_MESSAGE');
  });

  it('never throws, whatever the input', () => {
    const inputs = [
      '{"__proto__":{"x":1},"type":"hello"}',
      '{"type":"hello","seq":1e400}',
      '\u0000',
      '{"type":"tap","tile":9007199254740993}',
    ];
    for (const s of inputs) expect(() => decodeClientMessage(s)).not.toThrow();
    expect(code(decodeClientMessage('{"type":"hello","seq":1e400}'))).toBe('SC_ERR_BAD_MESSAGE');
  });
});

describe('decodeServerMessage', () => {
  it('round-trips envelopes', () => {
    const env = { type: 'delta', epoch: 'e1', seq: 3, t: 1.5, patch: { beat: 2 } };
    expect(decodeServerMessage(encode(env))).toEqual({ ok: true, value: env });
  });
  it('refuses envelopes without epoch, seq or t', () => {
    expect(code(decodeServerMessage('{"type":"delta","seq":1,"t":1,"patch":{}}'))).toBe('SC_ERR_BAD_MESSAGE');
    expect(code(decodeServerMessage('{"type":"snapshot","epoch":"e","seq":1,"t":1}'))).toBe('SC_ERR_BAD_MESSAGE');
    expect(code(decodeServerMessage('{"type":"nope","t":1}'))).toBe('SC_ERR_UNKNOWN_TYPE');
    expect(code(decodeServerMessage('{'))).toBe('SC_ERR_BAD_JSON');
  });
});

describe('resync points', () => {
  it('parses and formats Last-Event-ID', () => {
    expect(parseEventId(formatEventId('k2x', 41))).toEqual({ epoch: 'k2x', seq: 41 });
    expect(parseEventId('nocolon')).toBeNull();
    expect(parseEventId('e:-1')).toBeNull();
    expect(parseEventId('e:1x')).toBeNull();
    expect(parseEventId(':4')).toBeNull();
    expect(parseEventId(undefined)).toBeNull();
  });

  it('validates poll queries and clamps wait', () => {
    expect(decodeResyncQuery({ epoch: 'e', since: '5', wait: '99999' }, 25000)).toEqual({
      ok: true,
      value: { epoch: 'e', since: 5, wait: 25000 },
    });
    expect(decodeResyncQuery({}, 25000)).toEqual({ ok: true, value: { epoch: null, since: 0, wait: 0 } });
    expect(code(decodeResyncQuery({ since: '-1' }, 25000))).toBe('SC_ERR_BAD_QUERY');
    expect(code(decodeResyncQuery({ since: ['1', '2'] }, 25000))).toBe('SC_ERR_BAD_QUERY');
    expect(code(decodeResyncQuery({ epoch: '../x' }, 25000))).toBe('SC_ERR_BAD_QUERY');
    expect(code(decodeResyncQuery({ wait: '1.5' }, 25000))).toBe('SC_ERR_BAD_QUERY');
  });
});
