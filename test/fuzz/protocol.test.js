// Property-based fuzzing of the live protocol's decoders: whatever a client sends, the decoder
// answers a value it checked or an error with a documented code, and never throws.

import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import { decodeClientMessage, decodeResyncQuery, parseEventId } from '../../core/protocol.js';
import { documented, params, TIMEOUT } from './runs.js';

/** JSON values of every shape, numbers at their edges included. */
const jsonValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, -1e308, '', 'hello'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.array(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 8 })), {
    maxLength: 40,
  }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
);
const TYPES = ['hello', 'ping', 'tap', 'report', 'vote', 'pong', '', 'HELLO', '__proto__', 'constructor'];
const FIELDS = [
  'type',
  'epoch',
  'seq',
  'view',
  'id',
  't0',
  'tile',
  'window',
  'device',
  'credential',
  'push',
  'display',
  '__proto__',
];

/** Objects shaped like client messages, with fields of the wrong type, missing or extra. */
const messageLike = fc
  .record({
    type: fc.oneof(fc.constantFrom(...TYPES), jsonValue),
    fields: fc.dictionary(fc.constantFrom(...FIELDS), jsonValue, { maxKeys: 6 }),
  })
  .map(({ type, fields }) => ({ ...fields, type }));

/** What a decoder answers: a checked value or a documented error, nothing else. */
function expectChecked(/** @type {any} */ r) {
  expect(typeof r.ok).toBe('boolean');
  if (!r.ok) {
    expect(documented(r.error.code), r.error.code).toBe(true);
    expect(typeof r.error.message).toBe('string');
  }
}

describe('fuzz: client messages', () => {
  it(
    'any text: a checked message or a documented error',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ maxLength: 300 }),
            fc.string({ unit: 'binary', maxLength: 300 }),
            fc.json({ maxDepth: 4 }),
          ),
          (text) => {
            expectChecked(decodeClientMessage(text));
          },
        ),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'messages of the right shape with wrong fields: every accepted one has fields of the documented types',
    () => {
      fc.assert(
        fc.property(messageLike, (msg) => {
          const r = decodeClientMessage(JSON.stringify(msg));
          expectChecked(r);
          if (!r.ok) return;
          const v = /** @type {Record<string, any>} */ (r.value);
          expect(['hello', 'ping', 'tap', 'report', 'vote']).toContain(v.type);
          if (v.type === 'ping') {
            expect(Number.isSafeInteger(v.id) && v.id >= 0).toBe(true);
            expect(Number.isFinite(v.t0)).toBe(true);
          }
          if (v.type === 'hello') expect(Number.isSafeInteger(v.seq) && v.seq >= 0).toBe(true);
          if (v.type === 'report')
            for (const k of ['push', 'display'])
              expect(v[k].every((/** @type {unknown} */ x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
          // Nothing the decoder did not check is passed on.
          for (const k of Object.keys(v)) expect(typeof v[k]).not.toBe('function');
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'binary frames and bytes that are not UTF-8',
    () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, isBinary) => {
          expectChecked(decodeClientMessage(bytes, isBinary));
        }),
        params(),
      );
    },
    TIMEOUT,
  );
});

describe('fuzz: resync queries and event ids', () => {
  // Fastify gives a repeated key as an array: `?epoch=a&epoch=b`.
  const queryValue = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    fc.constantFrom('0', '-1', '1e3', '99999999999999999999', ' 1', '0x10', 'NaN'),
  );
  const query = fc.dictionary(fc.constantFrom('epoch', 'since', 'seq', 'wait', 'view', 'client', 'x'), queryValue, {
    maxKeys: 5,
  });

  it(
    'poll and SSE parameters: checked values within their bounds, or a documented error',
    () => {
      fc.assert(
        fc.property(query, fc.integer({ min: 0, max: 60_000 }), (q, maxWait) => {
          const r = decodeResyncQuery(q, maxWait);
          expectChecked(r);
          if (!r.ok) return;
          expect(Number.isSafeInteger(r.value.since) && r.value.since >= 0).toBe(true);
          expect(r.value.wait >= 0 && r.value.wait <= maxWait).toBe(true);
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'Last-Event-ID: an epoch and a seq, or nothing',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('a:1', ':1', 'a:', 'a:-1', 'a:1:2', 'a:1e3', 'é:1')),
          (id) => {
            const r = /** @type {any} */ (parseEventId(id));
            if (r === null) return;
            expect(typeof r.epoch).toBe('string');
            expect(Number.isSafeInteger(r.seq) && r.seq >= 0).toBe(true);
          },
        ),
        params(),
      );
    },
    TIMEOUT,
  );
});
