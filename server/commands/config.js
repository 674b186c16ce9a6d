// Configuration from the environment and matching command-line flags (flags win).

import { parseArgs } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PHONES_PER_ADDRESS } from '../http/address-limit.js';
import { CONNECTIONS_PER_ADDRESS } from '../http/connection-limit.js';
import { parseOscTarget } from '../performance/osc-target.js';
import { redactUrl } from '../cluster/redact-url.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What `scorecast start --help` (and `node server/commands/start.js --help`) prints. */
export const START_USAGE = `usage: scorecast [start] [options]   (or: node server/commands/start.js [options])

Serves a score package: audience page, views, console, live updates. Flags win over the
environment variable named after each.
  --score DIR        the score package (SCORECAST_SCORE; default scores/demo)
  --port N           PORT, default 8080; 0 picks a free port
  --host H           HOST, default 0.0.0.0 (all interfaces: phones reach it on the venue network)
  --token T          SCORECAST_TOKEN, the conductor token (at least 8 characters; generated and
                     printed when unset)
  --autoplay         SCORECAST_AUTOPLAY=1: play at once and loop (the demo); not saved
  --loop             loop at the end of the piece (default: with --autoplay)
  --watch            SCORECAST_WATCH=1: reload the package when one of its files changes
  --state-file PATH  SCORECAST_STATE_FILE, where the performance is saved (default: one file per
                     --score folder in .cache/); see README, "Resume after restart"
  --no-resume        SCORECAST_RESUME=0: start fresh instead of taking up the save
  --cert FILE --key FILE   SCORECAST_CERT and SCORECAST_KEY: serve HTTPS on --port (PEM; checked at
                     start; SIGHUP or replacing the files takes up a renewed certificate)
  --public-url URL   SCORECAST_PUBLIC_URL, the address phones open, e.g. https://score.example.org
                     (with :port when phones use another port than 443): the banner and QR code
                     give it, and the certificate must name its host (doc/venue-https.md)
  --http-port N      SCORECAST_HTTP_PORT, with --cert and an https --public-url: also answer plain
                     HTTP on port N, redirecting every request (the phones' connectivity checks
                     too) to --public-url
  --log-level L      LOG_LEVEL: fatal, error, warn, info (default), debug, trace, silent
  --phones-per-address N       SCORECAST_PHONES_PER_ADDRESS (default 32; 0: no limit): device
                     credentials, votes, polling and reporting clients one address stands for
  --connections-per-address N  SCORECAST_CONNECTIONS_PER_ADDRESS (default 512; 0: no limit)
  --redis URL        SCORECAST_REDIS, redis://[user[:password]@]host:port (rediss:// for TLS):
                     one node of a cluster sharing the performance through Redis (README,
                     "Several machines"); the performance is saved in Redis, not in a state file.
                     Give a password in SCORECAST_REDIS or a file, never on the command line
  --redis-password-file F  SCORECAST_REDIS_PASSWORD_FILE, the Redis user's password (first line)
  --redis-ca F       SCORECAST_REDIS_CA, the CA certificate (PEM) that signed Redis's, for rediss://
  --role R           SCORECAST_ROLE, with --redis: conductor (conducts, or stands by to take
                     over), edge (serves clients only) or both (default)
  --node-id ID       SCORECAST_NODE_ID, this node's name in GET /api/cluster (default host-pid)
  --trust-proxy A,B  SCORECAST_TRUST_PROXY, addresses (or CIDRs) of proxies such as nginx whose
                     X-Forwarded-For names the client (per-address limits apply per client)
  --osc HOST:PORT    SCORECAST_OSC: send the score's OSC cues (ZScore's max: lines) over UDP to
                     this receiver on their beats (default: off)
  -h, --help         this text
`;

/**
 * @typedef {object} Config
 * @property {number} port
 * @property {string} host
 * @property {string} scoreDir
 * @property {string} token
 * @property {boolean} tokenGenerated
 * @property {boolean} autoplay
 * @property {boolean} loop
 * @property {boolean} watch  reload the score package when its files change
 * @property {string} logLevel
 * @property {{ cert: string, key: string } | null} tls  certificate and key files: serve HTTPS
 * @property {string | null} publicUrl  the origin phones open (scheme, host, port when not the
 *   scheme's default; no trailing slash), e.g. https://score.example.org; null: the addresses
 * @property {number | null} httpPort  the plain-HTTP port that redirects to publicUrl
 * @property {string | null} stateFile  where the performance is saved as it changes (null: not
 *   saved; the autoplay demo starts from the top anyway, and must not overwrite a real save)
 * @property {boolean} resume  take up the saved performance at start
 * @property {boolean} help  print the usage and do nothing else
 * @property {{ host: string, port: number } | null} osc  where OSC cues go (--osc); null: nowhere
 * @property {number} phonesPerAddress  phones one address may stand for (credentials an hour,
 *   votes per window, polling and reporting clients); 0: no limit. doc/security.md
 * @property {number} connectionsPerAddress  connections one address may hold open; 0: no limit
 * @property {string[] | null} trustProxy  proxies whose X-Forwarded-For is believed
 * @property {{ url: string, role: 'conductor' | 'edge' | 'both', nodeId: string | null,
 *   passwordFile: string | null, ca: string | null } | null} cluster
 *   a node of a cluster (--redis); null: one process on its own
 */

/**
 * Where a server started with `--score scoreDir` saves its performance unless told otherwise:
 * one file per score folder, `.cache/performance-<folder name>-<hash of its path>.json`. Two
 * servers on two scores (two rooms, a rehearsal beside the concert) then never share a save, and
 * a restart with the same `--score` finds its own; the hash tells apart two folders of the same
 * name. Keyed by the folder named at start, not by the score playing: after the console switched
 * to another score, the restart with the same command finds the save that says so.
 * @param {string} scoreDir  resolved
 */
export function defaultStateFile(scoreDir) {
  const name =
    path
      .basename(scoreDir)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 64) || 'score';
  const hash = createHash('sha256').update(scoreDir).digest('hex').slice(0, 8);
  return path.join(ROOT, '.cache', `performance-${name}-${hash}.json`);
}

/**
 * The origin of `--public-url`: http(s), a host, an optional port; nothing else (a path, a query or
 * credentials would not survive the redirect's "same path" rule, and usually mean a typo).
 * @param {string | undefined} text
 * @returns {string | null}
 */
export function parsePublicUrl(text) {
  if (text === undefined) return null;
  const problem = `--public-url must be an address like https://score.example.org (optionally :port), got "${text}"`;
  /** @type {URL} */
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new Error(problem);
  }
  if (
    !['https:', 'http:'].includes(url.protocol) ||
    !url.hostname ||
    url.username ||
    url.password ||
    url.pathname !== '/' ||
    url.search ||
    url.hash
  )
    throw new Error(problem);
  return url.origin;
}

/**
 * @param {string[]} argv
 * @param {Record<string, string | undefined>} env
 * @returns {Config}
 */
export function readConfig(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      score: { type: 'string' },
      token: { type: 'string' },
      autoplay: { type: 'boolean' },
      loop: { type: 'boolean' },
      watch: { type: 'boolean' },
      'log-level': { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'state-file': { type: 'string' },
      'no-resume': { type: 'boolean' },
      redis: { type: 'string' },
      'redis-password-file': { type: 'string' },
      'redis-ca': { type: 'string' },
      role: { type: 'string' },
      'node-id': { type: 'string' },
      'trust-proxy': { type: 'string' },
      osc: { type: 'string' },
      'public-url': { type: 'string' },
      'http-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      'phones-per-address': { type: 'string' },
      'connections-per-address': { type: 'string' },
    },
    strict: true,
  });
  const portText = values.port ?? env.PORT ?? '8080';
  const port = Number(portText);
  if (!(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new Error(`PORT/--port must be 0..65535, got "${portText}"`);
  const given = values.token ?? env.SCORECAST_TOKEN;
  if (given !== undefined && given.length < 8) throw new Error('SCORECAST_TOKEN/--token must be at least 8 characters');
  const autoplay = values.autoplay ?? env.SCORECAST_AUTOPLAY === '1';
  const cert = values.cert ?? env.SCORECAST_CERT;
  const key = values.key ?? env.SCORECAST_KEY;
  if ((cert === undefined) !== (key === undefined))
    throw new Error(
      'HTTPS needs both a certificate and its key: --cert FILE --key FILE (or SCORECAST_CERT and SCORECAST_KEY)',
    );
  const publicUrl = parsePublicUrl(values['public-url'] ?? env.SCORECAST_PUBLIC_URL);
  if (publicUrl?.startsWith('http:') && cert !== undefined)
    throw new Error(`--public-url must be https:// when the server serves HTTPS (--cert), got "${publicUrl}"`);
  const httpPortText = values['http-port'] ?? env.SCORECAST_HTTP_PORT;
  const httpPort = httpPortText === undefined ? null : Number(httpPortText);
  if (httpPort !== null) {
    if (!(/^\d{1,5}$/.test(String(httpPortText)) && httpPort < 65536))
      throw new Error(`SCORECAST_HTTP_PORT/--http-port must be 0..65535, got "${httpPortText}"`);
    if (cert === undefined || !publicUrl?.startsWith('https:'))
      throw new Error(
        '--http-port redirects plain HTTP to HTTPS: it needs --cert FILE --key FILE and --public-url https://<venue name>',
      );
    if (httpPort !== 0 && httpPort === port) throw new Error(`--http-port and --port must differ, both are ${port}`);
  }
  const redis = values.redis ?? env.SCORECAST_REDIS;
  const role = values.role ?? env.SCORECAST_ROLE;
  if (role !== undefined && redis === undefined)
    throw new Error('--role needs --redis URL (SCORECAST_REDIS): roles are for a cluster');
  if (role !== undefined && !['conductor', 'edge', 'both'].includes(role))
    throw new Error(`--role must be conductor, edge or both, got "${role}"`);
  if (redis !== undefined && !/^rediss?:\/\/[^\s]+$/.test(redis))
    throw new Error(`--redis must be a URL like redis://127.0.0.1:6379, got "${redactUrl(redis)}"`);
  // A password on the command line is in every `ps` listing of the machine.
  if (values.redis !== undefined && /^rediss?:\/\/[^/@]*:[^/@]*@/.test(values.redis))
    throw new Error(
      '--redis must not carry a password: `ps` shows the command line to everyone on the machine; put the URL in SCORECAST_REDIS (an environment file) or the password in --redis-password-file',
    );
  const passwordFile = values['redis-password-file'] ?? env.SCORECAST_REDIS_PASSWORD_FILE;
  const ca = values['redis-ca'] ?? env.SCORECAST_REDIS_CA;
  if ((passwordFile !== undefined || ca !== undefined) && redis === undefined)
    throw new Error('--redis-password-file and --redis-ca need --redis URL (SCORECAST_REDIS)');
  const oscText = values.osc ?? env.SCORECAST_OSC;
  const scoreDir = path.resolve(values.score ?? env.SCORECAST_SCORE ?? path.join(ROOT, 'scores', 'demo'));
  /** @param {string} flag @param {string | undefined} text @param {number} fallback */
  const count = (flag, text, fallback) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!(/^\d{1,9}$/.test(text) && Number.isSafeInteger(n)))
      throw new Error(`${flag} must be a whole number >= 0 (0: no limit), got "${text}"`);
    return n;
  };
  return {
    port,
    host: values.host ?? env.HOST ?? '0.0.0.0',
    scoreDir,
    token: given ?? randomBytes(18).toString('base64url'),
    tokenGenerated: given === undefined,
    autoplay,
    loop: values.loop ?? autoplay,
    watch: values.watch ?? env.SCORECAST_WATCH === '1',
    logLevel: values['log-level'] ?? env.LOG_LEVEL ?? 'info',
    tls: cert !== undefined && key !== undefined ? { cert: path.resolve(cert), key: path.resolve(key) } : null,
    publicUrl,
    httpPort,
    stateFile:
      autoplay || redis !== undefined
        ? null
        : path.resolve(values['state-file'] ?? env.SCORECAST_STATE_FILE ?? defaultStateFile(scoreDir)),
    resume: !(values['no-resume'] ?? env.SCORECAST_RESUME === '0'),
    help: values.help ?? false,
    phonesPerAddress: count(
      'SCORECAST_PHONES_PER_ADDRESS/--phones-per-address',
      values['phones-per-address'] ?? env.SCORECAST_PHONES_PER_ADDRESS,
      PHONES_PER_ADDRESS,
    ),
    connectionsPerAddress: count(
      'SCORECAST_CONNECTIONS_PER_ADDRESS/--connections-per-address',
      values['connections-per-address'] ?? env.SCORECAST_CONNECTIONS_PER_ADDRESS,
      CONNECTIONS_PER_ADDRESS,
    ),
    trustProxy:
      (values['trust-proxy'] ?? env.SCORECAST_TRUST_PROXY)
        ?.split(',')
        .map((a) => a.trim())
        .filter(Boolean) ?? null,
    osc: oscText === undefined ? null : parseOscTarget(oscText),
    cluster:
      redis === undefined
        ? null
        : {
            url: redis,
            role: /** @type {'conductor' | 'edge' | 'both'} */ (role ?? 'both'),
            nodeId: values['node-id'] ?? env.SCORECAST_NODE_ID ?? null,
            passwordFile: passwordFile === undefined ? null : path.resolve(passwordFile),
            ca: ca === undefined ? null : path.resolve(ca),
          },
  };
}
