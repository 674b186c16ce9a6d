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

/** @returns {Promise<SoundCard>} */
export async function startSoundCard() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-pulse-'));
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
      `--load=module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
      '--load=module-null-sink sink_name=phone',
    ],
    { env },
  );
  const stop = async () => {
    await pulse.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const clientEnv = { PULSE_SERVER: `unix:${socket}` };
  const until = Date.now() + START_TIMEOUT_MS;
  while (!existsSync(socket)) {
    if (Date.now() > until || pulse.child.exitCode !== null) {
      await stop();
      throw new Error(`PulseAudio did not start within ${START_TIMEOUT_MS} ms:\n${pulse.output()}`);
    }
    await sleep(50);
  }
  return {
    env: clientEnv,
    async streams() {
      const { stdout } = await run('pactl', ['list', 'short', 'sink-inputs'], {
        env: { ...env, ...clientEnv },
        timeout: 5000,
      });
      return stdout.split('\n').filter((line) => line.trim() !== '').length;
    },
    stop,
  };
}
