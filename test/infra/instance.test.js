// Copies of the venue lab side by side: each copy's namespaces and state are its own, and a test
// run's copy is known by its owner's pid so that one left behind by a killed run can be removed.

import { spawnSync } from 'node:child_process';
import { describe, it, expect } from 'vitest';
import {
  alive,
  endedRuns,
  labIdFrom,
  namespacesFor,
  ownerInName,
  testCopyIn,
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

describe('prune by pid', () => {
  // A process that has ended: its pid names a run killed before its teardown.
  const ended = /** @type {number} */ (spawnSync('true').pid);
  const b36 = (/** @type {number} */ pid) => pid.toString(36);

  it('reads a test’s namespace names: its pid in base 36 between a prefix and a suffix', () => {
    const ownerOf = ownerInName('scvh', ['srv', 'phone']);
    expect(ownerOf(`scvh${b36(4242)}-phone`)).toEqual({ id: b36(4242), pid: 4242 });
    expect(ownerOf(`scvh${b36(4242)}-wifi`)).toBeNull();
    expect(ownerOf(`scve${b36(4242)}-srv`)).toBeNull();
  });

  it('lists the runs whose owner has ended, with all their namespaces, and leaves the living ones', () => {
    expect(alive(process.pid)).toBe(true);
    expect(alive(ended)).toBe(false);
    const names = [
      `scvh${b36(ended)}-srv`,
      `scvh${b36(ended)}-phone`,
      `scvh${b36(process.pid)}-srv`,
      `scvh${b36(process.ppid)}-srv`,
      'scl-srv',
    ];
    const ownerOf = ownerInName('scvh', ['srv', 'phone']);
    expect(endedRuns(names, ownerOf)).toEqual(new Map([[b36(ended), names.slice(0, 2)]]));
    // A run that prunes before making its own namespaces afresh removes its own too.
    expect(endedRuns(names, ownerOf, { mine: true })).toEqual(
      new Map([
        [b36(ended), names.slice(0, 2)],
        [b36(process.pid), [names[2]]],
      ]),
    );
  });

  it('a lab copy is a test run’s only when its id names an owner', () => {
    const names = [
      ...Object.values(namespacesFor(testLabId(ended))),
      ...Object.values(namespacesFor('ab12')),
      'scl-srv',
    ];
    expect(endedRuns(names, testCopyIn(idOfNamespace))).toEqual(
      new Map([[testLabId(ended), Object.values(namespacesFor(testLabId(ended)))]]),
    );
    expect(endedRuns(names, testCopyIn(idOfNamespace), { mine: true }).has('ab12')).toBe(false);
  });
});
