// A sound card for the browsers under test: a PulseAudio server of this run's own (its socket,
// configuration and state in a temporary folder) with one null sink. Without an output device
// Firefox's AudioContext never leaves 'suspended' (its resume() never settles), which is not what
// a phone does.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { start } from './processes.js';

const run = promisify(execFile);
/** PulseAudio listens within half a second here. */
const START_TIMEOUT_MS = 10_000;

/**
 * @typedef {object} SoundCard
 * @property {NodeJS.ProcessEnv} env  what a browser needs to play into it (PULSE_SERVER)
 * @property {() => Promise<number>} streams  how many streams play into it now
 * @property {() => Promise<void>} stop
 */

/**
 * A PulseAudio server of this run's own: its socket, configuration and state in a temporary
 * folder, the native protocol on that socket, and `modules` loaded after it (`--load=` values).
 * Resolves once it listens. Shared with the audio onset lab (infra/audio-lab/device.js).
 * @param {{ prefix: string, options?: string[], modules: string[] }} o
 *   prefix: the folder's name; options: more daemon options (e.g. real-time threads)
 */
export async function startPulseServer({ prefix, options = [], modules }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const socket = path.join(dir, 'native');
  const env = { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir, XDG_CONFIG_HOME: dir };
  const pulse = start(
    'pulseaudio',
    [
      '-n',
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--log-target=stderr',
      ...options,
      `--load=module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
      ...modules.map((m) => `--load=${m}`),
    ],
    { env },
  );
  const stop = async () => {
    await pulse.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + START_TIMEOUT_MS;
  while (!existsSync(socket)) {
    if (Date.now() > until || pulse.child.exitCode !== null) {
      await stop();
      throw new Error(`PulseAudio did not start within ${START_TIMEOUT_MS} ms:\n${pulse.output()}`);
    }
    await sleep(50);
  }
  /** What a client needs to reach it. */
  const clientEnv = { PULSE_SERVER: `unix:${socket}` };
  /** pactl against it. @param {string[]} args */
  const pactl = (args) => run('pactl', args, { env: { ...env, ...clientEnv }, timeout: 5000 });
  return { pulse, dir, env, clientEnv, pactl, stop };
}

/** @returns {Promise<SoundCard>} */
export async function startSoundCard() {
  const server = await startPulseServer({ prefix: 'scorecast-pulse-', modules: ['module-null-sink sink_name=phone'] });
  return {
    env: server.clientEnv,
    async streams() {
      const { stdout } = await server.pactl(['list', 'short', 'sink-inputs']);
      return stdout.split('\n').filter((line) => line.trim() !== '').length;
    },
    stop: server.stop,
  };
}
