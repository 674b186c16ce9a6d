// A Redis for the cluster roster's unit tests (server/cluster/cluster-roster.js), in memory.

/** A Redis that holds hashes and passes messages to every listener (as SUBSCRIBE does). */
export function fakeRedis() {
  /** @type {Map<string, Map<string, string>>} */
  const hashes = new Map();
  /** @type {Set<(text: string) => void>} */
  const listeners = new Set();
  /** @type {string[]} */
  const published = [];
  const hash = (/** @type {string} */ key) => {
    if (!hashes.has(key)) hashes.set(key, new Map());
    return /** @type {Map<string, string>} */ (hashes.get(key));
  };
  return {
    published,
    hashes,
    listen: async (/** @type {(text: string) => void} */ fn) => {
      listeners.add(fn);
    },
    store: {
      hset: async (/** @type {string} */ key, /** @type {string} */ field, /** @type {string} */ value) => {
        hash(key).set(field, value);
        return 1;
      },
      hgetall: async (/** @type {string} */ key) => Object.fromEntries(hash(key)),
      hmget: async (/** @type {string} */ key, /** @type {string[]} */ ...fields) =>
        fields.map((f) => hash(key).get(f) ?? null),
      hdel: async (/** @type {string} */ key, /** @type {string[]} */ ...fields) => {
        for (const f of fields) hash(key).delete(f);
        return fields.length;
      },
      publish: async (/** @type {string} */ _channel, /** @type {string} */ text) => {
        published.push(text);
        for (const fn of listeners) setImmediate(() => fn(text));
        return listeners.size;
      },
    },
  };
}
