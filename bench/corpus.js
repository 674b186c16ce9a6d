#!/usr/bin/env node
// Corpus sweep (`npm run bench:corpus`): times real editions from music21's corpus of
// public-domain MusicXML as an engraving worker does (no pages drawn) and compares the bars
// played with a reference checked by reading each score (bench/corpus-reference.json: the
// expected order as bar ranges, and why, where it differs from music21's expandRepeats). Also
// shows what Verovio's own expansion of repeats plays. Not part of `npm test`: the corpus is not
// ours to commit, and the sweep takes minutes.
//
//   python3 -m venv .venv && .venv/bin/pip install music21     # gives the corpus
//   node bench/corpus.js [--corpus DIR] [--only SUBSTRING]
//
// Writes bench/out/corpus.json; exits non-zero when a file plays other bars than its reference.

import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolkit, timeNotation } from '../server/package/engrave/time-notation.js';
import { createTempoMapFromBars } from '../core/tempo-map.js';
import { performedRanges } from '../server/commands/check-report.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(BENCH, '..');

/**
 * @typedef {object} Reference
 * @property {string} file      relative to the corpus folder
 * @property {string} order     expected bars played, as `scorecast check` prints them ("1-8 1-8 9-16")
 * @property {string} [note]    how the score reads, where music21 or Verovio differ
 */

/** music21's corpus in the project's virtual environment. */
function findCorpus() {
  const lib = path.join(ROOT, '.venv', 'lib');
  if (!existsSync(lib)) return null;
  for (const py of readdirSync(lib)) {
    const dir = path.join(lib, py, 'site-packages', 'music21', 'corpus');
    if (existsSync(dir)) return dir;
  }
  return null;
}

async function main() {
  const { values } = benchArgs(import.meta.url, { options: { corpus: { type: 'string' }, only: { type: 'string' } } });
  const corpus = values.corpus ?? process.env.SCORECAST_CORPUS ?? findCorpus();
  if (!corpus) {
    process.stderr.write(
      'bench:corpus: no corpus; install music21 in .venv (see the header of bench/corpus.js) or pass --corpus DIR\n',
    );
    process.exit(2);
  }
  /** @type {Reference[]} */
  const refs = JSON.parse(readFileSync(path.join(BENCH, 'corpus-reference.json'), 'utf8')).files.filter(
    (/** @type {Reference} */ r) => !values.only || r.file.includes(values.only),
  );
  const tk = await createToolkit();
  /** @type {any[]} */
  const rows = [];
  let wrong = 0;
  for (const ref of refs) {
    const file = path.join(corpus, ref.file);
    const bytes = readFileSync(file);
    const t0 = performance.now();
    const ours = timeNotation(tk, file, bytes, { compare: true });
    const ms = performance.now() - t0;
    if (!ours.ok) {
      rows.push({ file: ref.file, error: ours.problems.join('; ') });
      process.stdout.write(`FAIL ${ref.file}: ${ours.problems.join('; ')}\n`);
      wrong++;
      continue;
    }
    const order = performedRanges(ours.timing.bars);
    const theirs = ours.verovio ?? { ok: false };
    const map = createTempoMapFromBars(ours.timing.bars);
    const expected = ref.order
      .trim()
      .split(/\s+/)
      .reduce((s, r) => {
        const [a, b = a] = r.split('-').map(Number);
        return s + (b - a + 1);
      }, 0);
    const ok = order === ref.order.trim();
    if (!ok) wrong++;
    rows.push({
      file: ref.file,
      written: ours.written,
      expected,
      played: ours.timing.bars.length,
      ok,
      verovio: theirs.ok ? theirs.timing.bars.length : null,
      note: ref.note ?? '',
      seconds: Math.round(map.durationMs / 1000),
      warnings: ours.warnings.length,
      ms: Math.round(ms),
      ...(ok ? {} : { order, expectedOrder: ref.order }),
      warningText: ours.warnings,
    });
    process.stdout.write(
      `${ok ? 'ok  ' : 'DIFF'} ${ref.file}: written ${ours.written}, played ${ours.timing.bars.length} (expected ${expected}, Verovio ${theirs.ok ? theirs.timing.bars.length : '-'}), ${Math.round(map.durationMs / 1000)} s, ${ours.warnings.length} warnings\n`,
    );
    if (!ok) process.stdout.write(`     ours     ${order}\n     expected ${ref.order}\n`);
  }
  mkdirSync(path.join(BENCH, 'out'), { recursive: true });
  writeFileSync(path.join(BENCH, 'out', 'corpus.json'), `${JSON.stringify({ corpus, rows }, null, 1)}\n`);
  const right = rows.filter((r) => r.ok).length;
  const verovioRight = rows.filter((r) => r.verovio === r.expected).length;
  process.stdout.write(
    `\n${right} of ${rows.length} editions play the expected bars (Verovio's expansion: ${verovioRight} by count); bench/out/corpus.json\n`,
  );
  process.exit(wrong ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
