// Phones reach the server the way they do at a venue: by a non-loopback address, here in two
// network namespaces this test makes (the server's and a phone's, one veth between them; nothing
// in them routes anywhere else). Over HTTPS under the venue name, with a certificate from a test
// CA that only this test's browser trusts, the page is a secure context (wake lock, service
// worker) and shows beats on time; over plain HTTP at the same address it is not, and keeps the
// screen on with the silent video, beats on time too; the plain-HTTP port sends the phone, its
// connectivity check included, to the HTTPS venue address. Needs root and network namespaces,
// as test/infra/lab.test.js; elsewhere the suite's title says why it did not run.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { expect as expectPage } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM, quietArgs } from '../../playwright/chromium.js';
import { spawnServer } from '../../artillery/lib/server.js';
import { endedRuns, ownerInName } from '../../infra/lab/instance.js';
import { testCa, VENUE } from '../helpers/tls-certs.js';
import { beatsOver, ON_TIME_MAX_MS, ON_TIME_MEDIAN_MS, ON_TIME_P95_MS } from '../engines/page-state.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** This run's id in the namespaces' names: a killed run's are found by it and removed. */
const ID = process.pid.toString(36);
const PREFIX = 'scvh';
const NS = { server: `${PREFIX}${ID}-srv`, phone: `${PREFIX}${ID}-phone` };
const ADDR = { server: '10.77.0.2', phone: '10.77.0.10' };
/** Ports inside the server's namespace: its own, so the usual ones are free. */
const PORT = { https: 443, http: 80, plain: 8080 };
/** Where iPhones send their connectivity check. */
const CHECK_HOST = 'captive.apple.com';

/** How the page keeps the screen on (client/src/page/awake.js). @param {import('@playwright/test').Page} page */
const awake = (page) => page.evaluate(() => /** @type {any} */ (window).scorecast.awake);

/**
 * Beats shown over 6 s (8 at the seed profile's 80 bpm) are on their server time: the page is
 * live and on time first. The other engines' bounds (test/engines/page-state.js), the median's
 * widened to a frame (below).
 * @param {import('@playwright/test').Page} page
 */
async function beatsOnTime(page) {
  await expect
    .poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.join), { timeout: 10_000 })
    .toBe('on-time');
  const { late, median, p95, worst } = await beatsOver(/** @type {any} */ (page), 6000);
  console.info(
    `Chromium at ${new URL(page.url()).origin}: ${late.length} beats, median ${median.toFixed(1)} ms, |p95| ${p95.toFixed(1)} ms, worst ${worst.toFixed(1)} ms late`,
  );
  expect(late.length).toBeGreaterThanOrEqual(5);
  // The engines' cells run alone and hold the median within ON_TIME_MEDIAN_MS (5 ms); this file
  // runs beside another vitest file, which took Chromium's median here to 5.9 ms in a full run at
  // load 4. What the bound is for, a page off the server's clock, shows as tens of ms: one 60 Hz
  // frame holds that apart from a busy neighbour.
  expect(Math.abs(median)).toBeLessThanOrEqual(Math.max(ON_TIME_MEDIAN_MS, 1000 / 60));
  expect(p95).toBeLessThanOrEqual(ON_TIME_P95_MS);
  expect(worst).toBeLessThanOrEqual(ON_TIME_MAX_MS);
}

/** Each browser step's own bound: a quiet run takes 0.1-2 s a step, a loaded CI machine ~4x. */
const STEP_MS = 15_000;

/**
 * Times a test's steps and names the one that failed or stalled; prints the steps' times and the
 * page's console (warnings and errors) when the test ends, so a slow CI run shows where it went.
 */
function stepClock() {
  const start = performance.now();
  /** @type {string[]} */
  const lines = [];
  return {
    /**
     * @template T
     * @param {string} name
     * @param {() => Promise<T>} fn
     * @returns {Promise<T>}
     */
    async run(name, fn) {
      const t0 = performance.now();
      try {
        const value = await fn();
        lines.push(`${name}: ${(performance.now() - t0).toFixed(0)} ms`);
        return value;
      } catch (err) {
        lines.push(`${name}: FAILED after ${(performance.now() - t0).toFixed(0)} ms`);
        throw new Error(`step "${name}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    },
    /** @param {string} type @param {string} text */
    console(type, text) {
      if (type === 'warning' || type === 'error') lines.push(`page ${type}: ${text}`);
    },
    report() {
      console.info(`steps (${(performance.now() - start).toFixed(0)} ms in all):\n  ${lines.join('\n  ')}`);
    },
  };
}

/** @param {string[]} args */
const ip = (args) => spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });

function support() {
  /** @type {string[]} */
  const reasons = [];
  if (process.platform !== 'linux') reasons.push(`network namespaces need Linux (this is ${process.platform})`);
  else if (process.getuid?.() !== 0) reasons.push('network namespaces need root');
  else if (ip(['-V']).status !== 0) reasons.push('iproute2 (`ip`) is not installed');
  if (!existsSync(CHROMIUM)) reasons.push(`no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  if (!existsSync(path.join(ROOT, 'dist', 'client', 'index.html')))
    reasons.push('the client is not built (npm run build)');
  return { ok: reasons.length === 0, reasons };
}
const can = support();

/** Remove the namespaces of runs whose process is gone (killed before their teardown), and ours. */
function prune() {
  const names = ip(['netns', 'list'])
    .stdout.split('\n')
    .map((l) => l.split(' ')[0]);
  for (const nss of endedRuns(names, ownerInName(PREFIX, ['srv', 'phone']), { mine: true }).values())
    for (const ns of nss) ip(['netns', 'del', ns]);
}

/**
 * The two namespaces and the link between them; every step checked. IPv4 only: an interface that
 * comes up gets an IPv6 link-local address a second or two later (once duplicate detection ends),
 * and Chromium, seeing an address change, fails the navigation under way with
 * ERR_NETWORK_CHANGED (a clean clone's first run here, the first page the phone opened).
 */
function makeNetwork() {
  const noIpv6 = ['sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'];
  const steps = [
    ['netns', 'add', NS.server],
    ['netns', 'add', NS.phone],
    ['netns', 'exec', NS.server, ...noIpv6],
    ['netns', 'exec', NS.phone, ...noIpv6],
    [
      'link',
      'add',
      `${PREFIX}${ID}s`,
      'netns',
      NS.server,
      'type',
      'veth',
      'peer',
      'name',
      `${PREFIX}${ID}p`,
      'netns',
      NS.phone,
    ],
    ['-n', NS.server, 'addr', 'add', `${ADDR.server}/24`, 'dev', `${PREFIX}${ID}s`],
    ['-n', NS.phone, 'addr', 'add', `${ADDR.phone}/24`, 'dev', `${PREFIX}${ID}p`],
    ['-n', NS.server, 'link', 'set', `${PREFIX}${ID}s`, 'up'],
    ['-n', NS.phone, 'link', 'set', `${PREFIX}${ID}p`, 'up'],
    ['-n', NS.server, 'link', 'set', 'lo', 'up'],
    ['-n', NS.phone, 'link', 'set', 'lo', 'up'],
  ];
  for (const step of steps) {
    const r = ip(step);
    if (r.status !== 0) throw new Error(`ip ${step.join(' ')}: ${r.stderr}`);
  }
}

/**
 * @typedef {object} Server
 * @property {import('node:child_process').ChildProcess} child
 * @property {{ port: number, url: string, httpPort: number | null }} listening  its IPC message
 * @property {() => string} output
 */

/**
 * Start scorecast in the server's namespace.
 * @param {string[]} args
 * @returns {Promise<Server>}
 */
async function startServer(args) {
  const { child, message, output } = spawnServer({
    root: ROOT,
    netns: NS.server,
    args: [
      '--host',
      '0.0.0.0',
      '--score',
      path.join(ROOT, 'scores', 'seed-profile'),
      '--autoplay',
      '--log-level',
      'warn',
      ...args,
    ],
    env: { SCORECAST_TOKEN: 'venue-token-123' },
  });
  servers.push(child);
  const { port, url, httpPort = null } = await message;
  return { child, listening: { port, url, httpPort }, output };
}

/** @type {import('node:child_process').ChildProcess[]} */
const servers = [];
/** @type {import('@playwright/test').Browser | undefined} */
let browser;
/** @type {ReturnType<typeof testCa> | undefined} */
let ca;
/** @type {Server} */
let secure;
/** @type {Server} */
let plain;

describe.skipIf(!can.ok)(
  can.ok
    ? 'the audience page at the venue address (network namespaces, Chromium)'
    : `venue address: NOT RUN here because ${can.reasons.join('; ')}`,
  // The browser tests' steps each have their own bound (STEP_MS, the polls' 10 s, 6 s of beats),
  // and together (~95 s at worst) fit in this: a stalled step fails with its own name, not the
  // test's timeout. A quiet run takes 7 s a test; CI's last run (beside other files) timed out at 30 s.
  { timeout: 120_000 },
  () => {
    beforeAll(async () => {
      prune();
      makeNetwork();
      ca = testCa();
      const leaf = ca.leaf({ name: VENUE });
      // Chromium runs in the phone's namespace: Playwright drives it over a pipe, which crosses.
      const wrapper = path.join(ca.dir, 'chromium-in-phone.sh');
      writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${NS.phone} ${CHROMIUM} "$@"\n`);
      chmodSync(wrapper, 0o755);
      [secure, plain, browser] = await Promise.all([
        startServer([
          '--port',
          String(PORT.https),
          '--http-port',
          String(PORT.http),
          '--cert',
          leaf.cert,
          '--key',
          leaf.key,
          '--public-url',
          `https://${VENUE}`,
        ]),
        startServer(['--port', String(PORT.plain)]),
        chromium.launch({
          executablePath: wrapper,
          args: [
            // The venue's DNS line (address=/score.venue.test/10.77.0.2); Apple's check host, as a
            // venue without internet answers it (the router NATs port 80 to the server anyway);
            // nothing else resolves.
            ...quietArgs({
              map: [
                [VENUE, ADDR.server],
                [CHECK_HOST, ADDR.server],
              ],
              exclude: ADDR.server,
            }),
            // Trust this leaf only, as if the test CA were installed on the phone.
            `--ignore-certificate-errors-spki-list=${leaf.spki}`,
          ],
        }),
      ]);
    }, 90_000);

    afterAll(async () => {
      await browser?.close().catch(() => {});
      for (const s of servers) s.kill('SIGKILL');
      await Promise.all(
        servers.map((s) =>
          s.exitCode === null && s.signalCode === null ? new Promise((r) => s.once('exit', r)) : null,
        ),
      );
      prune();
      if (ca) rmSync(ca.dir, { recursive: true, force: true });
    });

    it('the banner and the QR code give the HTTPS venue address, and say where plain HTTP goes', () => {
      expect(secure.listening.url).toBe(`https://${VENUE}/`);
      expect(secure.output()).toMatch(
        /^ {2}audience: {2}https:\/\/score\.venue\.test\/ {2}\(this machine: https:\/\/10\.77\.0\.2:443\//m,
      );
      expect(secure.output()).toMatch(/^ {2}http: {6}port 80 redirects to https:\/\/score\.venue\.test\//m);
      expect(plain.listening.url).toBe(`http://${ADDR.server}:${PORT.plain}/`);
    });

    // First of the browser tests: the server has not seen this phone's address yet.
    it("a phone's first connectivity check opens the HTTPS audience page; once loaded there, the check is answered as the internet", async () => {
      const context = await /** @type {import('@playwright/test').Browser} */ (browser).newContext();
      try {
        const page = await context.newPage();
        await page.goto(`http://${CHECK_HOST}/hotspot-detect.html`);
        expect(page.url()).toBe(`https://${VENUE}/`);
        expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
        const again = await page.goto(`http://${CHECK_HOST}/hotspot-detect.html`);
        expect([again?.status(), page.url(), await again?.text()]).toEqual([
          200,
          `http://${CHECK_HOST}/hotspot-detect.html`,
          '<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>',
        ]);
      } finally {
        await context.close();
      }
    });

    it('over HTTPS under the venue name the page is a secure context: a service worker that takes over, and the join tap holds the Wake Lock; beats on time', async () => {
      const context = await /** @type {import('@playwright/test').Browser} */ (browser).newContext();
      const steps = stepClock();
      try {
        const page = await context.newPage();
        page.on('console', (m) => steps.console(m.type(), m.text()));
        await steps.run('load the page', () => page.goto(`https://${VENUE}/`, { timeout: STEP_MS }));
        expect(await page.evaluate(() => [window.isSecureContext, 'wakeLock' in navigator, location.origin])).toEqual([
          true,
          true,
          `https://${VENUE}`,
        ]);
        // The worker registers after the page's load event and installs the shell: when it never
        // gets ready, say how far it got rather than letting the test's own timeout fire.
        const active = await steps.run('service worker ready', () =>
          page.evaluate(async (ms) => {
            const ready = navigator.serviceWorker.ready.then((r) => r.active?.state ?? null);
            const late = new Promise((resolve) => setTimeout(resolve, ms, 'late'));
            const first = await Promise.race([ready, late]);
            if (first !== 'late') return first;
            const r = await navigator.serviceWorker.getRegistration();
            const states = r
              ? /** @type {const} */ (['installing', 'waiting', 'active']).map((k) => `${k}: ${r[k]?.state ?? '-'}`)
              : [];
            return `not ready within ${ms} ms (document ${document.readyState}; registration ${r ? states.join(', ') : 'none'})`;
          }, STEP_MS),
        );
        expect(['activating', 'activated']).toContain(active);
        await steps.run('reload under the worker', () => page.reload({ timeout: STEP_MS }));
        expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)).toBe(
          `https://${VENUE}/sw.js`,
        );
        await expectPage(page.getByTestId('no-offline')).toBeHidden();
        // The join tap holds the screen with the Wake Lock itself.
        await steps.run('join tap', () => page.click('#join-button', { timeout: STEP_MS }));
        await steps.run('wake lock held', () =>
          expect.poll(() => awake(page), { timeout: 10_000 }).toEqual({ method: 'wake-lock', held: true }),
        );
        await steps.run('beats on time', () => beatsOnTime(page));
      } finally {
        steps.report();
        await context.close();
      }
    });

    it('over plain HTTP at the same address the page is not: no Wake Lock, no service worker; the join tap plays the keep-awake video; beats on time', async () => {
      const context = await /** @type {import('@playwright/test').Browser} */ (browser).newContext();
      const steps = stepClock();
      try {
        const page = await context.newPage();
        page.on('console', (m) => steps.console(m.type(), m.text()));
        await steps.run('load the page', () => page.goto(`http://${ADDR.server}:${PORT.plain}/`, { timeout: STEP_MS }));
        expect(
          await page.evaluate(() => [window.isSecureContext, 'wakeLock' in navigator, 'serviceWorker' in navigator]),
        ).toEqual([false, false, false]);
        // The join tap holds the screen with the keep-awake video instead.
        await steps.run('join tap', () => page.click('#join-button', { timeout: STEP_MS }));
        await steps.run('video playing', () =>
          expect.poll(() => awake(page), { timeout: 10_000 }).toEqual({ method: 'video', held: true }),
        );
        await steps.run('beats on time', () => beatsOnTime(page));
        // And says so, once.
        await expectPage(page.getByTestId('no-offline')).toHaveText(
          "This page can't keep an offline copy over this connection; keep it open.",
        );
      } finally {
        steps.report();
        await context.close();
      }
    });

    it('the plain-HTTP port sends a phone to the same path at the HTTPS venue address, at its address', async () => {
      const context = await /** @type {import('@playwright/test').Browser} */ (browser).newContext();
      try {
        const page = await context.newPage();
        await page.goto(`http://${ADDR.server}/view/score?from=qr`);
        expect(page.url()).toBe(`https://${VENUE}/view/score?from=qr`);
        expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
      } finally {
        await context.close();
      }
    });
  },
);
