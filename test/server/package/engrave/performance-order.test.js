// Performance order as musicians read the score: each fixture in
// test/fixtures/notation/form/ is read and timed the way an engraving worker does it (our
// MusicXML reader, Verovio's MEI and timemap, deriveTiming), and the bars played, their length
// in time and the warnings are checked against the score as written (each fixture's comment says
// how it reads).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToolkit, timeNotation } from '../../../../server/package/engrave/time-notation.js';
import { performanceOrder } from '../../../../server/package/engrave/performance-order.js';
import { endingNumbers, plainMeasure } from '../../../../server/package/engrave/musicxml-form.js';
import { createTempoMapFromBars } from '../../../../core/tempo-map.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'notation', 'form');

/** @type {import('../../../../server/package/engrave/tasks.js').Toolkit} */
let tk;
beforeAll(async () => {
  tk = await createToolkit();
});

/**
 * Time a fixture as scoreTask does.
 * @param {string} name
 */
function time(name) {
  const file = path.join(dir, name);
  const timed = timeNotation(tk, file, readFileSync(file));
  if (!timed.ok) throw new Error(timed.problems.join('\n'));
  const map = createTempoMapFromBars(timed.timing.bars);
  return {
    bars: timed.timing.bars.map((b) => b.bar),
    seconds: map.durationMs / 1000,
    warnings: timed.warnings,
    timing: timed.timing,
  };
}

describe('performance order of MusicXML', () => {
  it.each([
    ['end-repeats-without-start.musicxml', [1, 2, 1, 2, 3, 4, 3, 4]],
    ['long-first-ending.musicxml', [1, 2, 3, 4, 5, 1, 2, 6, 7]],
    ['ending-repeat-in-section.musicxml', [1, 2, 1, 2, 3, 4, 5, 3, 4, 6, 7]],
    ['numbered-endings.musicxml', [1, 2, 1, 2, 1, 3]],
    ['da-capo-al-fine.musicxml', [1, 2, 1, 2, 3, 4, 1, 2]],
    ['dal-segno-al-coda.musicxml', [1, 2, 3, 4, 5, 2, 3, 6, 7]],
    ['to-coda-second-time.musicxml', [1, 2, 3, 4, 1, 2, 3, 5]],
  ])('%s plays bars %j, without warnings', (name, bars) => {
    const t = time(name);
    expect(t.bars).toEqual(bars);
    expect(t.seconds).toBeCloseTo(bars.length * 2, 6); // whole notes at 120
    expect(t.warnings).toEqual([]);
  });

  it('replays the pickup when a repeat goes back to the start, on the last beat of its bar', () => {
    const t = time('pickup-repeat.musicxml');
    expect(t.bars).toEqual([0, 1, 2, 0, 1, 2, 3]);
    expect(t.timing.bars.map((b) => b.beats)).toEqual([1, 4, 3, 1, 4, 3, 4]);
    expect(t.timing.bars[3].firstBeatInBar).toBe(4);
    expect(t.seconds).toBeCloseTo(20 * 0.5, 6);
    const map = createTempoMapFromBars(t.timing.bars);
    expect(map.totalBeats).toBe(20);
  });

  it('plays a repeat at the tempo written at the bar it goes back to', () => {
    const t = time('repeat-across-tempo.musicxml');
    expect(t.bars).toEqual([1, 2, 3, 4, 2, 3, 4]);
    expect(t.timing.bars[4].tempo).toEqual([{ beat: 1, bpm: 120 }]);
    // 1, 2 at 120 (2 s each), 3, 4 at 60 (4 s each), 2 at 120 again, 3, 4 at 60.
    expect(t.seconds).toBeCloseTo(2 + 2 + 4 + 4 + 2 + 4 + 4, 6);
    expect(t.warnings).toEqual([]);
  });

  it('warns about jumps written only as words and plays straight through', () => {
    const t = time('text-da-capo.musicxml');
    expect(t.bars).toEqual([1, 2, 3, 4]);
    expect(t.warnings).toEqual([
      expect.stringMatching(/^bar 2: "Fine" is written as text only.*not performed/),
      expect.stringMatching(/^bar 4: "D\.C\. al Fine" is written as text only.*not performed/),
    ]);
  });

  it('takes an end repeat without start repeat back to the double bar that begins its section, and warns', () => {
    const t = time('repeat-after-double-bar.musicxml');
    expect(t.bars).toEqual([1, 2, 1, 2, 3, 4, 5, 6, 5, 6]);
    expect(t.warnings).toEqual([
      expect.stringMatching(
        /^bar 6: the end repeat has no start repeat; it is taken to go back to bar 5, after the double bar at bar 4/,
      ),
    ]);
  });

  it('reads a first ending without its start as the bar before the second ending, and warns', () => {
    const t = time('ending-without-start.musicxml');
    expect(t.bars).toEqual([1, 2, 3, 4, 1, 2, 3, 5, 6]);
    expect(t.warnings).toEqual([
      expect.stringMatching(/^bar 4: an ending stops here without having started; bar 4 is taken as ending 1/),
    ]);
  });

  it('extends a first ending closed before its end repeat to the repeat, and warns', () => {
    const t = time('first-ending-closed-early.musicxml');
    expect(t.bars).toEqual([1, 2, 3, 4, 1, 2, 5]);
    expect(t.warnings).toEqual([
      expect.stringMatching(/^bar 3: the ending "1" stops at bar 3, but its end repeat is at bar 4.*taken as bars 3-4/),
    ]);
  });

  it('plays an overfull bar as its time signature when other parts fill it exactly, and warns', () => {
    const t = time('overfull-bar.musicxml');
    expect(t.bars).toEqual([1, 2, 3]);
    expect(t.timing.bars.map((b) => b.beats)).toEqual([4, 4, 4]);
    expect(t.seconds).toBeCloseTo(6, 6);
    expect(t.warnings).toEqual([
      expect.stringMatching(/^bar 2 is overfull in some parts \(P1 has 5 beats of 4\/4\); it is played as 4 beats/),
    ]);
  });
});

describe('performanceOrder', () => {
  /** @param {Partial<import('../../../../server/package/engrave/musicxml-form.js').FormMeasure>[]} marks */
  const form = (marks) => marks.map((m, i) => plainMeasure({ n: String(i + 1), quarters: 4, ...m }));

  it('takes an end repeat as many times as it says', () => {
    expect(performanceOrder(form([{}, { backward: 3 }, {}])).order).toEqual([0, 1, 0, 1, 0, 1, 2]);
  });

  it('repeats a bar on its own when an end repeat follows another at once', () => {
    const r = performanceOrder(form([{ forward: true }, { backward: 2 }, { backward: 2 }]));
    expect(r.order).toEqual([0, 1, 0, 1, 2, 2]);
    expect(r.warnings).toEqual([]);
  });

  it('takes a jump or Fine with time-only on the times through its bar it names, and then only', () => {
    // To Coda on the second time through a repeat, with no D.S. or D.C. before it.
    const coda = form([
      { forward: true },
      {},
      { tocoda: 'c', times: { tocoda: [2] } },
      { backward: 2 },
      {},
      { coda: 'c' },
      {},
    ]);
    expect(performanceOrder(coda).order).toEqual([0, 1, 2, 3, 0, 1, 2, 5, 6]);
    // Without time-only a To Coda waits for a D.C. or D.S.
    expect(
      performanceOrder(form([{ forward: true }, {}, { tocoda: 'c' }, { backward: 2 }, {}, { coda: 'c' }, {}])).order,
    ).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6]);
    // Fine the second time through, without a jump.
    expect(
      performanceOrder(form([{ forward: true }, { fine: true, times: { fine: [2] } }, { backward: 2 }, {}])).order,
    ).toEqual([0, 1, 2, 0, 1]);
    // A D.C. the second time through a bar that a later repeat brings back.
    const dc = form([{ fine: true }, { forward: true }, { dacapo: true, times: { dacapo: [2] } }, { backward: 2 }, {}]);
    expect(performanceOrder(dc).order).toEqual([0, 1, 2, 3, 1, 2, 0]);
  });

  it('reads ending numbers as programs write them', () => {
    expect(endingNumbers('1')).toEqual([1]);
    expect(endingNumbers('1, 2')).toEqual([1, 2]);
    expect(endingNumbers('1. 2.')).toEqual([1, 2]);
    expect(endingNumbers('1-3')).toEqual([1, 2, 3]);
    expect(endingNumbers('')).toEqual([]);
  });
});
