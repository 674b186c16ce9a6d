// The benches' command lines: node:util's parseArgs, with `--help` (-h) printing the bench's own
// opening comment, which says what it measures and lists its options, and an option it does not
// know (or a value of the wrong kind) refused in one line with exit code 2, not a stack trace.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The comment a file opens with (after a `#!` line), without its `//` marks.
 * @param {string} file
 */
export function headerOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (let i = lines[0]?.startsWith('#!') ? 1 : 0; i < lines.length && lines[i].startsWith('//'); i++)
    out.push(lines[i].replace(/^\/\/ ?/, ''));
  return `${out.join('\n')}\n`;
}

/**
 * parseArgs for a bench run from the command line. A bench that declares its own `help` option
 * prints its own text.
 * @template {import('node:util').ParseArgsConfig} T
 * @param {string} moduleUrl  the bench's `import.meta.url`
 * @param {T} config  as for parseArgs
 * @returns {ReturnType<typeof parseArgs<T>>}
 */
export function benchArgs(moduleUrl, config) {
  const file = fileURLToPath(moduleUrl);
  const argv = config.args ?? process.argv.slice(2);
  if (!config.options?.help && argv.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(headerOf(file));
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    const code = /** @type {{ code?: unknown }} */ (err).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw err;
    process.stderr.write(
      `bench/${path.basename(file)}: ${/** @type {Error} */ (err).message} (--help lists the options)\n`,
    );
    process.exit(2);
  }
}
