import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { ERRORS, ScorecastError, errorValue } from '../../core/errors.js';
import { CLOSE } from '../../core/constants.js';

const errorsDoc = readFileSync(new URL('../../doc/errors.md', import.meta.url), 'utf8');
const protocolDoc = readFileSync(new URL('../../doc/protocol.md', import.meta.url), 'utf8');

describe('error catalogue', () => {
  it.each(Object.keys(ERRORS))('%s is documented in doc/errors.md, in one row', (code) => {
    expect(errorsDoc).toContain(`\`${code}\``);
    expect(errorsDoc.split('\n').filter((line) => line.startsWith(`| \`${code}\` |`))).toHaveLength(1);
  });

  it('doc/errors.md has a row for no code the catalogue lacks', () => {
    const rows = [...errorsDoc.matchAll(/^\| `(SC_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.filter((code) => !Object.hasOwn(ERRORS, code))).toEqual([]);
  });

  it('every code is its own key, with a status and a message that says what to do', () => {
    for (const [key, def] of Object.entries(ERRORS)) {
      expect(def.code).toBe(key);
      expect(def.status).toBeGreaterThanOrEqual(400);
      expect(def.message.length).toBeGreaterThan(20);
    }
  });

  it.each(Object.entries(CLOSE))('close code %s (%i) is documented in doc/protocol.md', (_name, value) => {
    expect(protocolDoc).toMatch(new RegExp(`\\| ${value} \\|`));
  });

  it('the messages that list what a client may send name every message type and control action', () => {
    for (const type of ['hello', 'ping', 'tap', 'thumb', 'report'])
      expect(ERRORS.SC_ERR_UNKNOWN_TYPE.message).toContain(type);
    for (const action of ['play', 'pause', 'stop', 'seek', 'loop', 'tempo', 'vote'])
      expect(ERRORS.SC_ERR_UNKNOWN_ACTION.message).toContain(action);
  });

  it('ScorecastError carries code and status', () => {
    const err = new ScorecastError('SC_ERR_UNAUTHORIZED');
    expect(err.code).toBe('SC_ERR_UNAUTHORIZED');
    expect(err.statusCode).toBe(401);
    expect(errorValue('SC_ERR_BAD_QUERY', 'since').message).toMatch(/\(since\)$/);
    expect(() => errorValue(/** @type {any} */ ('SC_ERR_NOPE'))).toThrow(/not in the error catalogue/);
  });
});
