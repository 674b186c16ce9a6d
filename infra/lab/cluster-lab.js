#!/usr/bin/env node
// The cluster lab: the venue of infra/systemd/README.md (Redis, two conductors, edges, nginx, and
// the phones) with every role on a host of its own, a network namespace, as lab.js builds the
// venue lab. The recipe is followed from the repository's own files: Redis's users from
// infra/cluster/redis-users.js, redis.conf and the firewall rule from the README's text, each
// node's environment from the env examples and the systemd unit (EnvironmentFile, Environment,
// LoadCredential, ExecStart), nginx from the template. Needs root; nothing leaves the namespaces it
// creates (no namespace has a route to the host, and the phones have none to the servers).
//
//   node infra/lab/cluster-lab.js up [--edges 2] [--score DIR] [--phones 250]
//                                            bring it up and keep it until Ctrl-C
//   node infra/lab/cluster-lab.js down       remove a copy left behind (processes, namespaces)
//   node infra/lab/cluster-lab.js prune      remove the copies of test runs that have ended
// SCORECAST_LAB_ID=ID before a command works on a copy of its own (scx-ID-redis, ...).
//
//   servers' network 10.20.0.0/24 (bridge br-srv)      venue network 10.21.0.0/16 (bridge br-venue)
//     scx-redis  10.20.0.2:6379 (TLS, ACL users)          scx-nginx  10.21.0.1:80 (the audience's address)
//     scx-nginx  10.20.0.3                                scx-phones 10.21.1.1, 10.21.1.2, ... (one a phone)
//     scx-cond1  10.20.0.11:8081  scx-cond2  10.20.0.12:8081  (conductor.env: role both)
//     scx-edge1  10.20.0.21:8082  scx-edge2  10.20.0.22:8082  ... (edge.env)
//   scx-sw holds the two bridges; only nginx has a leg in both networks, and it does not route.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { nginxConfig } from '../cluster/run.js';
import { alive, endedRuns, labIdFrom, testCopyIn } from './instance.js';
import { testCa } from './test-ca.js';
import { existingNamespaces, have, inNs, labSupport } from './lab.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SYSTEMD = path.join(ROOT, 'infra', 'systemd');

/** Every namespace of every copy of the cluster lab starts with this. */
export const CLUSTER_NS_PREFIX = 'scx-';

export const CADDR = Object.freeze({
  redis: '10.20.0.2',
  nginx: '10.20.0.3',
  audience: '10.21.0.1',
  serverPrefix: 24,
  venuePrefix: 16,
});

/** The doc's machine A, where Redis and nginx live (infra/systemd/README.md). */
const DOC_A = '10.0.0.2';

/**
 * The `i`th phone's address (i from 0): 250 a /24, up to 250 * 254 phones.
 * @param {number} i
 */
export const phoneAddress = (i) => `10.21.${1 + Math.floor(i / 250)}.${(i % 250) + 1}`;

/**
 * @typedef {{ name: string, instance: 'conductor' | 'edge', ns: string, addr: string, port: number }} LabNode
 * @typedef {{ sw: string, redis: string, nginx: string, phones: string, nodes: LabNode[] }} ClusterHosts
 */

/**
 * The hosts of a copy of the cluster lab.
 * @param {string} id '' for the default copy
 * @param {number} edges
 * @returns {ClusterHosts}
 */
export function clusterHosts(id, edges) {
  const base = id ? `${CLUSTER_NS_PREFIX}${id}-` : CLUSTER_NS_PREFIX;
  /** @type {LabNode[]} */
  const nodes = [];
  for (const k of [1, 2])
    nodes.push({
      name: `cond${k}`,
      instance: 'conductor',
      ns: `${base}cond${k}`,
      addr: `10.20.0.${10 + k}`,
      port: 8081,
    });
  for (let k = 1; k <= edges; k++)
    nodes.push({ name: `edge${k}`, instance: 'edge', ns: `${base}edge${k}`, addr: `10.20.0.${20 + k}`, port: 8082 });
  return { sw: `${base}sw`, redis: `${base}redis`, nginx: `${base}nginx`, phones: `${base}phones`, nodes };
}

/** Every namespace of a copy. @param {ClusterHosts} h */
const allNamespaces = (h) => [h.sw, h.redis, h.nginx, h.phones, ...h.nodes.map((n) => n.ns)];

/**
 * The copy a namespace belongs to ('' for the default copy), or null when it is not the cluster lab's.
 * @param {string} ns
 */
function copyOf(ns) {
  const m = /^scx-(?:([a-z0-9]{1,12})-)?[a-z0-9]+$/.exec(ns);
  return m ? (m[1] ?? '') : null;
}

/** The namespaces of every copy on this machine, by id. */
function copiesHere() {
  /** @type {Map<string, string[]>} */
  const ids = new Map();
  for (const ns of existingNamespaces()) {
    const id = copyOf(ns);
    if (id !== null) ids.set(id, [...(ids.get(id) ?? []), ns]);
  }
  return ids;
}

/** @param {string} id */
export const clusterStateDir = (id) => path.join(os.tmpdir(), 'scorecast-cluster-lab', id || 'default');

/** @param {string} cmd @param {string[]} args @param {{ input?: string }} [o] */
function run(cmd, args, { input } = {}) {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout;
}

/**
 * The servers' network and the venue network: two bridges in the switch namespace, a veth from
 * each host to one of them (nginx to both), the phones' addresses, Redis's firewall rule.
 * @param {ClusterHosts} h @param {number} phones
 * @param {string} redisRule @param {string} nodeRule  the README's nft rules, for the lab's addresses
 */
function buildNetwork(h, phones, redisRule, nodeRule) {
  for (const ns of allNamespaces(h)) {
    run('ip', ['netns', 'add', ns]);
    inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
  }
  for (const br of ['br-srv', 'br-venue']) {
    inNs(h.sw, ['ip', 'link', 'add', br, 'type', 'bridge']);
    inNs(h.sw, ['ip', 'link', 'set', br, 'up']);
  }
  /** @type {[string, string, string, string, string][]} host ns, its device, the switch's, bridge, cidr */
  const links = [
    [h.redis, 'eth0', 'p-redis', 'br-srv', `${CADDR.redis}/${CADDR.serverPrefix}`],
    [h.nginx, 'eth0', 'p-nginx', 'br-srv', `${CADDR.nginx}/${CADDR.serverPrefix}`],
    [h.nginx, 'eth1', 'v-nginx', 'br-venue', `${CADDR.audience}/${CADDR.venuePrefix}`],
    [h.phones, 'eth0', 'v-phones', 'br-venue', `${phoneAddress(0)}/${CADDR.venuePrefix}`],
    ...h.nodes.map(
      (n) =>
        /** @type {[string, string, string, string, string]} */ ([
          n.ns,
          'eth0',
          `p-${n.name}`,
          'br-srv',
          `${n.addr}/${CADDR.serverPrefix}`,
        ]),
    ),
  ];
  for (const [ns, dev, swDev, br, cidr] of links) {
    run('ip', ['link', 'add', dev, 'netns', ns, 'type', 'veth', 'peer', 'name', swDev, 'netns', h.sw]);
    inNs(h.sw, ['ip', 'link', 'set', swDev, 'master', br]);
    inNs(h.sw, ['ip', 'link', 'set', swDev, 'up']);
    inNs(ns, ['ip', 'addr', 'add', cidr, 'dev', dev]);
    inNs(ns, ['ip', 'link', 'set', dev, 'up']);
  }
  // One address a phone, added in one batch (thousands take well under a second this way).
  const extra = [];
  for (let i = 1; i < phones; i++) extra.push(`addr add ${phoneAddress(i)}/${CADDR.venuePrefix} dev eth0`);
  if (extra.length) inNs(h.phones, ['ip', '-batch', '-'], { input: `${extra.join('\n')}\n` });
  // nginx proxies; it never forwards packets between the phones and the servers.
  inNs(h.nginx, ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=0']);
  const filter = `table inet filter {\n  chain input {\n    type filter hook input priority filter; policy accept;\n  }\n}\n`;
  for (const [ns, rule] of [[h.redis, redisRule], ...h.nodes.map((n) => [n.ns, nodeRule])]) {
    inNs(ns, ['nft', '-f', '-'], { input: filter });
    inNs(ns, ['sh', '-c', rule]);
  }
}

/**
 * The lines of a fenced block in a Markdown text that follows `marker`, comments dropped.
 * @param {string} text @param {string} marker
 */
function fencedAfter(text, marker) {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`infra/systemd/README.md no longer says "${marker}"`);
  const m = /```\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m) throw new Error(`no configuration block after "${marker}" in infra/systemd/README.md`);
  return m[1]
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

/**
 * KEY=VALUE lines of an environment file (systemd's EnvironmentFile, without quoting).
 * @param {string} text
 */
export function parseEnvFile(text) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]] = m[2].trim();
  }
  return env;
}

/**
 * What the unit file tells systemd to do for one instance: environment, credentials, command.
 * @param {string} text scorecast@.service
 * @param {{ instance: string, host: string, credentialsDir: string }} o  %i, %H, %d
 */
export function parseUnit(text, { instance, host, credentialsDir }) {
  const sub = (/** @type {string} */ s) =>
    s.replaceAll('%i', instance).replaceAll('%H', host).replaceAll('%d', credentialsDir);
  /** @type {Record<string, string>} */
  const env = {};
  /** @type {{ name: string, from: string }[]} */
  const credentials = [];
  let envFile = '';
  let exec = /** @type {string[]} */ ([]);
  let cwd = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m;
    if (key === 'Environment') {
      const eq = value.indexOf('=');
      env[value.slice(0, eq)] = sub(value.slice(eq + 1));
    } else if (key === 'EnvironmentFile') envFile = sub(value);
    else if (key === 'LoadCredential') {
      const [name, from] = value.split(':');
      credentials.push({ name, from: sub(from) });
    } else if (key === 'ExecStart') exec = sub(value).split(/\s+/);
    else if (key === 'WorkingDirectory') cwd = sub(value);
  }
  return { env, envFile, credentials, exec, cwd };
}

/**
 * A test CA and Redis's certificate for `ip` (the README's "test CA with openssl"), under the
 * names the README's redis.conf gives them: ca.crt, redis.crt (the chain) and redis.key.
 * @param {string} dir @param {string} ip
 */
function makeCertificates(dir, ip) {
  const { ca, leaf } = testCa({ dir, name: 'scorecast lab CA', days: 1 });
  const redis = leaf({ name: ip, file: 'redis', days: 1 });
  const f = (/** @type {string} */ n) => path.join(dir, n);
  copyFileSync(ca, f('ca.crt'));
  copyFileSync(redis.cert, f('redis.crt'));
  return { ca: f('ca.crt'), cert: f('redis.crt'), key: redis.key };
}

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until a TCP port answers, seen from a namespace.
 * @param {string} ns @param {string} host @param {number} port @param {number} ms
 */
export async function waitTcp(ns, host, port, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const r = spawnSync('ip', ['netns', 'exec', ns, 'timeout', '1', 'bash', '-c', `exec 3<>/dev/tcp/${host}/${port}`]);
    if (r.status === 0) return;
    if (Date.now() > end) throw new Error(`${host}:${port} did not answer from ${ns} within ${ms} ms`);
    await sleep(100);
  }
}

/**
 * @typedef {object} Proc
 * @property {string} name
 * @property {string} ns
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => Promise<Proc>} [restart]
 */

/**
 * The phones' agent (cluster-phones.js) in the phones' namespace: every request and WebSocket of
 * the tests comes from there, each from a phone address of its own.
 * @param {string} ns @param {string} logFile
 */
function startPhones(ns, logFile) {
  const fd = openSync(logFile, 'a');
  const child = spawn(
    'ip',
    ['netns', 'exec', ns, process.execPath, path.join(ROOT, 'infra', 'lab', 'cluster-phones.js')],
    {
      stdio: ['ignore', fd, fd, 'ipc'],
      env: { ...process.env, SCORECAST_AUDIENCE: `http://${CADDR.audience}` },
    },
  );
  let next = 0;
  /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
  const pending = new Map();
  child.on('message', (/** @type {any} */ m) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(new Error(`phones: ${m.error}`));
    else p.resolve(m.result);
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`the phones' agent exited (${code}); see ${logFile}`));
    pending.clear();
  });
  return {
    child,
    /**
     * @param {string} op @param {Record<string, unknown>} [args]
     * @returns {Promise<any>}
     */
    call(op, args = {}) {
      const id = ++next;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, op, ...args });
      });
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof clusterUp>>} ClusterLab */

/**
 * Bring the cluster lab up as the recipe says; resolves when nginx answers the phones.
 * @param {{ id?: string, edges?: number, score?: string, phones?: number, log?: (s: string) => void }} [o]
 */
export async function clusterUp({
  id = labIdFrom(),
  edges = 2,
  score = path.join(ROOT, 'scores', 'demo'),
  phones = 250,
  log = () => {},
} = {}) {
  const support = labSupport({ toxiproxy: false });
  if (!support.ok) throw new Error(`cluster lab: cannot run here: ${support.reasons.join('; ')}`);
  for (const bin of ['nginx', 'redis-server', 'openssl', 'nft'])
    if (!have(bin) && !existsSync(`/usr/sbin/${bin}`)) throw new Error(`cluster lab: ${bin} is not installed`);
  const h = clusterHosts(id, edges);
  if (copiesHere().has(id))
    throw new Error(`cluster lab copy "${id || 'default'}" is up already (cluster-lab.js down)`);
  const dir = clusterStateDir(id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  // nginx's workers drop root for `nobody` and must reach their files.
  chmodSync(dir, 0o755);
  const readme = readFileSync(path.join(SYSTEMD, 'README.md'), 'utf8');
  const ruleMatch = /nft add rule inet filter input ip saddr != \{[^}]*\} tcp dport 6379 drop/.exec(readme);
  if (!ruleMatch) throw new Error("infra/systemd/README.md no longer has Redis's nft rule");
  // The README's set is A and B, the machines of the nodes (A also holds Redis): here every node's host.
  const servers = h.nodes.map((n) => n.addr).join(', ');
  const redisRule = ruleMatch[0].replace(/\{[^}]*\}/, `{ ${servers} }`);
  // The nodes' ports: the servers (and nginx, here a host of its own) only.
  const nodeMatch = /nft add rule inet filter input ip saddr != \{[^}]*\} tcp\s+dport \{ 8081, 8082 \} drop/.exec(
    readme,
  );
  if (!nodeMatch) throw new Error("infra/systemd/README.md no longer has the nodes' nft rule");
  const nodeRule = nodeMatch[0].replace(/\s+/g, ' ').replace(/\{[^}]*\}/, `{ ${servers}, ${CADDR.nginx} }`);
  /** @type {Proc[]} */
  const procs = [];
  const pidsFile = path.join(dir, 'pids');
  const savePids = () =>
    writeFileSync(
      pidsFile,
      procs
        .map((p) => p.child.pid)
        .filter(Boolean)
        .join('\n'),
    );

  /**
   * @param {string} name @param {string} ns @param {string[]} argv
   * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, ipc?: boolean }} [o]
   */
  const start = (name, ns, argv, { env = process.env, cwd = ROOT, ipc = false } = {}) => {
    const fd = openSync(path.join(dir, 'logs', `${name}.log`), 'a');
    const child = spawn('ip', ['netns', 'exec', ns, ...argv], {
      env,
      cwd,
      stdio: ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
    });
    /** @type {Proc} */
    const p = { name, ns, child };
    procs.push(p);
    savePids();
    return p;
  };

  try {
    buildNetwork(h, phones, redisRule, nodeRule);
    log(`cluster lab: network up (${allNamespaces(h).join(', ')})`);

    // Step 2: Redis's users, by the recipe's own command.
    const etc = path.join(dir, 'etc');
    run(process.execPath, [path.join(ROOT, 'infra', 'cluster', 'redis-users.js'), etc]);
    // Step 3: redis.conf as the README writes it, for the lab's address and folders.
    const redisDir = path.join(dir, 'redis');
    const certs = makeCertificates(path.join(redisDir, 'tls'), CADDR.redis);
    copyFileSync(path.join(etc, 'users.acl'), path.join(redisDir, 'users.acl'));
    copyFileSync(certs.ca, path.join(etc, 'redis-ca.crt'));
    const redisConf = fencedAfter(readme, '/etc/redis/redis.conf')
      .map((l) => l.replaceAll(DOC_A, CADDR.redis).replaceAll('/etc/redis/', `${redisDir}/`))
      .concat(['save ""', 'appendonly no', `dir ${redisDir}`, 'daemonize no', '']);
    writeFileSync(path.join(redisDir, 'redis.conf'), redisConf.join('\n'), { mode: 0o600 });
    const redisBin = have('redis-server') ? 'redis-server' : '/usr/sbin/redis-server';
    start('redis', h.redis, [redisBin, path.join(redisDir, 'redis.conf')]);
    await waitTcp(h.nodes[0].ns, CADDR.redis, 6379, 10_000);

    // Steps 4 and 6: each node as systemd would start it.
    const token = randomBytes(18).toString('base64url');
    const unitText = readFileSync(path.join(SYSTEMD, 'scorecast@.service'), 'utf8');
    /** @param {LabNode} n */
    const startNode = async (n) => {
      const credentialsDir = path.join(dir, 'credentials', n.name);
      const unit = parseUnit(unitText, { instance: n.instance, host: n.name, credentialsDir });
      mkdirSync(credentialsDir, { recursive: true, mode: 0o700 });
      const local = (/** @type {string} */ p) =>
        p.replace('/etc/scorecast/', `${etc}/`).replace('/opt/scorecast', ROOT);
      for (const c of unit.credentials) copyFileSync(local(c.from), path.join(credentialsDir, c.name));
      const file = parseEnvFile(readFileSync(path.join(SYSTEMD, `${n.instance}.env.example`), 'utf8'));
      for (const key of ['SCORECAST_REDIS', 'SCORECAST_TRUST_PROXY'])
        if (!file[key]?.includes(DOC_A)) throw new Error(`${n.instance}.env.example: ${key} no longer names ${DOC_A}`);
      /** @type {Record<string, string>} */
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...Object.fromEntries(Object.entries(file).map(([k, v]) => [k, local(v)])),
        ...unit.env,
        SCORECAST_REDIS: file.SCORECAST_REDIS.replace(DOC_A, CADDR.redis),
        // The doc's nginx is on machine A; the lab's has a host of its own.
        SCORECAST_TRUST_PROXY: file.SCORECAST_TRUST_PROXY.replace(DOC_A, CADDR.nginx),
        SCORECAST_TOKEN: token,
        SCORECAST_SCORE: score,
        // Each machine has its own disk.
        SCORECAST_STATE_FILE: path.join(dir, 'state', `${n.name}.json`),
      };
      if (Number(env.PORT) !== n.port)
        throw new Error(`${n.instance}.env.example: PORT is ${env.PORT}, the lab expects ${n.port}`);
      const argv = [
        unit.exec[0] === '/usr/bin/node' ? process.execPath : unit.exec[0],
        ...unit.exec.slice(1).map(local),
      ];
      const p = start(n.name, n.ns, argv, { env, cwd: local(unit.cwd), ipc: true });
      await new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${n.name} did not listen within 40 s (see ${dir}/logs)`)),
          40_000,
        );
        p.child.on('message', (/** @type {any} */ m) => {
          if (m?.type === 'listening') {
            clearTimeout(timer);
            resolve(null);
          }
        });
        p.child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`${n.name} exited (${code}) while starting; see ${dir}/logs/${n.name}.log`));
        });
      });
      p.restart = async () => {
        procs.splice(procs.indexOf(p), 1);
        return startNode(n);
      };
      return p;
    };
    mkdirSync(path.join(dir, 'state'), { recursive: true });
    // The first conductor takes the lease; then the rest, two at a time (two cores).
    await startNode(h.nodes[0]);
    for (let i = 1; i < h.nodes.length; i += 2) await Promise.all(h.nodes.slice(i, i + 2).map(startNode));

    // Step 5: nginx from the template, with every node in the upstream list.
    const nginxDir = path.join(dir, 'nginx');
    for (const d of ['tmp', 'cache']) mkdirSync(path.join(nginxDir, d), { recursive: true });
    chmodSync(nginxDir, 0o755);
    const conf = path.join(nginxDir, 'nginx.conf');
    writeFileSync(
      conf,
      nginxConfig({
        servers: h.nodes.map((n) => `${n.addr}:${n.port}`),
        listen: `${CADDR.audience}:80`,
        prefix: nginxDir,
      }),
    );
    const nginxBin = have('nginx') ? 'nginx' : '/usr/sbin/nginx';
    const startNginx = () => {
      const p = start('nginx', h.nginx, [nginxBin, '-c', conf, '-p', nginxDir]);
      p.restart = async () => {
        procs.splice(procs.indexOf(p), 1);
        const q = startNginx();
        await waitTcp(h.phones, CADDR.audience, 80, 10_000);
        return q;
      };
      return p;
    };
    startNginx();
    await waitTcp(h.phones, CADDR.audience, 80, 10_000);
    const phonesAgent = startPhones(h.phones, path.join(dir, 'logs', 'phones.log'));
    await phonesAgent.call('ping');
    log(`cluster lab: up; the audience's address http://${CADDR.audience} (from ${h.phones}), token ${token}`);

    return {
      id,
      hosts: h,
      dir,
      token,
      url: `http://${CADDR.audience}`,
      phones: phonesAgent,
      /** @param {string} name */
      proc: (name) => {
        const p = procs.find((q) => q.name === name);
        if (!p) throw new Error(`no process ${name}`);
        return p;
      },
      /** What the lab runs, by name. */
      names: () => procs.map((p) => p.name),
      async down() {
        phonesAgent.child.kill('SIGKILL');
        await stopAll(procs);
        removeNamespaces(id);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await stopAll(procs);
    removeNamespaces(id);
    throw err;
  }
}

/** @param {Proc[]} procs */
async function stopAll(procs) {
  for (const p of [...procs].reverse()) {
    const c = p.child;
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill(p.name === 'nginx' ? 'SIGQUIT' : 'SIGTERM');
    await Promise.race([gone, sleep(5000)]);
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

/** Kill what a copy's pids file lists, then delete its namespaces. @param {string} id */
function removeCopy(id) {
  const pids = path.join(clusterStateDir(id), 'pids');
  if (existsSync(pids))
    for (const pid of readFileSync(pids, 'utf8')
      .split('\n')
      .map(Number)
      .filter((n) => n > 0 && alive(n)))
      process.kill(pid, 'SIGKILL');
  removeNamespaces(id);
  rmSync(clusterStateDir(id), { recursive: true, force: true });
}

/** @param {string} id */
function removeNamespaces(id) {
  // nginx's workers and anything else still inside go with their namespace's last process.
  for (const ns of copiesHere().get(id) ?? []) {
    spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
      .stdout.split('\n')
      .map(Number)
      .filter((n) => n > 0)
      .forEach((pid) => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      });
    spawnSync('ip', ['netns', 'del', ns]);
  }
}

/**
 * Remove the copies of test runs whose process has ended (a test killed before its teardown).
 * @returns {string[]} the ids removed
 */
export function pruneEndedClusters() {
  const gone = [...endedRuns(existingNamespaces(), testCopyIn(copyOf)).keys()];
  for (const id of gone) removeCopy(id);
  return gone;
}

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  const log = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
  const id = labIdFrom();
  if (cmd === 'down') {
    removeCopy(id);
    log(`cluster lab: copy "${id || 'default'}" removed`);
    return;
  }
  if (cmd === 'prune') {
    const ids = pruneEndedClusters();
    log(ids.length ? `cluster lab: removed ${ids.join(', ')}` : 'cluster lab: no copy of an ended test run');
    return;
  }
  if (cmd !== 'up') {
    log(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(9, 15)
        .join('\n'),
    );
    process.exitCode = cmd ? 2 : 0;
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      edges: { type: 'string', default: '2' },
      score: { type: 'string' },
      phones: { type: 'string', default: '250' },
    },
  });
  const lab = await clusterUp({
    id,
    edges: Number(values.edges),
    phones: Number(values.phones),
    ...(values.score ? { score: path.resolve(values.score) } : {}),
    log,
  });
  log(`  try: ip netns exec ${lab.hosts.phones} curl -s ${lab.url}/api/score | head -c 200`);
  const stop = () => {
    void lab.down().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  });
}
