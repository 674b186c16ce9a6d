// The conductor lease: one key in Redis naming the active conductor, with a time to live its
// holder renews. When the holder dies, the key expires and a standby takes it (and the
// performance, from the record the holder saved with every change). The bus fences publishes by
// the same key, so a holder that stalled past its lease cannot publish over its successor.

/**
 * Renew if held by this node; take it again if it vanished (Redis restarted empty: the holder
 * keeps conducting). KEYS: lease. ARGV: node, ttl. Returns 1 while held, 0 when another holds it.
 */
const RENEW_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if holder ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * @typedef {object} LeaseOptions
 * @property {import('./redis.js').RedisConnection} redis
 * @property {string} key
 * @property {string} node
 * @property {number} [ttlMs]    the lease lapses this long after its holder's last renewal
 * @property {number} [everyMs]  how often the holder renews and a standby tries to take it
 * @property {() => Promise<boolean>} onGain  this node holds the lease now; false declines it
 * @property {() => void} onLose  another node holds it now
 * @property {{ warn: (o: object, msg: string) => void }} [log]
 */

/**
 * @param {LeaseOptions} options
 */
export function createLease({
  redis,
  key,
  node,
  ttlMs = 1000,
  everyMs = 200,
  onGain,
  onLose,
  log = { warn: () => {} },
}) {
  let held = false;
  let busy = false;
  let stopped = false;
  /** A declined lease is left alone this long (ms since the epoch), for its old holder. */
  let holdOffUntil = 0;

  async function tick() {
    if (busy || stopped) return;
    busy = true;
    try {
      if (held) {
        if ((await redis.eval(RENEW_SCRIPT, 1, key, node, ttlMs)) !== 1) {
          held = false;
          onLose();
        }
      } else if (Date.now() >= holdOffUntil && (await redis.set(key, node, 'PX', ttlMs, 'NX')) === 'OK') {
        held = true;
        const taken = await onGain().catch((err) => {
          log.warn({ err: err.message }, 'conductor lease: taking over failed');
          return false;
        });
        if (!taken) {
          held = false;
          holdOffUntil = Date.now() + ttlMs;
          await redis.eval(RELEASE_SCRIPT, 1, key, node);
        }
      }
    } catch (err) {
      if (!stopped) log.warn({ err: /** @type {Error} */ (err).message }, 'conductor lease: Redis did not answer');
    } finally {
      busy = false;
    }
  }

  const timer = setInterval(tick, everyMs);
  void tick();

  return {
    get held() {
      return held;
    },
    /** The bus found another node holding the lease. */
    lost() {
      if (held) {
        held = false;
        onLose();
      }
    },
    /** Stop renewing and give the lease up at once (a standby takes over at its next try). */
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (held) {
        held = false;
        await redis.eval(RELEASE_SCRIPT, 1, key, node).catch(() => {});
      }
    },
  };
}
