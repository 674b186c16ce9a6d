// `scorecast preview DIR`: a composer's server for one score package. It watches the package,
// waits for play, listens on loopback unless told otherwise, and opens the preview page with the
// token in the URL fragment (a fragment is never sent to the server nor logged). Startup itself
// is start.js's, with the flags this command chooses.

import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readConfig } from './config.js';
import { freePort } from '../lib/ports.js';

export const PREVIEW_USAGE = `usage: scorecast preview DIR [--port N] [--host H] [--no-open] [--token T] [--log-level L] [--cert FILE --key FILE]
  DIR        the score package to preview (reloaded whenever one of its files changes)
  --port     default PORT or 8080; 0 picks a free port
  --host     default 127.0.0.1 (this machine only); 0.0.0.0 lets phones on the network join
  --no-open  print the preview URL without opening a browser
  -h, --help this text
`;

/**
 * @typedef {object} PreviewPlan
 * @property {string[]} startArgs  for start.js's main()
 * @property {Record<string, string | undefined>} env  environment for it (undefined: unset)
 * @property {import('./config.js').Config} config  what start.js will read from them
 * @property {boolean} open  try to open a browser
 */

/**
 * Work out how to start the preview, without starting anything.
 * @param {string[]} argv  the arguments after `preview`
 * @param {Record<string, string | undefined>} env
 * @param {NodeJS.Platform} [platform]
 * @returns {{ ok: true, value: PreviewPlan } | { ok: false, message: string }}
 */
export function planPreview(argv, env, platform = process.platform) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        'log-level': { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        'no-open': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return { ok: false, message: /** @type {Error} */ (err).message };
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    return {
      ok: false,
      message:
        positionals.length === 0
          ? 'which score package? give its folder'
          : `one score package at a time, got ${positionals.join(', ')}`,
    };
  const loopback = values.host === undefined;
  const dir = path.resolve(positionals[0]);
  // A preview starts where the composer says, never by resuming a saved performance (which could
  // be playing), and keeps its own save apart from the performances' (in .cache/).
  // `--name=value`, never `--name value`: a value that starts with "-" (a folder, or a random
  // token: base64url has "-") would otherwise be read as a flag.
  const startArgs = [
    `--score=${dir}`,
    '--watch',
    '--no-resume',
    `--state-file=${previewStateFile(dir)}`,
    `--host=${values.host ?? '127.0.0.1'}`,
  ];
  for (const name of /** @type {const} */ (['port', 'log-level', 'cert', 'key'])) {
    if (values[name] !== undefined) startArgs.push(`--${name}=${values[name]}`);
  }
  // The token goes by flag so that the printed URL and the server agree: the given one, or one
  // made here.
  startArgs.push(`--token=${values.token ?? env.SCORECAST_TOKEN ?? randomBytes(18).toString('base64url')}`);
  const startEnv = {
    ...env,
    // A preview waits for the composer's play, whatever the environment asks of performances.
    SCORECAST_AUTOPLAY: undefined,
    // A QR code of a loopback address helps no phone.
    SCORECAST_QR: loopback ? '0' : env.SCORECAST_QR,
  };
  let config;
  try {
    config = readConfig(startArgs, startEnv);
  } catch (err) {
    return { ok: false, message: /** @type {Error} */ (err).message };
  }
  // Where no browser can be shown (CI, a Linux box without a display), do not try.
  const canShow = !env.CI && (platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY));
  return { ok: true, value: { startArgs, env: startEnv, config, open: !values['no-open'] && canShow } };
}

/**
 * Where the preview of the package in `dir` saves its performance (the server saves every
 * performance; a preview's is of no use to a venue's server).
 * @param {string} dir
 */
export function previewStateFile(dir) {
  return path.join(
    os.tmpdir(),
    `scorecast-preview-${createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 16)}.json`,
  );
}

/**
 * The URL this machine's browser opens.
 * @param {import('./config.js').Config} config
 * @param {number} port  the port listened on
 */
export function previewUrl(config, port) {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host}:${port}/preview#token=${encodeURIComponent(config.token)}`;
}

/**
 * The command that opens a URL in the desktop's browser.
 * @param {NodeJS.Platform} platform
 * @param {string} url
 * @returns {{ command: string, args: string[], verbatim?: boolean }}
 */
export function openCommand(platform, url) {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start` takes a first quoted argument as the window title; `&` would end cmd's command.
  if (platform === 'win32')
    return { command: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')], verbatim: true };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Start the preview server and open its page. Resolves once it listens; the server runs until
 * the process is stopped.
 * @param {string[]} argv  the arguments after `preview`
 * @returns {Promise<number | null>} an exit code when it could not start, else null
 */
export async function runPreview(argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(PREVIEW_USAGE);
    return 0;
  }
  const plan = planPreview(argv, process.env);
  if (!plan.ok) {
    process.stderr.write(`scorecast preview: ${plan.message}\n${PREVIEW_USAGE}`);
    return 2;
  }
  const { config, env } = plan.value;
  let { startArgs } = plan.value;
  let port = config.port;
  if (port === 0) {
    port = await freePort(config.host);
    startArgs = [...startArgs, '--port', String(port)];
  }
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const { main } = await import('./start.js');
  try {
    await main(startArgs);
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    const why =
      e.code === 'EADDRINUSE' ? `port ${port} is in use (another scorecast?): choose another with --port` : e.message;
    process.stderr.write(`scorecast preview: cannot listen on ${config.host}:${port}: ${why}\n`);
    process.exit(1);
  }
  const url = previewUrl(config, port);
  process.stdout.write(`  preview:   ${url}\n\n`);
  if (plan.value.open) openBrowser(url);
  return null;
}

/**
 * Best effort: a browser that does not open leaves the printed URL.
 * @param {string} url
 */
function openBrowser(url) {
  const { command, args, verbatim } = openCommand(process.platform, url);
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: verbatim });
    child.on('error', () => {
      /* no opener here: the URL is printed */
    });
    child.unref();
  } catch {
    /* likewise */
  }
}
