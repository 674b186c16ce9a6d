// Device credentials and taps (votes) over HTTP. `POST /api/device` issues a phone its signed
// credential; `POST /api/tap` is for clients on SSE or polling, which cannot send on their
// stream, and for any page that prefers one path: the same decoder, the same vote guard and the
// same errors as a WebSocket tap.

import fp from 'fastify-plugin';
import { decodeClientMessage } from '../../core/protocol.js';
import { audienceRate, createAddressLimiter, refuseOverRate } from '../http/address-limit.js';
import { ERRORS, ScorecastError, errorValue } from '../../core/errors.js';
import { addressKey } from '../http/address-key.js';

/** Credentials one address may be issued: `perAddress` at once, and `perAddress` more an hour. */
export const DEVICE_REFILL_MS = 3_600_000;

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{
 *   guard: import('./vote-guard.js').VoteGuard,
 *   credentials: import('./device-credential.js').DeviceCredentials,
 *   devicesPerAddress: number,
 *   now: () => number,
 *   clients?: import('../http/client-address.js').ClientAddress,
 * }} options  devicesPerAddress: the phones one address may stand for (0: no limit); it sets the
 *   credentials issued per hour and the address's request rate (audienceRate); clients: which
 *   peers are trusted proxies (default: none)
 */
async function routes(app, { guard, credentials, devicesPerAddress, now, clients }) {
  const rate = audienceRate(devicesPerAddress);
  const limiter = rate ? createAddressLimiter(rate, now) : null;
  const issued =
    devicesPerAddress > 0
      ? createAddressLimiter(
          { perSecond: devicesPerAddress / (DEVICE_REFILL_MS / 1000), burst: devicesPerAddress },
          now,
        )
      : null;

  app.post('/api/device', { bodyLimit: 1024, onRequest: refuseOverRate(limiter) }, async (req, reply) => {
    if (issued && !issued.take(req.ip))
      throw new ScorecastError(
        'SC_ERR_ADDRESS_LIMIT',
        `${devicesPerAddress} device credentials an hour from this address`,
      );
    reply.header('cache-control', 'no-store');
    return { device: credentials.issue().credential };
  });

  app.post('/api/tap', { bodyLimit: 4096, onRequest: refuseOverRate(limiter) }, async (req, reply) => {
    const decoded = decodeClientMessage(JSON.stringify({ .../** @type {object} */ (req.body ?? {}), type: 'tap' }));
    if (!decoded.ok) return reply.code(400).send(decoded.error);
    if (decoded.value.type !== 'tap') return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE'));
    // The connection is the TCP socket: keep-alive requests on it are one connection. A trusted
    // proxy's socket is not one phone's (nginx pools its sockets to the edges between clients:
    // 60 phones voting over HTTP got 2 votes counted), so through it the connection is the
    // client and its device: one vote per window each, within the client's votes per address.
    const socket = req.raw.socket;
    const connection = clients?.isProxy(socket.remoteAddress)
      ? `${addressKey(req.ip)} ${String(decoded.value.device)}`
      : socket;
    const result = await guard.cast(decoded.value, { address: req.ip, connection });
    if (!result.ok) return reply.code(ERRORS[result.error.code]?.status ?? 400).send(result.error);
    // `tile` is the device's vote now: null when this tap took it back.
    return {
      type: 'voted',
      window: result.id,
      tile: result.tile !== undefined ? result.tile : String(decoded.value.tile),
    };
  });
}

/** The routes as a Fastify plugin: `await app.register(tapRoutes, options)`. */
export const tapRoutes = fp(routes, { name: 'tap-routes', fastify: '5.x' });
