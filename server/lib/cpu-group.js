// This process's cgroup of the CPU controller, and a child group in it that the kernel treats as
// idle (`cpu.idle` 1). Used by spawn-apart.js (the PDF tools' group) and by the test runner
// (test/setup/side-by-side.js, its group of low weight).
//
// Where the group is: the line of /proc/self/cgroup for the controller (cgroup v1: the line whose
// second field lists `cpu`; cgroup v2: the `0::` line), joined to where that hierarchy is mounted
// (/proc/self/mountinfo: the mount point, less the mount's own root, which a container's
// namespace may make other than `/`). A v2 hierarchy counts only where its root lists `cpu` in
// cgroup.controllers. When both are there, v1 is used: the v1 controller is where the kernel
// applies cpu settings on such a host.

import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * @typedef {{ dir: string, version: 1 | 2 }} CpuGroup  a cgroup's folder in the mounted
 *   hierarchy, and the hierarchy's version
 */

/**
 * A mountinfo field's text: the kernel writes space, tab, newline and backslash as octal escapes.
 * @param {string} s
 */
const unoctal = (s) => s.replace(/\\([0-7]{3})/g, (_m, o) => String.fromCharCode(Number.parseInt(o, 8)));

/**
 * The folder of a cgroup at `cgPath` in a hierarchy mounted at `mountPoint` whose mount root is
 * `root`, or null when the group is outside what is mounted.
 * @param {string} mountPoint @param {string} root @param {string} cgPath
 */
function under(mountPoint, root, cgPath) {
  if (root === '/') return path.join(mountPoint, cgPath);
  if (cgPath === root) return mountPoint;
  if (cgPath.startsWith(`${root}/`)) return path.join(mountPoint, cgPath.slice(root.length));
  return null;
}

/**
 * The cgroup of the CPU controller that the process whose /proc files are given is in, or why
 * there is none to be found.
 * @param {{ cgroup?: string, mountinfo?: string }} [files]  default: /proc/self/cgroup and
 *   /proc/self/mountinfo
 * @returns {CpuGroup | { why: string }}
 */
export function ownCpuGroup({ cgroup = '/proc/self/cgroup', mountinfo = '/proc/self/mountinfo' } = {}) {
  let lines;
  let mounts;
  try {
    lines = readFileSync(cgroup, 'utf8').split('\n');
    mounts = readFileSync(mountinfo, 'utf8')
      .split('\n')
      .map((l) => {
        // id parent major:minor root mount-point options [optional fields] - type source super-options
        const [left, right] = l.split(' - ');
        if (!right) return null;
        const f = left.split(' ');
        const [type, , superOpts = ''] = right.split(' ');
        return { root: unoctal(f[3]), point: unoctal(f[4]), type, opts: superOpts.split(',') };
      })
      .filter((m) => m !== null);
  } catch (e) {
    return { why: `cannot read ${cgroup} or ${mountinfo} (${/** @type {NodeJS.ErrnoException} */ (e).code})` };
  }
  const v1 = lines.find((l) => /^\d+:/.test(l) && l.split(':')[1].split(',').includes('cpu'));
  if (v1) {
    const cgPath = v1.split(':').slice(2).join(':') || '/';
    const mount = mounts.find((m) => m.type === 'cgroup' && m.opts.includes('cpu'));
    if (!mount) return { why: 'the cgroup v1 cpu hierarchy is not mounted' };
    const dir = under(mount.point, mount.root, cgPath);
    return dir ? { dir, version: 1 } : { why: `the cpu group ${cgPath} is outside the mount at ${mount.point}` };
  }
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (!v2) return { why: 'no cgroup of the cpu controller' };
  const cgPath = v2.slice(3) || '/';
  for (const mount of mounts.filter((m) => m.type === 'cgroup2')) {
    let controllers = '';
    try {
      controllers = readFileSync(path.join(mount.point, 'cgroup.controllers'), 'utf8');
    } catch {
      continue;
    }
    if (!controllers.trim().split(' ').includes('cpu')) continue;
    const dir = under(mount.point, mount.root, cgPath);
    if (dir) return { dir, version: 2 };
  }
  return { why: 'no cgroup v1 cpu controller, and no cgroup v2 hierarchy with the cpu controller' };
}

/**
 * Make (or take, when it is there) the child group `name` of `parent` and write its settings:
 * each `[file, value]` of `settings` in turn. A group this call made is removed again when a
 * setting cannot be written.
 * @param {CpuGroup} parent
 * @param {string} name
 * @param {[string, string][]} settings
 * @returns {CpuGroup | { why: string }}
 */
export function makeChildGroup(parent, name, settings) {
  const dir = path.join(parent.dir, name);
  let made = false;
  try {
    if (parent.version === 2) enableCpu(parent.dir);
    mkdirSync(dir);
    made = true;
  } catch (e) {
    const code = /** @type {NodeJS.ErrnoException} */ (e).code;
    if (code !== 'EEXIST') return { why: `cannot make a cpu group at ${dir} (${code})` };
  }
  for (const [file, value] of settings) {
    try {
      writeFileSync(path.join(dir, file), value);
    } catch (e) {
      if (made) removeGroup(dir, 1);
      return { why: `cannot write ${file} in ${dir} (${/** @type {NodeJS.ErrnoException} */ (e).code})` };
    }
  }
  return { dir, version: parent.version };
}

/**
 * In cgroup v2, a group's children have the cpu controller only once the group lists it in its
 * cgroup.subtree_control; the kernel refuses that (EBUSY) while the group holds processes of its
 * own, unless it is the root ("no internal processes"). Throws when it cannot be done.
 * @param {string} dir
 */
function enableCpu(dir) {
  const control = path.join(dir, 'cgroup.subtree_control');
  if (readFileSync(control, 'utf8').trim().split(' ').includes('cpu')) return;
  writeFileSync(control, '+cpu');
}

/**
 * Remove a group, and the groups in it, once their processes have exited: up to `tries` times
 * 100 ms apart (a straggler keeps it until the next boot).
 * @param {string} dir
 * @param {number} [tries]
 */
export function removeGroup(dir, tries = 50) {
  for (let i = 0; i < tries; i++) {
    try {
      // A group's own files are never folders: its folders are the groups in it.
      for (const d of readdirSync(dir, { withFileTypes: true }))
        if (d.isDirectory()) removeGroup(path.join(dir, d.name), 1);
      rmdirSync(dir);
      return;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return;
      if (i + 1 < tries) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/** The name of the tools' group, made in the server's own cpu group. */
export const TOOLS_GROUP = 'scorecast-tools';

/** @type {Map<Function, CpuGroup | { inherited: string } | { why: string }>} */
const found = new Map();

/**
 * The idle group (`cpu.idle` 1) that spawn-apart.js moves its children into, found or made once
 * per process (per `own`), and remembered also when it cannot be made:
 * - when this process's own cpu group is idle already (the PDF helper, itself moved into the
 *   group), `{ inherited }`: its children are born in that group, nothing is to be moved;
 * - else the child group TOOLS_GROUP of this process's cpu group, shared by every scorecast
 *   process in that group, with `cpu.idle` 1: `{ dir, version }`;
 * - else `{ why }` (no cpu controller, no right to make the group, a kernel before 5.15 without
 *   `cpu.idle`, cgroup v2 with processes in the group).
 * @param {() => CpuGroup | { why: string }} [own]  this process's cpu group (tests give another)
 * @returns {CpuGroup | { inherited: string } | { why: string }}
 */
export function toolsGroup(own = ownCpuGroup) {
  let group = found.get(own);
  if (group) return group;
  const base = own();
  if ('why' in base) group = base;
  else if (isIdle(base.dir)) group = { inherited: base.dir };
  else group = makeChildGroup(base, TOOLS_GROUP, [['cpu.idle', '1']]);
  found.set(own, group);
  return group;
}

/**
 * Whether a group's cpu.idle reads 1 (false for the root group, which has none to read).
 * @param {string} dir
 */
function isIdle(dir) {
  try {
    return readFileSync(path.join(dir, 'cpu.idle'), 'utf8').trim() === '1';
  } catch {
    return false;
  }
}
