#!/usr/bin/env -S node --max-semi-space-size=2
// Reads the configuration, builds the app, listens, and prints where the audience goes.

import os from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readSave, switchedScore } from '../performance/save/persist.js';
import { lockStateFile } from '../performance/save/state-lock.js';
import { readConfig, START_USAGE } from './config.js';
import { nodeVersionProblem } from './node-version.js';
import { pathToFileURL } from 'node:url';
import { loadPackage } from '../package/load.js';
import { buildApp, CACHE_DIR } from '../app.js';
import { openFilesLimit, openFilesWarning } from './open-files.js';
import { redactUrl } from '../cluster/redact-url.js';
import { readTls, watchTls } from '../http/tls.js';
import { audienceLines, qrType } from './banner.js';

/**
 * Why listening on `host`:`port` failed, in the words of the other start errors (not Node's stack).
 * @param {unknown} err
 * @param {string} host
 * @param {number} port
 * @param {string} flag  where the port was given
 * @returns {string}
 */
export function listenProblem(err, host, port, flag) {
  const code = /** @type {NodeJS.ErrnoException} */ (err)?.code;
  if (code === 'EADDRINUSE')
    return `port ${port} on ${host} is in use (another scorecast, or another server); stop it or choose another port with ${flag}`;
  if (code === 'EACCES')
    return `port ${port} needs privileges this user lacks (ports below 1024); choose one above 1023 with ${flag}, or let the router forward to it`;
  if (code === 'EADDRNOTAVAIL')
    return `${host} is not an address of this machine; give --host one of its addresses, or 0.0.0.0 for all`;
  return `cannot listen on ${host}:${port}: ${/** @type {Error} */ (err)?.message ?? String(err)}`;
}

/**
 * Connections the kernel holds for us before we accept them (capped by net.core.somaxconn).
 * When an access point comes back, every phone on it reconnects at once: with Node's default of
 * 511, a storm of 1,500 reconnects overflowed the queue and the connections refused had to wait
 * for TCP's one-second SYN retry (`npm run bench:storm`, bench/RESULTS.md).
 */
export const LISTEN_BACKLOG = 4096;

/** Addresses phones on the venue network can use (non-internal IPv4). */
function lanAddresses() {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i && i.family === 'IPv4' && !i.internal)
    .map((i) => /** @type {os.NetworkInterfaceInfo} */ (i).address);
}

/**
 * How the performance starts, for the banner: a resumed one says where it came back.
 * @param {import('../../core/performance.js').PerformanceState} state
 */
function resumedAs(state) {
  if (state.playback === 'stopped' && state.beat === 0) return ' (waiting for the conductor)';
  return ` (resumed ${state.playback} at bar ${state.bar}, beat ${state.beatInBar})`;
}

/**
 * The banner's lines about the save: the file in use and, when a save was there and not taken
 * up, why (the operator sees at a glance that the piece named is the one that plays).
 * @param {string | null} stateFile
 * @param {import('../performance/save/persist.js').ResumeStatus | null} resume
 * @returns {string[]}
 */
export function saveLines(stateFile, resume) {
  if (!stateFile || !resume) return ['  save:      none (the autoplay demo starts from the top and is not saved)'];
  const lines = [`  save:      ${stateFile}`];
  if (resume.code) {
    lines.push(`  not resumed (${resume.code}): ${resume.problem}`);
    lines.push(
      resume.keptAs
        ? `    the save is kept as ${resume.keptAs}`
        : '    the save could not be moved aside: nothing is saved until it is',
    );
  }
  return lines;
}

/**
 * The package of the saved performance, when the console had switched to another score of the
 * same scores folder and played it, and the save belongs to this start (the same `--score`): the
 * restart goes on with that score (persist.js switchedScore). Otherwise null, and `--score` plays;
 * the persistence then says why the save was not taken up.
 * @param {import('./config.js').Config} config
 * @returns {Promise<string | null>}
 */
async function scoreToResume(config) {
  if (!config.stateFile || !config.resume) return null;
  const read = await readSave(config.stateFile);
  return read.ok ? switchedScore(read.payload, config.scoreDir) : null;
}

/**
 * Where the cluster's Redis is, with the password and CA read from their files.
 * @param {NonNullable<import('./config.js').Config['cluster']>} cluster
 * @returns {import('../cluster/redis.js').RedisTarget}
 */
function redisTarget({ url, passwordFile, ca }) {
  /** @param {string} what @param {string} file */
  const read = (what, file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the Redis ${what} ${file}: ${/** @type {Error} */ (err).message}`);
    }
  };
  return {
    url,
    ...(passwordFile ? { password: read('password file', passwordFile).split('\n')[0].trim() } : {}),
    ...(ca ? { ca: read('CA certificate', ca) } : {}),
  };
}

/**
 * Start the server from command-line flags and the environment.
 * @param {string[]} argv
 */
export async function main(argv) {
  // SIGHUP's default action ends the process: a `systemctl reload`, a `kill -HUP` sent to take up
  // a renewed certificate, or a closed terminal must never stop a show, whatever the mode. Until
  // the server is up a hangup is only noted; then it reads again what can be read again.
  /** @type {() => void} */
  let onHangup = () => {
    process.stderr.write('scorecast: SIGHUP while starting: nothing to reload yet\n');
  };
  process.on('SIGHUP', () => onHangup());
  // After a terminal hangs up (an SSH session closed on the server it started) every write to it
  // fails with EIO, and a pipe whose reader left with EPIPE: the show goes on without its output.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      if (code !== 'EIO' && code !== 'EPIPE') throw err;
    });
  // Asked for help: the usage, whatever else the line says.
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(START_USAGE);
    process.exit(0);
  }
  const nodeProblem = nodeVersionProblem(process.versions.node);
  if (nodeProblem) {
    process.stderr.write(`scorecast: ${nodeProblem.message}\n`);
    if (nodeProblem.fatal) process.exit(1);
  }
  let config;
  try {
    config = readConfig(argv, process.env);
  } catch (err) {
    process.stderr.write(`scorecast: ${/** @type {Error} */ (err).message}\nrun with --help for the options\n`);
    process.exit(2);
  }
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const hosts = wildcard ? [...lanAddresses(), 'localhost'] : [config.host];
  // The host the certificate must name: the venue name, or else the address the banner gives.
  const tlsHosts = [config.publicUrl ? new URL(config.publicUrl).hostname : hosts[0]];
  /** @type {import('../http/tls.js').TlsPair | undefined} */
  let tlsPair;
  if (config.tls) {
    const read = readTls(config.tls, { now: Date.now(), hosts: tlsHosts });
    if (!read.ok) {
      process.stderr.write(`scorecast: cannot start: ${read.error.code}: ${read.error.message}\n`);
      process.exit(2);
    }
    tlsPair = read.value;
    for (const w of tlsPair.warnings) process.stderr.write(`scorecast: warning: ${w}\n`);
  }
  // Hold the save before reading it: a second server on the same file stops here.
  /** @type {ReturnType<typeof lockStateFile> | undefined} */
  let lock;
  if (config.stateFile) {
    try {
      lock = lockStateFile(config.stateFile);
    } catch (err) {
      process.stderr.write(`scorecast: cannot start: ${/** @type {Error} */ (err).message}\n`);
      process.exit(2);
    }
    process.on('exit', () => lock?.release());
  }
  const resumeDir = await scoreToResume(config);
  // A saved score that no longer loads: start with --score's; the save is then reported (with
  // why that score did not load) and kept aside.
  /** @type {string | null} */
  let switchProblem = null;
  let score = resumeDir
    ? await loadPackage(resumeDir, { cacheDir: CACHE_DIR, deferLayouts: true }).catch((/** @type {Error} */ err) => {
        switchProblem = existsSync(path.join(resumeDir, 'score.yaml'))
          ? err.message.split('\n')[0]
          : 'its folder or score.yaml is gone';
        return null;
      })
    : null;
  if (!score)
    try {
      score = await loadPackage(config.scoreDir, { cacheDir: CACHE_DIR, deferLayouts: true });
    } catch (err) {
      process.stderr.write(
        `scorecast: cannot load the score in ${config.scoreDir}: ${/** @type {Error} */ (err).message}\n`,
      );
      process.exit(1);
    }
  const https = tlsPair ? { cert: tlsPair.cert, key: tlsPair.key } : undefined;
  let app;
  /** @type {import('fastify').FastifyInstance | null} */
  let redirect = null;
  let conductor;
  /** @type {import('../performance/save/persist.js').ResumeStatus | null} */
  let resume;
  /** @type {import('../cluster/node.js').ClusterNode | null} */
  let cluster = null;
  try {
    // A cluster node plays only once it holds the conductor lease (then autoplay applies).
    // Ioredis, node-osc and the QR code's encoder load only when used: a server that is not a
    // cluster node, sends no OSC and prints no QR code never holds them (about 4 MB of heap).
    if (config.cluster) {
      const { startClusterNode } = await import('../cluster/node.js');
      cluster = await startClusterNode({
        url: redisTarget(config.cluster),
        token: config.token,
        role: config.cluster.role,
        ...(config.cluster.nodeId ? { node: config.cluster.nodeId } : {}),
      });
    }
    const createOscOut = config.osc ? (await import('../performance/osc-out.js')).createOscOut : null;
    const built = await buildApp({
      score,
      token: config.token,
      autoplay: config.autoplay && !cluster,
      loop: config.loop,
      watch: config.watch,
      // On a terminal, the log goes through process.stdout, whose errors are ignored above once
      // the terminal has hung up: pino's own writer (sonic-boom 4.2) retries a failed write every
      // 100 ms for ever, which stopped the whole server at its first log line after the hangup.
      logger: { level: config.logLevel, ...(process.stdout.isTTY ? { stream: process.stdout } : {}) },
      https,
      ...(config.httpPort !== null && config.publicUrl ? { httpRedirect: { origin: config.publicUrl } } : {}),
      ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
      phonesPerAddress: config.phonesPerAddress,
      connectionsPerAddress: config.connectionsPerAddress,
      osc:
        config.osc && createOscOut
          ? createOscOut({
              ...config.osc,
              log: {
                warn: (obj, msg) =>
                  process.stderr.write(`scorecast: ${msg} (${String(/** @type {any} */ (obj).err?.message ?? '')})\n`),
              },
            })
          : null,
      persist:
        config.stateFile && lock
          ? { file: config.stateFile, resume: config.resume, start: config.scoreDir, switchProblem, lock }
          : null,
      ...(cluster ? { bus: cluster.bus, cluster: cluster.hooks } : {}),
    });
    ({ app, conductor, resume, redirect } = built);
    cluster?.attach({ ...built, autoplay: config.autoplay });
  } catch (err) {
    process.stderr.write(`scorecast: cannot start: ${/** @type {Error} */ (err).message}\n`);
    process.exit(2);
  }
  try {
    await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  } catch (err) {
    process.stderr.write(
      `scorecast: cannot start: ${listenProblem(err, config.host, config.port, '--port or PORT')}\n`,
    );
    process.exit(2);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  /** @type {number | null} */
  let httpPort = null;
  if (redirect) {
    try {
      await redirect.listen({ port: config.httpPort ?? 0, host: config.host, backlog: LISTEN_BACKLOG });
    } catch (err) {
      process.stderr.write(
        `scorecast: cannot start: cannot answer plain HTTP: ${listenProblem(err, config.host, config.httpPort ?? 0, '--http-port')}\n`,
      );
      process.exit(2);
    }
    const a = redirect.server.address();
    httpPort = typeof a === 'object' && a ? a.port : config.httpPort;
  }
  const tlsWatch =
    tlsPair && config.tls
      ? watchTls({
          files: config.tls,
          initial: tlsPair,
          server: /** @type {import('node:https').Server} */ (app.server),
          now: Date.now,
          hosts: tlsHosts,
          // SIGHUP is this command's (onHangup below), in every mode.
          signal: null,
          log: {
            info: (msg) => process.stderr.write(`scorecast: ${msg}\n`),
            warn: (msg) => process.stderr.write(`scorecast: warning: ${msg}\n`),
          },
        })
      : null;

  const scheme = https ? 'https' : 'http';
  const audience = audienceLines({ publicUrl: config.publicUrl, scheme, hosts, port });
  const { audienceUrl } = audience;
  const lines = [
    '',
    `scorecast is playing "${score.model.title}"${config.autoplay ? ' (autoplay, looping)' : resumedAs(conductor.state)}`,
    `  score:     ${score.dir}${path.resolve(score.dir) === config.scoreDir ? '' : `  (the console's switch, resumed; --score was ${config.scoreDir})`}`,
    ...(cluster && config.cluster
      ? [
          `  cluster:   node ${cluster.node}, role ${config.cluster.role}, Redis ${redactUrl(config.cluster.url)} (the performance is saved there)`,
        ]
      : saveLines(config.stateFile, resume)),
    ...audience.lines,
    ...(tlsPair
      ? [
          `  https:     certificate valid to ${tlsPair.validTo.toISOString().slice(0, 10)}; SIGHUP or replacing the files takes up a renewed one`,
        ]
      : []),
    ...(httpPort !== null
      ? [`  http:      port ${httpPort} redirects to ${audienceUrl} (the phones' connectivity checks too)`]
      : []),
    ...(config.osc
      ? [
          `  osc:       ${config.osc.host}:${config.osc.port} (${score.model.osc.length} OSC cues of the score, sent on their beats)`,
        ]
      : []),
    `  conductor token: ${config.token}${config.tokenGenerated ? '  (generated; set SCORECAST_TOKEN to choose one)' : ''}`,
    `  control:   curl -X POST -H 'Authorization: Bearer <token>' ${scheme}://localhost:${port}/api/control/play`,
    '',
  ];
  // The banner and the QR code are for the person at the terminal: on stderr, so that stdout
  // carries the JSON log lines alone (a log shipper or `jq` reads them without the banner).
  process.stderr.write(lines.join('\n'));
  const fdWarning = openFilesWarning(openFilesLimit());
  if (fdWarning) process.stderr.write(`scorecast: ${fdWarning}\n`);
  const qr = qrType({ isTTY: process.stderr.isTTY === true, env: process.env });
  if (qr) {
    const { default: QRCode } = await import('qrcode');
    process.stderr.write(
      `${await QRCode.toString(audienceUrl, qr === 'terminal' ? { type: 'terminal', small: true } : { type: 'utf8' })}\n`,
    );
  }

  onHangup = () => {
    if (closing) return;
    if (!tlsWatch) {
      process.stderr.write(
        'scorecast: SIGHUP: nothing to reload (no --cert: plain HTTP); still playing. The score is read again with --watch or POST /api/reload\n',
      );
      return;
    }
    const before = tlsWatch.current().fingerprint;
    process.stderr.write('scorecast: SIGHUP: reading the certificate and key again\n');
    const read = tlsWatch.reload();
    if (read.ok && tlsWatch.current().fingerprint === before)
      process.stderr.write(`scorecast: certificate unchanged: ${before}\n`);
  };

  let closing = false;
  /** @param {string} signal */
  const shutdown = async (signal) => {
    if (closing) process.exit(1);
    closing = true;
    tlsWatch?.close();
    app.log.info({ signal }, 'shutting down');
    // Clients get a 1001 close; a peer that never answers must not hold the process.
    setTimeout(() => process.exit(0), 5000).unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  if (process.send) {
    // Started by a harness (tests, QA, benchmarks) over IPC: when it goes, so do we, whether it
    // stopped us or died (no orphan server left playing).
    process.on('disconnect', () => shutdown('disconnect'));
    process.send({ type: 'listening', port, token: config.token, url: audienceUrl, httpPort });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
