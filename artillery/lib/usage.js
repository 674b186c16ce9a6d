// A command's usage is the opening comment of its own source: printed from there, it cannot drift
// from what the file says it does.

import { readFileSync } from 'node:fs';

/**
 * Lines `from` to `to` (`to` excluded, counting from 0) of a module's source, without their `//`.
 * @param {string | URL} moduleUrl  the command's import.meta.url
 * @param {number} to
 * @param {number} [from]  default 1 (after the first line)
 */
export function usageOf(moduleUrl, to, from = 1) {
  return readFileSync(new URL(moduleUrl), 'utf8')
    .split('\n')
    .slice(from, to)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n');
}
