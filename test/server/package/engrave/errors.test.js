// Broken notation gives its own clear SC_ERR_SCORE_INVALID: the file, what is wrong and what to
// do, one problem per line. Bad input never takes a worker down; a stopped engraving fails alone.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS } from '../../../../core/errors.js';
import { closeEngraver, engraveScore, engraverThreads } from '../../../../server/package/engrave/index.js';
import { makeMxl, zip } from '../../../fixtures/notation/make-mxl.js';

const DUO = fileURLToPath(new URL('../../../fixtures/notation/duo.musicxml', import.meta.url));
/** @type {string} */
let tmp;
/** @type {string} */
let cacheDir;
/** @type {string} */
let duoText;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'scorecast-engrave-errors-'));
  cacheDir = path.join(tmp, 'cache');
  duoText = await readFile(DUO, 'utf8');
});

afterAll(async () => {
  await closeEngraver();
  await rm(tmp, { recursive: true, force: true });
});

/**
 * Engrave `content` written as `name`, expecting it to fail; returns the problem lines.
 * @param {string} name
 * @param {string | Buffer | null} content null: do not write the file
 * @param {import('../../../../server/package/engrave/parts.js').PartRequest[]} [parts]
 */
async function problems(name, content, parts = []) {
  const file = path.join(tmp, name);
  if (content !== null) await writeFile(file, content);
  const err = await engraveScore({ file, parts, cacheDir }).then(
    () => null,
    (e) => e,
  );
  expect(err, name).toMatchObject({ name: 'ScorecastError', code: 'SC_ERR_SCORE_INVALID', statusCode: 422 });
  const [first, ...lines] = err.message.split('\n');
  expect(first).toBe(ERRORS.SC_ERR_SCORE_INVALID.message);
  for (const line of lines) expect(line).toMatch(new RegExp(`^${name.replace('.', '\\.')}: [^;]+; .+$`));
  return lines;
}

describe('broken notation', () => {
  it.each([
    ['score.pdf', '%PDF-1.4', '".pdf" is not a notation file extension we engrave'],
    ['missing.musicxml', null, 'cannot be read (ENOENT)'],
    ['notes.musicxml', 'C D E F G', 'is not XML'],
    ['binary.mei', Buffer.from([0, 159, 146, 150, 255]), 'is not XML'],
    [
      'broken.musicxml',
      '<score-partwise><part-list></score-partwise>',
      'is not well-formed XML: line 1: <part-list> (line 1) is closed by </score-partwise>',
    ],
    [
      'cut.musicxml',
      '<?xml version="1.0"?>\n<score-partwise>\n<part id="P1">',
      'is not well-formed XML: line 3: <part> (line 3) is not closed',
    ],
    ['page.xml', '<html><body>Not a score</body></html>', 'is XML but not music: its root element is <html>'],
    ['timewise.musicxml', '<score-timewise version="4.0"><part-list/></score-timewise>', 'is timewise MusicXML'],
    ['empty.musicxml', '<score-partwise version="4.0"><part-list/></score-partwise>', 'is MusicXML without parts'],
    ['head.mei', '<mei xmlns="http://www.music-encoding.org/ns/mei"><meiHead/></mei>', 'is MEI without a score'],
    ['text.mxl', 'plain text, not an archive', 'it is not a zip archive'],
    ['readme.mxl', zip({ 'README.txt': 'no score here' }), 'is a zip archive without a MusicXML score in it'],
  ])('%s', async (name, content, what) => {
    const lines = await problems(name, content);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${name}: ${what}`);
  });

  it('a damaged archive', async () => {
    const mxl = makeMxl(duoText);
    mxl.fill(0x55, 200, 400);
    expect((await problems('damaged.mxl', mxl))[0]).toMatch(/damaged|not well-formed/);
  });

  it('part sources that the score does not have, one line each', async () => {
    const lines = await problems('duo.musicxml', duoText, [
      { id: 'viola', source: 'P3' },
      { id: 'cello', source: 'P2' },
      { id: 'bass', source: 'P9' },
    ]);
    expect(lines).toEqual([
      'duo.musicxml: part "viola" has source "P3", but the score has no part id P3 (it has P1 (Violin), P2 (Cello)); fix the part\'s source in score.yaml',
      'duo.musicxml: part "bass" has source "P9", but the score has no part id P9 (it has P1 (Violin), P2 (Cello)); fix the part\'s source in score.yaml',
    ]);
  });

  it('more parts than the score has, and ids that cannot name a view', async () => {
    const lines = await problems('duo.musicxml', duoText, [
      { id: 'a' },
      { id: 'b' },
      { id: 'c' },
      { id: 'score' },
      { id: 'a' },
    ]);
    expect(lines).toEqual([
      'duo.musicxml: part "c" has no source and the score has only 2 parts (P1 (Violin), P2 (Cello)); give it a source or remove it',
      'duo.musicxml: part id "score" cannot name a view; use lower-case letters, digits, "-" or "_", and not "score"',
      'duo.musicxml: part id "a" is given twice; give each part its own id',
    ]);
  });

  it('MEI staves that do not exist', async () => {
    const canon = fileURLToPath(new URL('../../../fixtures/notation/canon.mei', import.meta.url));
    const lines = await problems('canon.mei', await readFile(canon), [{ id: 'organ', source: '1 3' }]);
    expect(lines).toEqual([
      'canon.mei: part "organ" has source "1 3", but the score has no staff number 3 (it has 1 (Flute), 2 (Bassoon)); fix the part\'s source in score.yaml',
    ]);
  });
});

describe('the engraver after failures', () => {
  it('keeps its workers through bad input', async () => {
    await problems('again.musicxml', 'not xml at all');
    const before = engraverThreads();
    expect(before.length).toBeGreaterThan(0);
    await problems('again2.musicxml', '<score-partwise><part-list/></score-partwise>');
    expect(engraverThreads()).toEqual(before);
    const ok = await engraveScore({ file: DUO, parts: [], cacheDir });
    expect(ok.cached).toBe(false);
    expect(engraverThreads()).toEqual(before);
  });

  it('fails an engraving that is stopped, and engraves the next', async () => {
    const file = path.join(tmp, 'stopped.musicxml');
    await writeFile(file, duoText);
    await closeEngraver();
    const running = engraveScore({ file, parts: [{ id: 'violin' }], cacheDir });
    const settled = running.then(
      () => null,
      (e) => e,
    );
    while (engraverThreads().length === 0) await new Promise((r) => setTimeout(r, 5));
    await closeEngraver();
    expect(await settled).toMatchObject({ code: 'SC_ERR_INTERNAL' });
    const again = await engraveScore({ file, parts: [{ id: 'violin' }], cacheDir });
    expect(again.cached).toBe(false);
    expect(Object.keys(again.views)).toEqual(['score', 'violin']);
  });
});
