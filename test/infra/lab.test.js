// The venue lab for real: namespaces, the router's firewall and NAT, the radio cut. Needs root
// and network namespaces (CI has both); elsewhere the suite says why it did not run.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { labSupport, up, down, isUp, cut, restore, inNs } from '../../infra/lab/lab.js';
import { ADDR, NS, MANAGEMENT_TCP, SERVER_PORT } from '../../infra/lab/topology.js';

const support = labSupport();

/**
 * Try a TCP connection from a namespace; resolves with what happened: the first bytes the
 * other side sent ('data:...'), 'refused', or 'timeout' (nothing came back: a silent drop).
 * @param {string} ns @param {string} host @param {number} port @param {{ from?: string, ms?: number }} [o]
 * @returns {Promise<string>}
 */
function probe(ns, host, port, { from, ms = 1500 } = {}) {
  const code = `const s=require('net').connect({host:${JSON.stringify(host)},port:${port}${from ? `,localAddress:${JSON.stringify(from)}` : ''}});
s.setTimeout(${ms},()=>{console.log('timeout');process.exit(0)});
s.on('connect',()=>s.write('GET / HTTP/1.0\\r\\nHost: probe\\r\\n\\r\\n'));
s.once('data',(d)=>{console.log('data:'+String(d).split('\\r\\n\\r\\n').pop());process.exit(0)});
s.on('error',(e)=>{console.log(e.code==='ECONNREFUSED'?'refused':e.code);process.exit(0)});`;
  return new Promise((resolve, reject) => {
    execFile('ip', ['netns', 'exec', ns, process.execPath, '-e', code], { timeout: ms + 5000 }, (err, out) =>
      err ? reject(err) : resolve(out.trim()),
    );
  });
}

/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
/** Start a listener in a namespace that answers with its name and who called. @param {string} ns @param {number[]} ports @param {string} name */
async function listen(ns, ports, name) {
  const code = `for (const p of ${JSON.stringify(ports)}) require('net').createServer((s)=>s.end('${name}:'+p+' from '+s.remoteAddress.replace('::ffff:',''))).listen(p);console.log('ready')`;
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise((resolve) => child.stdout?.once('data', resolve));
}

describe.skipIf(!support.ok)(
  support.ok ? 'venue lab (root, network namespaces)' : `venue lab: NOT RUN here because ${support.reasons.join('; ')}`,
  () => {
    let wasUp = false;
    beforeAll(async () => {
      wasUp = isUp();
      await up({ profile: 'wifi+firewall' });
      await listen(NS.server, [SERVER_PORT], 'server');
      await listen(NS.router, [...MANAGEMENT_TCP, 53], 'router');
    }, 180_000);
    afterAll(() => {
      for (const c of children) c.kill();
      if (!wasUp) down();
    });

    it('NATs HTTP from the guest network, to any address, to the server', async () => {
      // A phone's connectivity check to an internet address, and the router's own address.
      expect(await probe(NS.wired, '203.0.113.5', 80)).toBe(`data:server:${SERVER_PORT} from ${ADDR.wiredGuest}`);
      expect(await probe(NS.wired, ADDR.routerGuest, 80)).toBe(`data:server:${SERVER_PORT} from ${ADDR.wiredGuest}`);
      // WiFi clients through the access point's proxy, into the guest NAT.
      expect(await probe(NS.wifi, ADDR.apRadio, 80)).toBe(`data:server:${SERVER_PORT} from ${ADDR.apGuest}`);
    });

    it('drops the router management ports from the guest network silently, and not from the main one', async () => {
      const guest = await Promise.all(
        MANAGEMENT_TCP.map((port) => probe(NS.wired, ADDR.routerGuest, port, { ms: 800 })),
      );
      const main = await Promise.all(MANAGEMENT_TCP.map((port) => probe(NS.wired, ADDR.routerMain, port)));
      expect(guest).toEqual(MANAGEMENT_TCP.map(() => 'timeout'));
      expect(main).toEqual(MANAGEMENT_TCP.map((port) => `data:router:${port} from ${ADDR.wiredMain}`));
    });

    it('lets DNS through to the router from the guest network', async () => {
      expect(await probe(NS.wired, ADDR.routerGuest, 53)).toBe(`data:router:53 from ${ADDR.wiredGuest}`);
    });

    it('keeps guests off the server except through the NAT', async () => {
      expect(await probe(NS.wired, ADDR.server, SERVER_PORT, { from: ADDR.wiredGuest, ms: 800 })).toBe('timeout');
      expect(await probe(NS.wired, ADDR.server, SERVER_PORT)).toBe(`data:server:${SERVER_PORT} from ${ADDR.wiredMain}`);
    });

    it('a radio cut is silent (no reset, no refusal) and the link comes back after it', async () => {
      cut();
      try {
        expect(await probe(NS.wifi, ADDR.apRadio, 80, { ms: 1000 })).toBe('timeout');
      } finally {
        restore();
      }
      expect(await probe(NS.wifi, ADDR.apRadio, 80)).toBe(`data:server:${SERVER_PORT} from ${ADDR.apGuest}`);
    });

    it('setting up again changes nothing and leaves the lab working', async () => {
      const before = inNs(NS.router, ['nft', '-s', 'list', 'table', 'inet', 'scl_fw']);
      await up({ profile: 'wifi+firewall' });
      expect(inNs(NS.router, ['nft', '-s', 'list', 'table', 'inet', 'scl_fw'])).toBe(before);
      expect(await probe(NS.wired, '203.0.113.5', 80)).toBe(`data:server:${SERVER_PORT} from ${ADDR.wiredGuest}`);
    }, 60_000);

    // The lab's smoke cell, as `npm run lab` runs it (Artillery is installed first when missing, as
    // qa:smoke does). It holds the lab's namespaces: it stays in this file, after the tests above.
    it('smoke cell: wifi+firewall, 20 WebSocket clients for about 20 s, within its budgets', () => {
      for (const c of children.splice(0)) c.kill();
      const out = mkdtempSync(path.join(os.tmpdir(), 'lab-smoke-'));
      try {
        const r = spawnSync(
          process.execPath,
          [
            'infra/lab/cell.mjs',
            '--profile',
            'wifi+firewall',
            '--clients',
            '20',
            '--suite',
            'ws',
            '--duration',
            '20',
            '--no-warmup',
            '--keep-up',
            '--out',
            out,
          ],
          { encoding: 'utf8', timeout: 280_000 },
        );
        const rec = JSON.parse(readFileSync(path.join(out, 'case.json'), 'utf8'));
        expect(rec.broken, r.stdout + r.stderr).toEqual([]);
        expect(rec.passed).toBe(true);
        expect(rec.runs.measured.checks.map((/** @type {{ expression: string }} */ c) => c.expression)).toEqual([
          'push_latency.max <= 1000',
          'vusers.failed == 0',
        ]);
        expect(rec.lab.peersOutsideLab).toEqual([]);
        expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain(
          '| scorecast lab: push latency (WebSocket) | 20 |',
        );
        expect(r.status).toBe(0);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }, 300_000);
  },
);
