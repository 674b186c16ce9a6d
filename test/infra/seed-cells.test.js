// The seed's matrix as lab cells: every case 1-22 maps to the profile, suite and clients the
// seed report ran it with, and each cell finds exactly its seed rows.

import { describe, it, expect } from 'vitest';
import { loadSeedRows, seedCells, seedRowsFor, parseSeed } from '../../infra/lab/seed-cells.js';
import { PROFILES } from '../../infra/lab/topology.js';

const rows = loadSeedRows();

describe('seed cells', () => {
  it('has one cell per seed case, 1 to 22, each a lab profile', () => {
    const cells = seedCells(rows);
    expect(cells.map((c) => c.case)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    for (const c of cells) expect(Object.keys(PROFILES)).toContain(c.profile);
  });

  it("maps the report's cases as it ran them", () => {
    const byCase = Object.fromEntries(seedCells(rows).map((c) => [c.case, c]));
    expect(byCase[1]).toEqual({ case: 1, profile: 'wired', suite: 'ws', clients: 200 });
    expect(byCase[5]).toEqual({ case: 5, profile: 'wifi+firewall', suite: 'ws', clients: 200 });
    expect(byCase[11]).toEqual({ case: 11, profile: 'wifi+firewall', suite: 'page', clients: 100 });
    expect(byCase[18]).toEqual({ case: 18, profile: 'wired', suite: 'poll', clients: 1500 });
    expect(byCase[22]).toEqual({ case: 22, profile: 'wifi', suite: 'poll', clients: 200 });
  });

  it('lays both JMeter rows (poll and page) beside a poll cell, and nothing from other cases', () => {
    const found = seedRowsFor(rows, { profile: 'wifi+firewall', suite: 'poll', clients: 100 });
    expect(found.map((r) => [r.case, r.request])).toEqual([
      [19, 'poll'],
      [19, 'page'],
    ]);
    expect(seedRowsFor(rows, { profile: 'congested-wifi', suite: 'ws', clients: 100 })).toEqual([]);
  });

  it('reads quoted cells with commas and empty numbers as null', () => {
    const [r] = parseSeed(
      'case,client,request,connection,firewall,clients,avg_ms,note\n3,custom,page,wired,no,50,,"a, b"\n',
    );
    expect(r).toMatchObject({ case: 3, clients: 50, avg_ms: null, note: 'a, b' });
  });
});
