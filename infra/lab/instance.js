// Which copy of the venue lab a process works on. Namespace names are global to the machine, so
// two runs that share them break each other (one's teardown removes the other's hosts). Each copy
// of the lab has an id: its namespaces are scl-<id>-srv, scl-<id>-rtr, ... (scl-srv, ... for the
// default copy, id ''), and its state (toxiproxy's pid, the profile, the lock) lives in a folder of
// its own outside the worktree, so that every checkout of scorecast on the machine sees the same.
// Addresses and ports are per namespace: copies never collide on them.
//
//   SCORECAST_LAB_ID=ab12 npm run lab -- ...   a run in its own copy, beside any other

import os from 'node:os';
import path from 'node:path';

/** The environment variable that names the lab copy. */
export const LAB_ID_ENV = 'SCORECAST_LAB_ID';

/** Every namespace of every copy starts with this. */
export const NS_PREFIX = 'scl-';

/** The roles of the lab's hosts, and the suffix of each one's namespace name. */
export const ROLES = Object.freeze({ server: 'srv', router: 'rtr', wired: 'wired', ap: 'ap', wifi: 'wifi' });

/** Ids: lower-case letters and digits, 1-12 of them (namespace names stay short and shell-safe). */
const ID = /^[a-z0-9]{1,12}$/;

/**
 * The lab id from the environment: '' (the default copy) when unset or empty.
 * @param {Record<string, string | undefined>} [env]
 * @returns {string}
 */
export function labIdFrom(env = process.env) {
  const id = env[LAB_ID_ENV] ?? '';
  if (id !== '' && !ID.test(id))
    throw new Error(`${LAB_ID_ENV}="${id}": use 1 to 12 lower-case letters and digits (or leave it unset)`);
  return id;
}

/**
 * The namespace names of a lab copy.
 * @param {string} id '' for the default copy
 * @returns {Readonly<{ server: string, router: string, wired: string, ap: string, wifi: string }>}
 */
export function namespacesFor(id) {
  const base = id ? `${NS_PREFIX}${id}-` : NS_PREFIX;
  return Object.freeze({
    server: `${base}${ROLES.server}`,
    router: `${base}${ROLES.router}`,
    wired: `${base}${ROLES.wired}`,
    ap: `${base}${ROLES.ap}`,
    wifi: `${base}${ROLES.wifi}`,
  });
}

/**
 * The lab id a namespace name belongs to ('' for the default copy), or null when it is not a
 * lab namespace.
 * @param {string} ns
 * @returns {string | null}
 */
export function idOfNamespace(ns) {
  for (const suffix of Object.values(ROLES)) {
    if (ns === `${NS_PREFIX}${suffix}`) return '';
    const m = new RegExp(`^${NS_PREFIX}([a-z0-9]{1,12})-${suffix}$`).exec(ns);
    if (m) return m[1];
  }
  return null;
}

/**
 * The folder of a lab copy's state, shared by every checkout on this machine.
 * @param {string} id
 * @param {string} [tmp] default os.tmpdir()
 */
export function stateDirFor(id, tmp = os.tmpdir()) {
  return path.join(tmp, 'scorecast-lab', id || 'default');
}

/**
 * An id for a test run's own copy, from its process id: "vt" and the pid in base 36. A copy whose
 * owner died is found and removed by the next test run (`testOwner`); do not give a copy of your
 * own an id that starts with "vt".
 * @param {number} [pid]
 */
export function testLabId(pid = process.pid) {
  return `vt${pid.toString(36)}`;
}

/**
 * The process that owns a test copy (`testLabId`), or null for any other id.
 * @param {string} id
 * @returns {number | null}
 */
export function testOwner(id) {
  const m = /^vt([a-z0-9]+)$/.exec(id);
  if (!m) return null;
  const pid = Number.parseInt(m[1], 36);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Whether a process runs (a pid that signal 0 reaches).
 * @param {number} pid
 */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * How a test names the namespaces it makes: `<prefix><its pid in base 36>-<suffix>`. Reads a name's
 * run id and owner, or null for a name that is not one of these.
 * @param {string} prefix
 * @param {string[]} suffixes
 * @returns {(ns: string) => { id: string, pid: number } | null}
 */
export function ownerInName(prefix, suffixes) {
  const re = new RegExp(`^${prefix}([0-9a-z]+)-(?:${suffixes.join('|')})$`);
  return (ns) => {
    const m = re.exec(ns);
    return m ? { id: m[1], pid: Number.parseInt(m[1], 36) } : null;
  };
}

/**
 * How a lab copy's namespaces name their run: the copy's id, read by `idOf` (null: not the lab's),
 * and its owner by `testOwner` (null: a copy of no test run, never pruned).
 * @param {(ns: string) => string | null} idOf
 * @returns {(ns: string) => { id: string, pid: number | null } | null}
 */
export function testCopyIn(idOf) {
  return (ns) => {
    const id = idOf(ns);
    return id === null ? null : { id, pid: testOwner(id) };
  };
}

/**
 * The runs whose namespaces outlive them (killed before their teardown), each with its namespaces,
 * for the caller to remove: prune by pid. A name's run and owner come from `ownerOf` (null: not a
 * run's); a run is ended when its owner no longer runs, and with `mine` this process's runs count
 * as ended too (a run that prunes its own before making them afresh).
 * @param {Iterable<string>} names namespace names, as `ip netns list` gives them
 * @param {(ns: string) => { id: string, pid: number | null } | null} ownerOf
 * @param {{ mine?: boolean }} [o]
 * @returns {Map<string, string[]>} run id -> its namespaces
 */
export function endedRuns(names, ownerOf, { mine = false } = {}) {
  /** @type {Map<string, string[]>} */
  const runs = new Map();
  for (const ns of names) {
    const run = ownerOf(ns);
    if (run === null || run.pid === null) continue;
    const ended = run.pid === process.pid ? mine : !alive(run.pid);
    if (ended) runs.set(run.id, [...(runs.get(run.id) ?? []), ns]);
  }
  return runs;
}
