#!/usr/bin/env node
// `scorecast` command: start (default), preview <dir>, check <dir>, import-zscore <dir> <out>.

import path from 'node:path';
import { main as start } from './start.js';
import { loadPackage } from './score-package.js';
import { CACHE_DIR } from './app.js';

const USAGE = `usage:
  scorecast [start] [--score DIR] [--port N] [--host H] [--autoplay] [--watch]   serve a score
  scorecast preview DIR [--port N] [--no-open]   preview a score package as you edit it
  scorecast check DIR                       validate a score package (engraves it if needed)
  scorecast import-zscore DIR OUT           convert a ZScore export into a score package
  scorecast plan --users N [--score DIR]    size a venue: bandwidth, access points, router, instances
Every command answers --help (or -h) with its own options.
`;

const CHECK_USAGE = `usage: scorecast check DIR

Validates the score package in DIR (engraving its notation if needed, as the server would) and
prints a summary and its warnings; exits 1 with every problem (file, line, field, fix), one per
line, when it is not valid.
  -h, --help  this text
`;

/**
 * Validate a package and print what is wrong, one problem per line.
 * @param {string[]} args
 */
async function check(args) {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(CHECK_USAGE); return 0; }
  if (args.length !== 1 || args[0].startsWith('-')) { process.stderr.write(CHECK_USAGE); return 2; }
  try {
    const pkg = await loadPackage(args[0], { cacheDir: CACHE_DIR });
    const { model } = pkg;
    process.stdout.write(`${path.relative(process.cwd(), pkg.dir) || '.'}: "${model.title}" is valid: ${model.map.lastBar} bars, ${model.map.totalBeats} beats, `
      + `${Math.round(model.map.durationMs / 1000)} s, views ${model.views.join(', ')}, ${model.cues.length} cues, ${model.votes.length} votes\n`);
    for (const w of pkg.warnings) process.stdout.write(`warning: ${w}\n`);
    return 0;
  } catch (err) {
    const e = /** @type {Error & { code?: string }} */ (err);
    process.stderr.write(`${e.code ?? 'error'}: ${e.message}\n`);
    return 1;
  }
}

/** @param {string[]} argv */
async function run(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'check': return check(rest);
    case 'preview': {
      const { runPreview } = await import('./preview.js');
      return runPreview(rest);
    }
    case 'plan': {
      const { runPlan } = await import('./plan.js');
      return runPlan(rest);
    }
    case 'import-zscore': {
      const { run: importZScore } = await import('./import/cli.js');
      return importZScore(rest);
    }
    case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return 0;
    case 'start':
      await start(rest);
      return null;
    default:
      if (command === undefined || command.startsWith('--')) { await start(argv); return null; }
      process.stderr.write(`scorecast: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

const code = await run(process.argv.slice(2));
if (code !== null) process.exitCode = code;
