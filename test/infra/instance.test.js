// Copies of the venue lab side by side: each copy's namespaces and state are its own, and a test
// run's copy is known by its owner's pid so that one left behind by a killed run can be removed.

import { describe, it, expect } from 'vitest';
import {
  labIdFrom,
  namespacesFor,
  idOfNamespace,
  stateDirFor,
  testLabId,
  testOwner,
  LAB_ID_ENV,
} from '../../infra/lab/instance.js';

describe('lab copies', () => {
  it('the default copy keeps the short names; another copy has its id in every name', () => {
    expect(namespacesFor('')).toEqual({
      server: 'scl-srv',
      router: 'scl-rtr',
      wired: 'scl-wired',
      ap: 'scl-ap',
      wifi: 'scl-wifi',
    });
    const other = Object.values(namespacesFor('ab12'));
    expect(other).toEqual(['scl-ab12-srv', 'scl-ab12-rtr', 'scl-ab12-wired', 'scl-ab12-ap', 'scl-ab12-wifi']);
    // No name of one copy is a name of another.
    const names = new Set([...Object.values(namespacesFor('')), ...other, ...Object.values(namespacesFor('ab'))]);
    expect(names.size).toBe(15);
  });

  it('tells which copy a namespace belongs to, and ignores namespaces that are not the lab’s', () => {
    for (const id of ['', 'ab12', testLabId(4242)])
      for (const ns of Object.values(namespacesFor(id))) expect(idOfNamespace(ns)).toBe(id);
    expect(idOfNamespace('scl-probe1x')).toBeNull();
    expect(idOfNamespace('other-srv')).toBeNull();
    expect(idOfNamespace('scl-AB-srv')).toBeNull();
  });

  it('reads the id from the environment and refuses one that would make bad names', () => {
    expect(labIdFrom({})).toBe('');
    expect(labIdFrom({ [LAB_ID_ENV]: '' })).toBe('');
    expect(labIdFrom({ [LAB_ID_ENV]: 'run2' })).toBe('run2');
    for (const bad of ['a b', 'x;rm', 'UPPER', 'a'.repeat(13), '../x'])
      expect(() => labIdFrom({ [LAB_ID_ENV]: bad })).toThrow(/SCORECAST_LAB_ID=.*lower-case letters and digits/);
  });

  it('keeps each copy’s state in a folder of its own, outside any checkout', () => {
    expect(stateDirFor('', '/tmp')).toBe('/tmp/scorecast-lab/default');
    expect(stateDirFor('ab', '/tmp')).toBe('/tmp/scorecast-lab/ab');
  });

  it('a test run’s copy names its owner; other copies have none', () => {
    expect(testOwner(testLabId(4242))).toBe(4242);
    expect(testOwner(testLabId())).toBe(process.pid);
    expect(testOwner('ab12')).toBeNull();
    expect(testOwner('')).toBeNull();
  });
});
