// The lab's description: the router ruleset and the radio's rules say what the seed's router and
// a roaming phone do, whatever machine reads them (no root needed here).

import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  routerRuleset,
  radioRuleset,
  toxicsFor,
  PROFILES,
  LINKS,
  ADDRESSES,
  NS,
  MANAGEMENT_TCP,
  MANAGEMENT_UDP,
  QUEUES,
} from '../../infra/lab/topology.js';
import { procAddress, inLab } from '../../infra/lab/peers.js';

describe('lab topology', () => {
  it('NATs port 80 from the guest bridge to the server and drops every management port there', () => {
    const r = routerRuleset();
    expect(r).toMatch(/iifname "br-guest" tcp dport 80 dnat ip to 10\.18\.0\.2:8080/);
    expect(r).toContain(`tcp dport { ${MANAGEMENT_TCP.join(', ')} } counter drop`);
    for (const port of [22, 8291, 8728]) expect(MANAGEMENT_TCP).toContain(port);
    // Loading it replaces the previous copy instead of adding a second.
    expect(r.split('\n').slice(0, 2)).toEqual(['table inet scl_fw', 'delete table inet scl_fw']);
  });

  it('a roaming cut drops everything on the radio both ways; loss is a random drop; neither rejects', () => {
    const c = radioRuleset({ cut: true });
    expect(c).toContain('iifname "a-radio" drop');
    expect(c).toContain('oifname "a-radio" drop');
    expect(radioRuleset({ lossPermille: 10 })).toContain('numgen random mod 1000 < 10 drop');
    expect(radioRuleset({})).not.toMatch(/drop/);
    expect(c + radioRuleset({ lossPermille: 10 })).not.toMatch(/reject/);
  });

  it('WiFi profiles add latency both ways; wired ones add nothing', () => {
    expect(toxicsFor(PROFILES.wired)).toEqual([]);
    expect(toxicsFor(PROFILES['wifi+firewall']).map((t) => `${t.type}-${t.stream}`)).toEqual([
      'latency-downstream',
      'latency-upstream',
    ]);
  });

  it('every interface that has an address is one end of a link, and every name is short enough for Linux', () => {
    const ends = new Set(LINKS.flatMap((l) => [l.a.join('/'), l.b.join('/')]));
    for (const [ns, dev] of ADDRESSES) {
      if (!dev.startsWith('br-')) expect(ends.has(`${ns}/${dev}`), `${ns}/${dev}`).toBe(true);
      expect(dev.length).toBeLessThanOrEqual(15);
    }
    for (const ns of Object.values(NS)) expect(ns.startsWith('scl-')).toBe(true);
  });

  it('reads /proc/net/tcp addresses and knows which are in the lab', () => {
    expect(procAddress('0200120A:1F90')).toBe('10.18.0.2');
    expect(procAddress('0000000000000000FFFF00000200120A:1F90')).toBe('10.18.0.2');
    expect(inLab('10.18.3.10')).toBe(true);
    expect(inLab('127.0.0.1')).toBe(true);
    expect(inLab('8.8.8.8')).toBe(false);
  });

  it('the RouterOS script drops the same management ports and sets the same queues as the lab', () => {
    const rsc = readFileSync(new URL('../../infra/routeros/venue.rsc', import.meta.url), 'utf8');
    const tcp =
      /in-interface=bridge-guest protocol=tcp dst-port=([\d,]+) comment="scorecast: guest management ports"/.exec(rsc);
    expect(tcp?.[1].split(',').map(Number)).toEqual([...MANAGEMENT_TCP]);
    expect(rsc).toContain(`protocol=udp dst-port=${MANAGEMENT_UDP.join(',')} comment="scorecast: guest SNMP"`);
    expect(rsc).toContain(`target=bridge-guest max-limit=${QUEUES.guestMbit}M/${QUEUES.guestMbit}M`);
    expect(rsc).toContain(`target=bridge max-limit=${QUEUES.mainMbit}M/${QUEUES.mainMbit}M`);
    expect(rsc).toContain('chain=dstnat action=dst-nat in-interface=bridge-guest protocol=tcp dst-port=80');
    // Every command line has a comment line above it.
    const lines = rsc.split('\n');
    lines.forEach((l, i) => {
      if (l.startsWith('/'))
        expect(lines[i - 1].startsWith('#') || lines[i - 1].startsWith('/'), `line ${i + 1}`).toBe(true);
    });
  });
});
