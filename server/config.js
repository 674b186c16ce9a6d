// Configuration from the environment and matching command-line flags (flags win).

import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PHONES_PER_ADDRESS } from './address-limit.js';
import { CONNECTIONS_PER_ADDRESS } from './connection-limit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
 * @property {string | null} stateFile  where the performance is saved as it changes (null: not
 *   saved; the autoplay demo starts from the top anyway, and must not overwrite a real save)
 * @property {boolean} resume  take up the saved performance at start
 * @property {number} phonesPerAddress  phones one address may stand for (credentials an hour,
 *   votes per window, polling and reporting clients); 0: no limit. doc/security.md
 * @property {number} connectionsPerAddress  connections one address may hold open; 0: no limit
 */

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
      'phones-per-address': { type: 'string' },
      'connections-per-address': { type: 'string' },
    },
    strict: true,
  });
  const portText = values.port ?? env.PORT ?? '8080';
  const port = Number(portText);
  if (!(Number.isInteger(port) && port >= 0 && port < 65536)) throw new Error(`PORT/--port must be 0..65535, got "${portText}"`);
  const given = values.token ?? env.SCORECAST_TOKEN;
  if (given !== undefined && given.length < 8) throw new Error('SCORECAST_TOKEN/--token must be at least 8 characters');
  const autoplay = values.autoplay ?? env.SCORECAST_AUTOPLAY === '1';
  const cert = values.cert ?? env.SCORECAST_CERT;
  const key = values.key ?? env.SCORECAST_KEY;
  if ((cert === undefined) !== (key === undefined)) throw new Error('HTTPS needs both a certificate and its key: --cert FILE --key FILE (or SCORECAST_CERT and SCORECAST_KEY)');
  /** @param {string} flag @param {string | undefined} text @param {number} fallback */
  const count = (flag, text, fallback) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!(/^\d{1,9}$/.test(text) && Number.isSafeInteger(n))) throw new Error(`${flag} must be a whole number >= 0 (0: no limit), got "${text}"`);
    return n;
  };
  return {
    port,
    host: values.host ?? env.HOST ?? '0.0.0.0',
    scoreDir: path.resolve(values.score ?? env.SCORECAST_SCORE ?? path.join(ROOT, 'scores', 'demo')),
    token: given ?? randomBytes(18).toString('base64url'),
    tokenGenerated: given === undefined,
    autoplay,
    loop: values.loop ?? autoplay,
    watch: values.watch ?? env.SCORECAST_WATCH === '1',
    logLevel: values['log-level'] ?? env.LOG_LEVEL ?? 'info',
    tls: cert !== undefined && key !== undefined ? { cert: path.resolve(cert), key: path.resolve(key) } : null,
    stateFile: autoplay ? null : path.resolve(values['state-file'] ?? env.SCORECAST_STATE_FILE ?? path.join(ROOT, '.cache', 'performance.json')),
    resume: !(values['no-resume'] ?? env.SCORECAST_RESUME === '0'),
    phonesPerAddress: count('SCORECAST_PHONES_PER_ADDRESS/--phones-per-address', values['phones-per-address'] ?? env.SCORECAST_PHONES_PER_ADDRESS, PHONES_PER_ADDRESS),
    connectionsPerAddress: count('SCORECAST_CONNECTIONS_PER_ADDRESS/--connections-per-address', values['connections-per-address'] ?? env.SCORECAST_CONNECTIONS_PER_ADDRESS, CONNECTIONS_PER_ADDRESS),
  };
}
