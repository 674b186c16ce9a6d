// import-report.md: what an import converted, what it did not and why, and how scorecast's clock
// compares with ZScore's. Every item names the file and line it came from.

/**
 * @typedef {object} ImportReport
 * @property {string} file            where the report was written
 * @property {string} source          the export folder
 * @property {{ id: string, title: string, totalBeats: number, bars: number, pickup: number,
 *   views: { id: string, instrument: string, pages: number }[], cues: number }} score
 * @property {import('./cues.js').ReportItem[]} converted
 * @property {import('./cues.js').ReportItem[]} notConverted
 * @property {import('./timing.js').TimeMismatch[]} timeMismatches
 * @property {string[]} notes
 * @property {import('./merged.js').Section[]} [sections]  the movements of a merged export
 */

/** Longest item text in a table cell; the source line has the rest. */
const MAX_CELL = 240;
/** Timing differences listed one by one; the rest are counted. */
const MAX_TIMING_ROWS = 30;

/**
 * @param {string} s
 */
function cell(s) {
  const short = s.length > MAX_CELL ? `${s.slice(0, MAX_CELL)}…` : s;
  return short
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * @param {string} s
 */
function code(s) {
  const c = cell(s);
  return c.includes('`') ? `\`\` ${c} \`\`` : `\`${c}\``;
}

/**
 * One-line summary of the timing check.
 * @param {ImportReport} r
 */
export function timingSummary(r) {
  const m = r.timeMismatches;
  if (m.length === 0)
    return `every beat starts within 1 ms of ZScore's startTimeMillis (${r.score.totalBeats} beats checked)`;
  const worst = m.reduce((a, b) => (Math.abs(b.ourMs - b.zscoreMs) > Math.abs(a.ourMs - a.zscoreMs) ? b : a));
  return `${m.length} of ${r.score.totalBeats} beats differ from ZScore's startTimeMillis by more than 1 ms (largest ${round(Math.abs(worst.ourMs - worst.zscoreMs))} ms, beat ${worst.beat})`;
}

/**
 * @param {ImportReport} r
 */
export function renderReport(r) {
  const s = r.score;
  const out = [
    `# Import report: ${s.title}`,
    '',
    `Imported by \`scorecast import-zscore\` from \`${r.source}\`. The package is \`score.yaml\` with`,
    'its page images and beat maps; this report lists every item of the export that was converted and',
    'every item that was not, with the file and line it came from. See doc/zscore-import.md.',
    '',
    '| | |',
    '| --- | --- |',
    `| score | ${cell(s.title)} (id \`${s.id}\`) |`,
    `| views | ${s.views.map((v) => `\`${v.id}\` (${cell(v.instrument)}, ${v.pages} page${v.pages === 1 ? '' : 's'})`).join(', ')} |`,
    `| beats | ${s.totalBeats}: ${s.pickup ? `a ${s.pickup}-beat pickup and ` : ''}${s.bars} bar${s.bars === 1 ? '' : 's'} |`,
    `| cues | ${s.cues} |`,
    `| converted | ${r.converted.length} items |`,
    `| not converted | ${r.notConverted.length} items |`,
    `| timing | ${timingSummary(r)} |`,
    '',
    ...(r.sections?.length
      ? [
          `## Sections (${r.sections.length})`,
          '',
          "The movements of a merged export (ZScore's ScoreMerger), in the order of the master BeatInfo:",
          '',
          '| section | first beat | bar | pages |',
          '| --- | --- | --- | --- |',
          ...r.sections.map(
            (x) =>
              `| ${cell(x.name)} | ${x.beat} | ${x.bar} | ${x.pages[0] === x.pages[1] ? x.pages[0] : `${x.pages[0]}–${x.pages[1]}`} |`,
          ),
          '',
        ]
      : []),
    `## Converted (${r.converted.length})`,
    '',
    '| source | item | became |',
    '| --- | --- | --- |',
    ...r.converted.map((i) => `| ${cell(i.source)} | ${code(i.what)} | ${cell(i.result ?? '')} |`),
    '',
    `## Not converted (${r.notConverted.length})`,
    '',
    ...(r.notConverted.length === 0
      ? ['Nothing: every item of the export has a scorecast counterpart.']
      : [
          '| source | item | why |',
          '| --- | --- | --- |',
          ...r.notConverted.map((i) => `| ${cell(i.source)} | ${code(i.what)} | ${cell(i.reason ?? '')} |`),
        ]),
    '',
    '## Timing',
    '',
    `Scorecast's tempo map, built from the \`meter\` in score.yaml, was compared with ZScore's`,
    `startTimeMillis of every beat: ${timingSummary(r)}.`,
  ];
  if (r.timeMismatches.length > 0) {
    out.push(
      '',
      "ZScore's exporter rounds the length of a beat to whole milliseconds (round(60000 / tempo) per tempo",
      'beat) and adds the rounded lengths up, so its clock drifts from the written tempo by a fraction of a',
      'millisecond per beat wherever 60000 / tempo is not a whole number; scorecast keeps exact lengths.',
      'Differences that grow steadily come from that rounding; a sudden jump points at a tempo or metre that',
      'the BeatInfo rows and the drawn score disagree on.',
      '',
      '| beat | source | ZScore ms | scorecast ms | difference |',
      '| --- | --- | --- | --- | --- |',
      ...r.timeMismatches
        .slice(0, MAX_TIMING_ROWS)
        .map((m) => `| ${m.beat} | ${cell(m.source)} | ${m.zscoreMs} | ${m.ourMs} | ${round(m.ourMs - m.zscoreMs)} |`),
    );
    if (r.timeMismatches.length > MAX_TIMING_ROWS)
      out.push('', `… and ${r.timeMismatches.length - MAX_TIMING_ROWS} more beats.`);
  }
  if (r.notes.length > 0) out.push('', '## Notes', '', ...r.notes.map((n) => `- ${n.replace(/\r?\n|\r/g, ' ')}`));
  return `${out.join('\n')}\n`;
}

/**
 * @param {number} n
 */
function round(n) {
  return Math.round(n * 1000) / 1000;
}
