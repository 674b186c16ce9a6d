// Paths, the environment load tests run in, and install-on-demand of the pinned Artillery.

import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const QA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(QA_DIR, '..');
export const OUT_DIR = path.join(QA_DIR, 'out');
export const SCENARIO_DIR = path.join(QA_DIR, 'scenarios');
export const ARTILLERY_BIN = path.join(QA_DIR, 'node_modules', 'artillery', 'bin', 'run');

const PINNED = JSON.parse(readFileSync(path.join(QA_DIR, 'package.json'), 'utf8')).dependencies.artillery;

/** The version of Artillery installed under artillery/node_modules, or null. */
export function installedArtillery() {
  const file = path.join(QA_DIR, 'node_modules', 'artillery', 'package.json');
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * Environment for Artillery and the server: no telemetry, no browser download, and no proxy
 * (a proxy variable would send load-test traffic through another host).
 */
export function childEnv(extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(https?|all|no)_proxy$/i.test(k)) delete env[k];
  }
  return {
    ...env,
    ARTILLERY_DISABLE_TELEMETRY: 'true',
    DO_NOT_TRACK: '1',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    NO_UPDATE_NOTIFIER: '1',
    ...extra,
  };
}

/** `npm ci` in artillery/ (qa:setup). */
export function setup({ log = console.log } = {}) {
  log(
    `qa setup: npm ci in ${QA_DIR} (artillery ${PINNED}, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1, ARTILLERY_DISABLE_TELEMETRY=true)`,
  );
  const t0 = Date.now();
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: QA_DIR,
    stdio: 'inherit',
    env: childEnv(),
  });
  if (r.status !== 0) throw new Error(`npm ci in ${QA_DIR} failed (exit ${r.status})`);
  log(`qa setup: installed artillery ${installedArtillery()} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Install the pinned Artillery when it is missing or another version; say what was done. */
export function ensureInstalled({ log = console.log } = {}) {
  const have = installedArtillery();
  if (have === PINNED) return { installed: false, version: have };
  log(
    have
      ? `qa: artillery ${have} found, ${PINNED} pinned: reinstalling`
      : `qa: artillery is not installed in ${QA_DIR}: installing it now (same as npm run qa:setup)`,
  );
  setup({ log });
  return { installed: true, version: installedArtillery() };
}

/**
 * The commit of a git checkout (and whether its tree has changes), for the record.
 * @param {string} dir
 */
export function gitDescribe(dir) {
  const rev = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  if (rev.status !== 0) {
    const marker = path.join(dir, '.qa-source');
    return existsSync(marker) ? readFileSync(marker, 'utf8').trim() : 'unknown (not a git checkout)';
  }
  const dirty = spawnSync(
    'git',
    ['status', '--porcelain', '--untracked-files=no', '--', 'server', 'core', 'client', 'scores'],
    { cwd: dir, encoding: 'utf8' },
  );
  return `${rev.stdout.trim()}${dirty.stdout.trim() ? ' (with uncommitted changes in server/core/client/scores)' : ''}`;
}

/**
 * A loopback host: 127.0.0.0/8, ::1, localhost.
 * @param {string} host
 */
export function isLoopbackHost(host) {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
}

/** @param {number} ms @returns {Promise<void>} */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
