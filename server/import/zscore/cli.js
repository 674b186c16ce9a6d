// `scorecast import-zscore <dir> <out>`: the command-line face of importZScore. Prints a summary
// and where the report is; bad input prints the problems, one per line, and a non-zero code.

import { parseArgs } from 'node:util';
import { ScorecastError } from '../../../core/errors.js';
import { importZScore } from './index.js';
import { timingSummary } from './report.js';

const USAGE = `usage: scorecast import-zscore <export-folder> <package-folder> [--granulator-sound FILE] [--beat-info FILE]

Reads a ZScore export (per part and page <Score>_<Part>_page<N>.png with its _BeatInfo.csv,
<Score>_BeatInfo.csv and the YAML configuration) and writes a scorecast score package into
<package-folder>, which must be new or empty: score.yaml, pages/, beatmaps/ and import-report.md
(what was converted, what was not and why). See doc/zscore-import.md.

  --granulator-sound FILE   the sound the phones' granulator plays (ZScore's export has none;
                            its audience page loaded it from the web application)
  --beat-info FILE          the score-level BeatInfo to read when the folder has several that
                            differ and no master 1_<Score>_BeatInfo.csv (ZScore's ScoreMerger
                            writes that master; the loader reads it and so does the import)
`;

/**
 * @typedef {object} CliIo
 * @property {(text: string) => void} out
 * @property {(text: string) => void} err
 */

/** @type {CliIo} */
const STDIO = {
  out: (t) => {
    process.stdout.write(t);
  },
  err: (t) => {
    process.stderr.write(t);
  },
};

/**
 * Run the command and return its exit code: 0 done, 1 bad input (nothing or a partial package
 * written, see the message), 2 bad usage. The caller sets process.exitCode.
 * @param {string[]} argv  arguments after the command name; a leading "import-zscore" is skipped
 * @param {CliIo} [io]
 * @returns {Promise<number>}
 */
export async function run(argv, io = STDIO) {
  const args = argv[0] === 'import-zscore' ? argv.slice(1) : argv;
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        'granulator-sound': { type: 'string' },
        'beat-info': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    io.err(`scorecast import-zscore: ${/** @type {Error} */ (err).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(USAGE);
    return 0;
  }
  const granulatorSound = parsed.values['granulator-sound'];
  const beatInfo = parsed.values['beat-info'];
  if (parsed.positionals.length !== 2) {
    io.err(USAGE);
    return 2;
  }
  const [inDir, outDir] = parsed.positionals;
  try {
    const { report } = await importZScore(inDir, outDir, {
      ...(granulatorSound === undefined ? {} : { granulatorSound }),
      ...(beatInfo === undefined ? {} : { beatInfo }),
    });
    const s = report.score;
    io.out(
      [
        `Imported "${s.title}" from ${inDir} into ${outDir} (score id ${s.id}):`,
        `  views: ${s.views.map((v) => `${v.id} (${v.instrument}, ${v.pages} page${v.pages === 1 ? '' : 's'})`).join(', ')}`,
        `  ${s.totalBeats} beats: ${s.pickup ? `a ${s.pickup}-beat pickup and ` : ''}${s.bars} bars; ${s.cues} cue${s.cues === 1 ? '' : 's'}`,
        ...(report.sections?.length
          ? [`  sections (movements): ${report.sections.map((x) => `${x.name} from beat ${x.beat}`).join(', ')}`]
          : []),
        `  converted ${report.converted.length} items; not converted ${report.notConverted.length}${report.notConverted.length ? ' (each listed in the report with the reason)' : ''}`,
        `  timing: ${timingSummary(report)}`,
        `Report: ${report.file}`,
        '',
      ].join('\n'),
    );
    return 0;
  } catch (err) {
    // Catalogue errors describe the input; system errors (a file that cannot be read) too.
    const known =
      err instanceof ScorecastError || typeof (/** @type {NodeJS.ErrnoException} */ (err)?.code) === 'string';
    if (!known) throw err;
    io.err(`scorecast import-zscore: ${/** @type {Error} */ (err).message}\n`);
    return 1;
  }
}
