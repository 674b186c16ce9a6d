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
 * @param {{ failAt?: string, values?: Record<string, string> }} [o] failAt: make the `uci` call
 *   whose arguments contain this fail; values: the variables at the top of the script, edited as
 *   an operator does
 */
function runScript({ failAt, values = {} } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openwrt-'));
  try {
    let text = readFileSync(SCRIPT, 'utf8');
    for (const [name, value] of Object.entries(values)) {
      const line = new RegExp(`^${name}=.*$`, 'm');
      if (!line.test(text)) throw new Error(`venue.sh has no variable ${name}`);
      text = text.replace(line, `${name}=${value}`);
    }
    const script = path.join(dir, 'venue.sh');
    writeFileSync(script, text);
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
    const r = spawnSync('sh', [script], { env: { PATH: `${dir}:/usr/bin:/bin` }, encoding: 'utf8' });
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

  it('runs again without adding copies: named sections, and each list entry removed before it is added', () => {
    for (const r of [run, runScript({ values: { VENUE_NAME: 'score.example.org' } })]) {
      const added = r.calls.filter((c) => c[0] === 'uci' && c[1] === 'add');
      expect(added).toEqual([]);
      const lists = r.calls.flatMap((c, i) => (c[1] === 'add_list' ? [i] : []));
      expect(lists.length).toBeGreaterThan(0);
      for (const i of lists) expect(r.calls[i - 1].slice(1)).toEqual(['-q', 'del_list', r.calls[i][2]]);
    }
  });

  it('with a venue name: its DNS line names the server, and HTTPS to the server reaches its HTTPS port', () => {
    const venue = runScript({
      values: { VENUE_NAME: 'score.example.org', SERVER: '192.168.1.20', HTTPS_PORT: '9443' },
    });
    expect(venue.status, venue.stderr).toBe(0);
    const lists = venue.calls.filter((c) => c[1] === 'add_list').map((c) => c[2]);
    expect(lists).toContain('dhcp.@dnsmasq[0].address=/score.example.org/192.168.1.20');
    const config = uciConfig(venue.calls);
    expect(Object.fromEntries([...config].filter(([k]) => k.startsWith('firewall.guest_https')))).toEqual({
      'firewall.guest_https': 'redirect',
      'firewall.guest_https.name': 'scorecast: guest HTTPS to the server',
      'firewall.guest_https.src': 'guest',
      'firewall.guest_https.proto': 'tcp',
      'firewall.guest_https.src_dip': '192.168.1.20',
      'firewall.guest_https.src_dport': '443',
      'firewall.guest_https.dest': 'lan',
      'firewall.guest_https.dest_ip': '192.168.1.20',
      'firewall.guest_https.dest_port': '9443',
      'firewall.guest_https.target': 'DNAT',
      'firewall.guest_https.reflection': '0',
    });
    // Plain HTTP still goes to the server (its --http-port then), which redirects to HTTPS.
    expect(config.get('firewall.guest_http.dest_ip')).toBe('192.168.1.20');
    expect(venue.calls.filter((c) => c[1] === 'commit')).toHaveLength(1);
  });

  it('without a venue name: no DNS line for it, and the HTTPS forward of an earlier run removed', () => {
    expect(run.calls.filter((c) => c[1] === 'add_list').map((c) => c[2])).toEqual([
      expect.stringMatching(/^dhcp\.@dnsmasq\[0\]\.address=\/score\.lan\//),
    ]);
    expect([...uci.keys()].filter((k) => k.startsWith('firewall.guest_https'))).toEqual([]);
    expect(run.calls.some((c) => c.join(' ') === 'uci -q delete firewall.guest_https')).toBe(true);
  });

  it('the RouterOS script has the same venue name lines: DNS to the server, HTTPS forwarded to its HTTPS port', () => {
    const rsc = readFileSync(RSC, 'utf8');
    expect(rsc).toContain('/ip dns static add name=score.example.org address=192.168.88.10');
    expect(rsc).toMatch(
      /^\/ip firewall nat add chain=dstnat action=dst-nat in-interface=bridge-guest protocol=tcp dst-address=192\.168\.88\.10 dst-port=443 to-addresses=192\.168\.88\.10 to-ports=8443 /m,
    );
    expect(rsc).toMatch(/connection-nat-state=dstnat dst-address=192\.168\.88\.10 protocol=tcp dst-port=8443 /);
  });

  it('says what every command is for: each block of commands starts with a comment', () => {
    const lines = readFileSync(SCRIPT, 'utf8').split('\n');
    lines.forEach((l, i) => {
      const comment = (/** @type {string | undefined} */ t) => t?.trim().startsWith('#') ?? false;
      if (l.trim() === '' || comment(l)) return;
      let j = i;
      while (j > 0 && lines[j - 1].trim() !== '' && !comment(lines[j - 1])) j--;
      expect(comment(lines[j - 1]), `line ${i + 1}: ${l}`).toBe(true);
    });
  });
});
