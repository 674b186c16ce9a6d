// The OpenWrt router script (infra/openwrt/venue.sh) sets what the lab and the RouterOS script
// set: it runs here under sh with stand-ins for uci, service and wifi that record each call, and
// the configuration those calls build is read back. No router needed.

import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANAGEMENT_TCP, MANAGEMENT_UDP, QUEUES, SERVER_PORT } from '../../infra/lab/topology.js';

const SCRIPT = fileURLToPath(new URL('../../infra/openwrt/venue.sh', import.meta.url));
const RSC = fileURLToPath(new URL('../../infra/routeros/venue.rsc', import.meta.url));

/**
 * Run the script with recording stand-ins; the calls in order, each as its argument list.
 * @param {{ failAt?: string }} [o] make the `uci` call whose arguments contain this fail
 */
function runScript({ failAt } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openwrt-'));
  try {
    const calls = path.join(dir, 'calls');
    writeFileSync(calls, '');
    for (const name of ['uci', 'service', 'wifi']) {
      const stub = path.join(dir, name);
      // One call per line, arguments separated by a tab (values contain spaces).
      writeFileSync(
        stub,
        `#!/bin/sh\n{ printf '%s' '${name}'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> '${calls}'\n${
          failAt ? `case "$*" in *'${failAt}'*) exit 1;; esac\n` : ''
        }exit 0\n`,
      );
      chmodSync(stub, 0o755);
    }
    const r = spawnSync('sh', [SCRIPT], { env: { PATH: `${dir}:/usr/bin:/bin` }, encoding: 'utf8' });
    const lines = readFileSync(calls, 'utf8').split('\n').filter(Boolean);
    return { status: r.status, stderr: r.stderr, calls: lines.map((l) => l.split('\t')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The configuration `uci set` calls build: "config.section.option" -> value. @param {string[][]} calls */
function uciConfig(calls) {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const c of calls) {
    if (c[0] !== 'uci' || c[1] !== 'set') continue;
    const eq = c[2].indexOf('=');
    out.set(c[2].slice(0, eq), c[2].slice(eq + 1));
  }
  return out;
}

describe('OpenWrt venue script', () => {
  /** @type {ReturnType<typeof runScript>} */
  let run;
  /** @type {Map<string, string>} */
  let uci;
  beforeAll(() => {
    run = runScript();
    uci = uciConfig(run.calls);
  });

  it('is valid sh and runs to the end, committing once and restarting what reads the config', () => {
    expect(spawnSync('sh', ['-n', SCRIPT]).status).toBe(0);
    expect(run.status, run.stderr).toBe(0);
    const after = run.calls.slice(run.calls.findIndex((c) => c[1] === 'commit'));
    expect(after.map((c) => c.join(' '))).toEqual([
      'uci commit',
      'service network reload',
      'wifi reload',
      'service dnsmasq restart',
      'service firewall restart',
      'service sqm restart',
    ]);
    expect(run.calls.filter((c) => c[1] === 'commit')).toHaveLength(1);
  });

  it('stops before committing anything when a command fails', () => {
    const failed = runScript({ failAt: 'firewall.guest_http.dest_ip' });
    expect(failed.status).not.toBe(0);
    expect(failed.calls.some((c) => c[1] === 'commit')).toBe(false);
  });

  it('drops the same management ports as the lab and the RouterOS script, from the guest zone', () => {
    expect(uci.get('firewall.guest_mgmt')).toBe('rule');
    expect(uci.get('firewall.guest_mgmt.src')).toBe('guest');
    expect(uci.get('firewall.guest_mgmt.proto')).toBe('tcp');
    expect(uci.get('firewall.guest_mgmt.target')).toBe('DROP');
    expect(uci.get('firewall.guest_mgmt.dest_port')?.split(' ').map(Number)).toEqual([...MANAGEMENT_TCP]);
    expect(uci.get('firewall.guest_snmp.dest_port')).toBe(MANAGEMENT_UDP.join(' '));
    expect(uci.get('firewall.guest_snmp.target')).toBe('DROP');
    const rsc = readFileSync(RSC, 'utf8');
    expect(rsc).toContain(`dst-port=${uci.get('firewall.guest_mgmt.dest_port')?.replaceAll(' ', ',')} comment=`);
    // Everything else to the router, and through it, is dropped (silently: DROP, not REJECT).
    expect(uci.get('firewall.guest.input')).toBe('DROP');
    expect(uci.get('firewall.guest.forward')).toBe('DROP');
    expect(run.calls.some((c) => c[1] === 'set' && c[2].startsWith('firewall.') && c[2].endsWith('=forwarding'))).toBe(
      false,
    );
  });

  it('lets DNS and DHCP in from guests', () => {
    expect(uci.get('firewall.guest_dns.dest_port')).toBe('53');
    expect(uci.get('firewall.guest_dns.proto')).toBe('tcp udp');
    expect(uci.get('firewall.guest_dns.target')).toBe('ACCEPT');
    expect(uci.get('firewall.guest_dhcp.dest_port')).toBe('67');
  });

  it('NATs port 80 from the guest zone to the server port, the variables expanded', () => {
    expect(uci.get('firewall.guest_http')).toBe('redirect');
    expect(uci.get('firewall.guest_http.src')).toBe('guest');
    expect(uci.get('firewall.guest_http.src_dport')).toBe('80');
    expect(uci.get('firewall.guest_http.target')).toBe('DNAT');
    expect(uci.get('firewall.guest_http.dest_port')).toBe(String(SERVER_PORT));
    expect(uci.get('firewall.guest_http.dest_ip')).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(uci.get('network.guest.device')).toBe(uci.get('network.guest_dev.name'));
    expect(uci.get('firewall.guest.network')).toBe('guest');
  });

  it('sets the seed queues: guest 150 Mbit/s and main 250 Mbit/s each way', () => {
    expect(uci.get('sqm.guest.interface')).toBe('br-guest');
    expect(uci.get('sqm.main.interface')).toBe('br-lan');
    for (const dir of ['download', 'upload']) {
      expect(Number(uci.get(`sqm.guest.${dir}`))).toBe(QUEUES.guestMbit * 1000);
      expect(Number(uci.get(`sqm.main.${dir}`))).toBe(QUEUES.mainMbit * 1000);
    }
  });

  it('runs again without adding copies: named sections, and the one list entry removed before it is added', () => {
    const added = run.calls.filter((c) => c[0] === 'uci' && c[1] === 'add');
    expect(added).toEqual([]);
    const list = run.calls.findIndex((c) => c[1] === 'add_list');
    expect(run.calls[list - 1].slice(1)).toEqual(['-q', 'del_list', run.calls[list][2]]);
  });

  it('says what every command is for: each block of commands starts with a comment', () => {
    const lines = readFileSync(SCRIPT, 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (l.trim() === '' || l.startsWith('#')) return;
      let j = i;
      while (j > 0 && lines[j - 1].trim() !== '' && !lines[j - 1].startsWith('#')) j--;
      expect(lines[j - 1]?.startsWith('#'), `line ${i + 1}: ${l}`).toBe(true);
    });
  });
});
