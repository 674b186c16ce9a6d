#!/usr/bin/env node
// The venue lab on this machine: builds what topology.js describes with ip, nft and tc, runs
// toxiproxy in the access point namespace, applies profiles and cuts the radio. Needs root.
//
//   node infra/lab/lab.js up [--profile NAME]   create (or repair) the lab; idempotent
//   node infra/lab/lab.js down                  remove everything the lab made; idempotent
//   node infra/lab/lab.js profile NAME          wired | wired+firewall | wifi | wifi+firewall | congested-wifi
//   node infra/lab/lab.js cut | restore         silence the radio link (roaming) / bring it back
//   node infra/lab/lab.js status                namespaces, rules, queues, proxies
//   node infra/lab/lab.js check                 why the lab can or cannot run here (exit 0 if it can)
//   node infra/lab/lab.js prune                 remove the copies of test runs that have ended
// SCORECAST_LAB_ID=ID before a command works on a copy of the lab of its own (instance.js); up,
// down, profile, cut and restore refuse while a run holds that copy (lock.js).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, endedRuns, idOfNamespace, namespacesFor, stateDirFor, testCopyIn } from './instance.js';
import { takeLock, lockOwner, busyMessage } from './lock.js';
import {
  ADDR,
  ADDRESSES,
  LAB_ID,
  BRIDGES,
  LINKS,
  NS,
  PROFILES,
  PROFILE_NAMES,
  PROXIES,
  ROUTER_QUEUE_DEVICES,
  ROUTES,
  SOURCE_RULES,
  TOXIPROXY_API,
  radioQueues,
  radioRuleset,
  routerQueues,
  routerRuleset,
  toxicsFor,
} from './topology.js';
import { usageOf } from '../../artillery/lib/usage.js';

export const LAB_DIR = path.dirname(fileURLToPath(import.meta.url));
/** toxiproxy is built here by `go install` (gitignored). */
export const BIN_DIR = path.join(LAB_DIR, '.bin');
export const TOXIPROXY_BIN = path.join(BIN_DIR, 'toxiproxy-server');
/** Pinned: the newest v2 release the Go module proxy serves. */
export const TOXIPROXY_MODULE = 'github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0';
/** This copy's state: toxiproxy's pid and log, the profile (outside the worktree: instance.js). */
const RUN_DIR = stateDirFor(LAB_ID);
const TOXI_PID = path.join(RUN_DIR, 'toxiproxy.pid');
const PROFILE_FILE = path.join(RUN_DIR, 'profile');
/** The lock of a copy: beside its state folder, so that tearing the state down leaves it. */
export const lockFile = (id = LAB_ID) => `${stateDirFor(id)}.lock`;

/** @param {string} cmd @param {string[]} args @param {{ input?: string, quiet?: boolean }} [o] */
function run(cmd, args, { input, quiet = false } = {}) {
  try {
    return execFileSync(cmd, args, {
      input,
      encoding: 'utf8',
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = /** @type {{ stderr?: string, message: string }} */ (err);
    if (quiet) return null;
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stderr || e.message).trim()}`);
  }
}

/** Run a command inside a namespace. @param {string} ns @param {string[]} argv @param {{ input?: string, quiet?: boolean }} [o] */
export function inNs(ns, argv, o) {
  return run('ip', ['netns', 'exec', ns, ...argv], o);
}

/** @param {string} name */
export const have = (name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/**
 * Can the lab run here? Root, network namespaces, and the tools (installed by ensureTools).
 * `toxiproxy: false` for a lab without the access point (the cluster lab, cluster-lab.js).
 * @param {{ toxiproxy?: boolean }} [o]
 * @returns {{ ok: boolean, reasons: string[] }}
 */
export function labSupport({ toxiproxy = true } = {}) {
  const reasons = [];
  if (process.platform !== 'linux') reasons.push(`network namespaces need Linux (this is ${process.platform})`);
  else {
    if (typeof process.getuid === 'function' && process.getuid() !== 0)
      reasons.push('the lab needs root (ip netns, nft, tc); run as root or with sudo');
    if (spawnSync('ip', ['-V']).status !== 0) reasons.push('iproute2 (`ip`) is not installed');
    if (!have('curl')) reasons.push('curl is not installed (apt-get install -y curl)');
    if (toxiproxy && !existsSync(TOXIPROXY_BIN) && !have('go'))
      reasons.push('toxiproxy is not built and Go, which builds it, is not installed (https://go.dev/dl/)');
    if (!have('nft') && !have('apt-get'))
      reasons.push('nftables is not installed and there is no apt-get to install it');
    else if (reasons.length === 0) {
      const probe = `scl-probe${process.pid.toString(36)}`;
      const add = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
      if (add.status !== 0) reasons.push(`cannot create a network namespace: ${add.stderr.trim()}`);
      else spawnSync('ip', ['netns', 'del', probe]);
    }
  }
  return { ok: reasons.length === 0, reasons };
}

/**
 * Install nftables (apt) and build toxiproxy (Go module proxy) when they are missing.
 * @param {(s: string) => void} log
 */
export function ensureTools(log) {
  if (!have('nft')) {
    log('lab: nftables is missing: apt-get install -y nftables');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let r = spawnSync('apt-get', ['install', '-y', '-qq', 'nftables'], { stdio: 'inherit', env });
    if (r.status !== 0) {
      spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
      r = spawnSync('apt-get', ['install', '-y', '-qq', 'nftables'], { stdio: 'inherit', env });
    }
    if (r.status !== 0 || !have('nft'))
      throw new Error('lab: could not install nftables (apt-get install -y nftables)');
  }
  if (!existsSync(TOXIPROXY_BIN)) {
    if (!have('go'))
      throw new Error(
        'lab: toxiproxy is built with Go, which is not installed (https://go.dev/dl/, or apt-get install golang)',
      );
    log(`lab: building toxiproxy: go install ${TOXIPROXY_MODULE} (about a minute the first time)`);
    mkdirSync(BIN_DIR, { recursive: true });
    const r = spawnSync('go', ['install', TOXIPROXY_MODULE], {
      stdio: 'inherit',
      env: { ...process.env, GOBIN: BIN_DIR, GOFLAGS: '-mod=mod' },
    });
    if (r.status !== 0) throw new Error(`lab: go install ${TOXIPROXY_MODULE} failed`);
    execFileSync('mv', [path.join(BIN_DIR, 'server'), TOXIPROXY_BIN]);
  }
}

export const existingNamespaces = () =>
  new Set(
    (run('ip', ['netns', 'list']) ?? '')
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter(Boolean),
  );

/** @param {string} ns @param {string} dev */
const hasDev = (ns, dev) => inNs(ns, ['ip', 'link', 'show', dev], { quiet: true }) !== null;

/**
 * Create or repair the lab. Every step checks or replaces, so running it twice changes nothing.
 * @param {{ profile?: string, log?: (s: string) => void }} [o]
 */
export async function up({ profile = 'wired', log = () => {} } = {}) {
  ensureTools(log);
  const nss = existingNamespaces();
  for (const ns of Object.values(NS)) {
    if (!nss.has(ns)) run('ip', ['netns', 'add', ns]);
    // IPv4 only: an IPv6 link-local address that appears a second or two after a link comes up
    // is an address change to Chromium, which fails the navigation under way (ERR_NETWORK_CHANGED).
    inNs(ns, ['sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
    inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
  }
  for (const br of BRIDGES) {
    if (!hasDev(NS.router, br)) inNs(NS.router, ['ip', 'link', 'add', br, 'type', 'bridge']);
    inNs(NS.router, ['ip', 'link', 'set', br, 'up']);
  }
  for (const l of LINKS) {
    if (!hasDev(l.a[0], l.a[1]) || !hasDev(l.b[0], l.b[1])) {
      // A half link (after a crash) is removed first; deleting one end removes both.
      if (hasDev(l.a[0], l.a[1])) inNs(l.a[0], ['ip', 'link', 'del', l.a[1]]);
      if (hasDev(l.b[0], l.b[1])) inNs(l.b[0], ['ip', 'link', 'del', l.b[1]]);
      run('ip', ['link', 'add', l.a[1], 'netns', l.a[0], 'type', 'veth', 'peer', 'name', l.b[1], 'netns', l.b[0]]);
    }
    if (l.bridge) inNs(l.b[0], ['ip', 'link', 'set', l.b[1], 'master', l.bridge]);
    inNs(l.a[0], ['ip', 'link', 'set', l.a[1], 'up']);
    inNs(l.b[0], ['ip', 'link', 'set', l.b[1], 'up']);
  }
  for (const [ns, dev, cidr] of ADDRESSES) inNs(ns, ['ip', 'addr', 'replace', cidr, 'dev', dev]);
  for (const [ns, dst, via] of ROUTES) inNs(ns, ['ip', 'route', 'replace', dst, 'via', via]);
  for (const [ns, from, table] of SOURCE_RULES) {
    inNs(ns, ['ip', 'route', 'replace', 'default', 'via', ADDR.routerGuest, 'table', String(table)]);
    if (!(inNs(ns, ['ip', 'rule', 'show']) ?? '').includes(`from ${from} lookup ${table}`))
      inNs(ns, ['ip', 'rule', 'add', 'from', from, 'lookup', String(table)]);
  }
  inNs(NS.router, ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
  inNs(NS.router, ['nft', '-f', '-'], { input: routerRuleset() });
  for (const dev of ROUTER_QUEUE_DEVICES) inNs(NS.router, ['tc', 'qdisc', 'del', 'dev', dev, 'root'], { quiet: true });
  for (const args of routerQueues()) inNs(NS.router, ['tc', ...args]);
  await startToxiproxy(log);
  await applyProfile(profile, { log });
  log(`lab: up (${Object.values(NS).join(', ')}), profile ${profile}`);
}

/** Stop toxiproxy and delete every namespace the lab made (their links go with them). */
export function down({ log = /** @type {(s: string) => void} */ (() => {}) } = {}) {
  removeCopy(LAB_ID);
  log('lab: down');
}

/** @param {string} id */
function removeCopy(id) {
  const dir = stateDirFor(id);
  stopToxiproxy(path.join(dir, 'toxiproxy.pid'));
  const nss = existingNamespaces();
  for (const ns of Object.values(namespacesFor(id))) if (nss.has(ns)) run('ip', ['netns', 'del', ns], { quiet: true });
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Remove the copies of test runs whose process has ended (a test run killed before its
 * teardown): their namespaces, toxiproxy and state. Copies with other ids are left alone.
 * @returns {string[]} the ids removed
 */
export function pruneEnded() {
  const ended = endedRuns(existingNamespaces(), testCopyIn(idOfNamespace));
  const ids = [...ended.keys()].filter((id) => lockOwner(lockFile(id)) === null);
  for (const id of ids) removeCopy(id);
  return ids;
}

/**
 * Hold this copy of the lab for a run (lock.js): a second run on the same copy waits up to
 * `waitMs`, then refuses saying who holds it.
 * @param {{ what: string, waitMs?: number, log?: (s: string) => void }} o
 */
export function holdLab({ what, waitMs = 0, log }) {
  return takeLock({ file: lockFile(), id: LAB_ID, what, waitMs, log });
}

function toxiPid(file = TOXI_PID) {
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8'));
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

function stopToxiproxy(file = TOXI_PID) {
  const pid = toxiPid(file);
  if (pid) process.kill(pid, 'SIGTERM');
  rmSync(file, { force: true });
}

/**
 * Ask toxiproxy's API (inside the access point namespace, with curl: the API listens on that
 * namespace's loopback).
 * @param {'GET' | 'POST' | 'DELETE'} method @param {string} route @param {unknown} [body]
 */
export function toxi(method, route, body) {
  const args = ['curl', '-sS', '--max-time', '5', '-X', method, `${TOXIPROXY_API}${route}`];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary', '@-');
  const out = inNs(NS.ap, args, { input: body === undefined ? undefined : JSON.stringify(body) });
  try {
    return JSON.parse(out ?? 'null');
  } catch {
    return out;
  }
}

/** @param {(s: string) => void} log */
async function startToxiproxy(log) {
  if (!toxiPid()) {
    mkdirSync(RUN_DIR, { recursive: true });
    const logFd = openSync(path.join(RUN_DIR, 'toxiproxy.log'), 'a');
    const child = spawn('ip', ['netns', 'exec', NS.ap, TOXIPROXY_BIN, '-host', '127.0.0.1', '-port', '8474'], {
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
    child.unref();
    writeFileSync(TOXI_PID, String(child.pid));
    log(`lab: toxiproxy pid ${child.pid} in ${NS.ap}`);
  }
  for (let i = 0; i < 50; i++) {
    if (inNs(NS.ap, ['curl', '-sf', '--max-time', '1', `${TOXIPROXY_API}/version`], { quiet: true }) !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // populate creates or updates: idempotent.
  toxi('POST', '/populate', PROXIES);
}

/**
 * Apply a profile: toxics on both proxies, the radio's rate and loss; records it for `status`.
 * @param {string} name
 * @param {{ log?: (s: string) => void }} [o]
 */
export async function applyProfile(name, { log = () => {} } = {}) {
  const profile = PROFILES[name];
  if (!profile) throw new Error(`unknown profile "${name}"; one of ${PROFILE_NAMES.join(', ')}`);
  const wanted = toxicsFor(profile);
  for (const p of PROXIES) {
    const current = /** @type {{ name: string }[]} */ (toxi('GET', `/proxies/${p.name}/toxics`) ?? []);
    for (const t of Array.isArray(current) ? current : []) toxi('DELETE', `/proxies/${p.name}/toxics/${t.name}`);
    for (const t of wanted) toxi('POST', `/proxies/${p.name}/toxics`, t);
  }
  const w = profile.wifi;
  for (const [ns, args] of radioQueues(w ? w.radioMbit : 1000)) inNs(ns, ['tc', ...args]);
  inNs(NS.ap, ['nft', '-f', '-'], { input: radioRuleset({ lossPermille: w?.lossPermille ?? 0 }) });
  mkdirSync(RUN_DIR, { recursive: true });
  writeFileSync(PROFILE_FILE, name);
  log(`lab: profile ${name}`);
}

/** The profile applied last, or null. */
export function currentProfile() {
  return existsSync(PROFILE_FILE) ? readFileSync(PROFILE_FILE, 'utf8').trim() : null;
}

/** Silence the radio link both ways (packets dropped, nothing answered), as a roaming phone. */
export function cut() {
  inNs(NS.ap, ['nft', '-f', '-'], { input: radioRuleset({ cut: true }) });
}

/** Bring the radio back with the current profile's loss. */
export function restore() {
  const p = PROFILES[currentProfile() ?? 'wired'];
  inNs(NS.ap, ['nft', '-f', '-'], { input: radioRuleset({ lossPermille: p?.wifi?.lossPermille ?? 0 }) });
}

/** Is every namespace of the lab there? */
export function isUp() {
  const nss = existingNamespaces();
  return Object.values(NS).every((ns) => nss.has(ns)) && toxiPid() !== null;
}

function status() {
  const nss = existingNamespaces();
  const lines = [
    `namespaces: ${Object.values(NS)
      .map((ns) => `${ns}${nss.has(ns) ? '' : ' (missing)'}`)
      .join(', ')}`,
  ];
  if (!nss.has(NS.router)) return lines.join('\n');
  lines.push(`profile: ${currentProfile() ?? '(none)'}`, `toxiproxy: ${toxiPid() ?? 'not running'}`);
  lines.push(
    'router ruleset:',
    inNs(NS.router, ['nft', 'list', 'table', 'inet', 'scl_fw'], { quiet: true }) ?? '(none)',
  );
  lines.push(
    'router queues:',
    inNs(NS.router, ['tc', 'class', 'show', 'dev', 'br-guest'], { quiet: true }) ?? '',
    inNs(NS.router, ['tc', 'class', 'show', 'dev', 'br-main'], { quiet: true }) ?? '',
  );
  if (toxiPid()) lines.push('proxies:', JSON.stringify(toxi('GET', '/proxies'), null, 1));
  return lines.join('\n');
}

const USAGE = usageOf(import.meta.url, 14);

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  const log = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    log(USAGE);
    return 0;
  }
  if (cmd === 'check') {
    const s = labSupport();
    log(s.ok ? 'lab: can run here' : `lab: cannot run here: ${s.reasons.join('; ')}`);
    return s.ok ? 0 : 1;
  }
  const support = labSupport();
  if (!support.ok) {
    log(`lab: cannot run here: ${support.reasons.join('; ')}`);
    return 1;
  }
  const flag = rest.indexOf('--profile');
  if (cmd === 'prune') {
    const ids = pruneEnded();
    log(ids.length ? `lab: removed the copies ${ids.join(', ')}` : 'lab: no copy of an ended test run');
    return 0;
  }
  // Commands that change the lab wait for no one: they refuse while a run holds this copy.
  if (['up', 'down', 'profile', 'cut', 'restore'].includes(cmd)) {
    const owner = lockOwner(lockFile());
    if (owner && owner.pid !== process.pid) {
      log(`lab: ${busyMessage(LAB_ID, owner, 0)}`);
      return 1;
    }
  }
  switch (cmd) {
    case 'up':
      await up({ profile: flag >= 0 ? rest[flag + 1] : 'wired', log });
      return 0;
    case 'down':
      down({ log });
      return 0;
    case 'profile':
      await applyProfile(rest[0], { log });
      return 0;
    case 'cut':
      cut();
      return 0;
    case 'restore':
      restore();
      return 0;
    case 'status':
      log(status());
      return 0;
    default:
      log(`lab: unknown command "${cmd}"\n${USAGE}`);
      return 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
