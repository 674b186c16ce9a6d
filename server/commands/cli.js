#!/usr/bin/env -S node --max-semi-space-size=2
// `scorecast` command: start (default), preview <dir>, check <dir>, import-zscore <dir> <out>.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { main as start } from './start.js';
import { loadPackage } from '../package/load.js';
import { CACHE_DIR } from '../app.js';
import { checkReport, formatCheckReport, unplacedProblems } from './check-report.js';
import { SCHEMA_PATH } from '../package/manifest-schema.js';

/** This install's version, as package.json gives it. */
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const USAGE = `usage:
  scorecast [start] [--score DIR] [--port N] [--host H] [--autoplay] [--watch]   serve a score
  scorecast preview DIR [--port N] [--no-open]   preview a score package as you edit it
  scorecast check DIR [--json]              validate a score package (engraves it if needed); prints
                                            the bars performed, the length and every warning
  scorecast check --schema                  print the path of score.yaml's JSON Schema, for an editor
  scorecast import-zscore DIR OUT           convert a ZScore export into a score package
  scorecast plan --users N [--score DIR]    size a venue: bandwidth, access points, router, instances
  scorecast --version                       the version of scorecast
Every command answers --help (or -h) with its own options.
`;

const CHECK_USAGE = `usage: scorecast check DIR [--json]
       scorecast check --schema

Validates the score package in DIR (engraving its notation if needed, as the server would) and
prints the bars performed (as ranges), the length and every warning; exits 1 with every problem
(file, line, field, fix), one per line, when it is not valid.
  --json      the same report as JSON, for tools
  --schema    print the absolute path of the JSON Schema of score.yaml and exit: give it to an
              editor's YAML support (doc/score-format.md, "Editing score.yaml") for completion,
              hover help and checks as you type
  -h, --help  this text
`;

/**
 * Validate a package and print what is wrong, one problem per line; or what will be performed.
 * @param {string[]} args
 */
async function check(args) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        schema: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`scorecast check: ${/** @type {Error} */ (err).message}\n${CHECK_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(CHECK_USAGE);
    return 0;
  }
  // Printed, not opened: the path is what an editor's settings or a modeline need, and a script
  // can read the file from it (`code "$(npx scorecast check --schema)"`).
  if (values.schema) {
    process.stdout.write(`${SCHEMA_PATH}\n`);
    return 0;
  }
  const json = values.json;
  if (positionals.length !== 1) {
    process.stderr.write(CHECK_USAGE);
    return 2;
  }
  try {
    const pkg = await loadPackage(positionals[0], { cacheDir: CACHE_DIR });
    const unplaced = unplacedProblems(pkg);
    if (unplaced.length > 0)
      throw Object.assign(new Error(`${unplaced.length} view(s) without a beat map:\n${unplaced.join('\n')}`), {
        code: 'SC_ERR_SCORE_INVALID',
        problems: unplaced,
      });
    const report = checkReport(pkg, path.relative(process.cwd(), pkg.dir) || '.');
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatCheckReport(report));
    return 0;
  } catch (err) {
    const e = /** @type {Error & { code?: string, problems?: string[] }} */ (err);
    if (json) {
      const problems = e.problems?.length ? e.problems : [e.message];
      process.stdout.write(`${JSON.stringify({ valid: false, code: e.code ?? 'error', problems }, null, 2)}\n`);
    } else {
      process.stderr.write(`${e.code ?? 'error'}: ${e.message}\n`);
    }
    return 1;
  }
}

/** @param {string[]} argv */
async function run(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'check':
      return check(rest);
    case 'preview': {
      const { runPreview } = await import('./preview.js');
      return runPreview(rest);
    }
    case 'plan': {
      const { runPlan } = await import('./plan.js');
      return runPlan(rest);
    }
    case 'import-zscore': {
      const { run: importZScore } = await import('../import/zscore/cli.js');
      return importZScore(rest);
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    case 'version':
    case '--version':
      process.stdout.write(`scorecast ${VERSION}\n`);
      return 0;
    case 'start':
      await start(rest);
      return null;
    default:
      if (command === undefined || command.startsWith('--')) {
        await start(argv);
        return null;
      }
      process.stderr.write(`scorecast: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

const code = await run(process.argv.slice(2));
if (code !== null) process.exitCode = code;
