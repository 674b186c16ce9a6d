// The pure pieces of server/package/engrave, without Verovio: the XML reader, timing from an MEI and a
// timemap (pickups, tempo, warnings), and beat maps from a layout.

import { describe, expect, it } from 'vitest';
import { parseXml, spliceText, textOf } from '../../../../server/package/engrave/xml.js';
import { deriveTiming } from '../../../../server/package/engrave/timing.js';
import { plainMeasure } from '../../../../server/package/engrave/musicxml-form.js';
import { buildBeats } from '../../../../server/package/engrave/place-beats.js';
import { extractStaves } from '../../../../server/package/engrave/parts.js';
import { createTempoMapFromBars } from '../../../../core/tempo-map.js';

describe('xml reader', () => {
  it('reads a document with a DOCTYPE, comments, CDATA and entities', () => {
    const text =
      '<?xml version="1.0"?>\n<!DOCTYPE s [ <!ENTITY x "y"> ]>\n<!-- c -->\n' +
      '<s a="1 &amp; 2" b=\'&lt;q&gt;\'><t>x &amp; <![CDATA[<y>]]></t><u/></s>\n';
    const doc = parseXml(text);
    if (!doc.ok) throw new Error(doc.message);
    expect(doc.root.attrs).toEqual({ a: '1 & 2', b: '<q>' });
    expect(doc.root.children.map((c) => c.name)).toEqual(['t', 'u']);
    expect(textOf(text, doc.root.children[0])).toBe('x & <y>');
    expect(spliceText(text, [doc.root.children[0]])).toContain('<s a="1 &amp; 2" b=\'&lt;q&gt;\'><u/></s>');
  });

  it.each([
    ['<a><b></a>', 1, '<b> (line 1) is closed by </a>'],
    ['<a/>\n<b/>', 2, 'a second root element'],
    ['x<a/>', 1, 'text before the first element'],
    ['<a>\n<b x=1/></a>', 2, 'a malformed start tag <b>'],
    ['<a>\n\n<b>', 3, '<b> (line 3) is not closed'],
    ['<!-- only a comment -->', 1, 'there is no element'],
  ])('reports %j at line %i', (text, line, message) => {
    expect(parseXml(text)).toEqual({ ok: false, line, message });
  });
});

describe('part extraction from MEI', () => {
  const text =
    '<mei><music><body><mdiv><score><scoreDef><staffGrp>' +
    '<staffDef n="1"><label>Flute</label></staffDef><staffGrp><staffDef n="2"/><staffDef n="3"/></staffGrp></staffGrp></scoreDef>' +
    '<section><measure xml:id="m1">' +
    '<staff n="1"><layer><note xml:id="a1"/></layer></staff><staff n="2"><layer><note xml:id="b1"/></layer></staff><staff n="3"><layer><note xml:id="c1"/></layer></staff>' +
    '<tempo staff="1" tstamp="1" midi.bpm="96">Andante</tempo><tempo staff="2" tstamp="1" midi.bpm="96"/><reh staff="1">A</reh>' +
    '<dynam staff="1" tstamp="1">p</dynam><slur staff="2" startid="#b1" endid="#b1"/><tie startid="#a1" endid="#a1"/>' +
    '</measure></section></score></mdiv></body></music></mei>';
  const doc = parseXml(text);
  if (!doc.ok) throw new Error(doc.message);

  it("keeps the part's staves and its marks, and brings tempo and rehearsal marks over once", () => {
    const part = extractStaves(text, doc.root, new Set(['2']));
    expect(part).toContain('<staffGrp><staffDef n="2"/></staffGrp>');
    expect(part).not.toContain('Flute');
    expect(part).not.toMatch(/<staff n="[13]"/);
    expect(part).toContain('<slur staff="2" startid="#b1" endid="#b1"/>');
    expect(part).not.toContain('dynam');
    expect(part).not.toContain('<tie');
    expect(part).toContain(
      '<tempo staff="2" tstamp="1" midi.bpm="96">Andante</tempo><tempo staff="2" tstamp="1" midi.bpm="96"/><reh staff="2">A</reh>',
    );
  });

  it('keeps the first staff as it is', () => {
    const part = extractStaves(text, doc.root, new Set(['1']));
    expect(part).toContain(
      '<tempo staff="1" tstamp="1" midi.bpm="96">Andante</tempo><reh staff="1">A</reh><dynam staff="1" tstamp="1">p</dynam><tie',
    );
    expect(part).not.toContain('staffGrp><staffDef n="2"');
  });
});

/**
 * Verovio-like MEI of measures { id, n, meter?, tempo? } (tempo: attribute strings).
 * @param {{ id: string, n: string, meter?: string, tempo?: string[] }[]} measures
 */
function mei(measures) {
  const body = measures
    .map(
      (m) =>
        (m.meter
          ? `<scoreDef><meterSig count="${m.meter.split('/')[0]}" unit="${m.meter.split('/')[1]}"/></scoreDef>`
          : '') +
        `<measure xml:id="${m.id}" n="${m.n}"><staff n="1"><layer><note xml:id="${m.id}-n1"/><note xml:id="${m.id}-n2"/></layer></staff>` +
        `${(m.tempo ?? []).map((t) => `<tempo staff="1" ${t}/>`).join('')}</measure>`,
    )
    .join('');
  const doc = parseXml(
    `<mei><music><body><mdiv><score><scoreDef><staffGrp><staffDef n="1"><meterSig count="4" unit="4"/></staffDef></staffGrp></scoreDef><section>${body}</section></score></mdiv></body></music></mei>`,
  );
  if (!doc.ok) throw new Error(doc.message);
  return doc.root;
}

/**
 * A timemap that plays measures of the given lengths (quarters) in order.
 * @param {[string, number][]} played [measure id, quarters]
 */
function timemap(played) {
  let q = 0;
  const entries = played.map(([id, length]) => {
    const e = { qstamp: q, tstamp: 0, measureOn: id, on: [`${id.replace(/-rend\d+$/, '')}-n1`] };
    q += length;
    return e;
  });
  return [...entries, { qstamp: q, tstamp: 0 }];
}

describe('timing', () => {
  it('numbers a pickup counted as bar 1 from 0, and says so', () => {
    const r = deriveTiming(
      mei([
        { id: 'a', n: '1', tempo: ['tstamp="1" midi.bpm="100"'] },
        { id: 'b', n: '2' },
        { id: 'c', n: '3' },
      ]),
      timemap([
        ['a', 1],
        ['b', 4],
        ['c', 4],
      ]),
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars.map((b) => [b.bar, b.beats])).toEqual([
      [0, 1],
      [1, 4],
      [2, 4],
    ]);
    expect(r.timing.bars[0].tempo).toEqual([{ beat: 4, bpm: 100 }]);
    expect(r.warnings).toEqual([
      'the pickup bar is numbered 1; bars are numbered from 0 at the pickup, so bar 2 is bar 1 here',
    ]);
  });

  it("reads rehearsal marks (<reh>) at their beats, once however many staves Verovio wrote them on, in each bar's playings", () => {
    const text =
      '<mei><music><body><mdiv><score><scoreDef><staffGrp><staffDef n="1"><meterSig count="4" unit="4"/></staffDef></staffGrp></scoreDef><section>' +
      '<measure xml:id="a" n="1"><staff n="1"><layer><note xml:id="a-n1"/></layer></staff><tempo staff="1" tstamp="1" midi.bpm="100"/>' +
      '<reh staff="1" tstamp="1"><rend>A</rend></reh><reh staff="2" tstamp="1">A</reh></measure>' +
      '<measure xml:id="b" n="2"><staff n="1"><layer><note xml:id="b-n1"/></layer></staff><reh staff="1" tstamp="3">Trio  &amp; coda</reh><reh tstamp="1">  </reh></measure>' +
      '</section></score></mdiv></body></music></mei>';
    const doc = parseXml(text);
    if (!doc.ok) throw new Error(doc.message);
    const played = timemap([
      ['a', 4],
      ['b', 4],
      ['b-rend2', 4],
    ]);
    const r = deriveTiming(doc.root, played, null, text);
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars.map((b) => b.marks ?? [])).toEqual([
      [{ beat: 1, name: 'A' }],
      [{ beat: 3, name: 'Trio  & coda' }],
      [{ beat: 3, name: 'Trio  & coda' }],
    ]);
    // Without the MEI's text (a caller that has only the tree), no marks and nothing else changes.
    const bare = deriveTiming(doc.root, played, null);
    if (!bare.ok) throw new Error(bare.problems.join());
    expect(bare.timing.bars.some((b) => b.marks)).toBe(false);
  });

  it('assumes quarter = 120 without a tempo, and says so', () => {
    const r = deriveTiming(mei([{ id: 'a', n: '1', meter: '6/8' }]), timemap([['a', 3]]));
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars).toEqual([{ bar: 1, time: [6, 8], beats: 6, tempo: [{ beat: 1, bpm: 240 }] }]);
    expect(r.warnings[0]).toMatch(/no tempo marking at the start; ♩ = 120 is assumed/);
  });

  it('counts tempo in the beat unit, through meter changes and metronome marks', () => {
    const r = deriveTiming(
      mei([
        { id: 'a', n: '1', tempo: ['tstamp="1" mm="60" mm.unit="4" mm.dots="1"'] }, // dotted quarter = 60: quarter = 90
        { id: 'b', n: '2', meter: '3/8' },
        { id: 'c', n: '3', tempo: ['tstamp="2" midi.mspb="1000000"'] },
      ]),
      timemap([
        ['a', 4],
        ['b', 1.5],
        ['c', 1.5],
      ]),
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars.map((b) => b.tempo)).toEqual([
      [{ beat: 1, bpm: 90 }],
      [{ beat: 1, bpm: 180 }],
      [{ beat: 2, bpm: 120 }],
    ]);
    expect(r.warnings).toEqual([]);
    expect(createTempoMapFromBars(r.timing.bars).timeAt(7)).toBeCloseTo(4 * (60000 / 90) + 3 * (60000 / 180), 6);
  });

  it('moves a tempo change between beats to the nearest beat, and says so', () => {
    const r = deriveTiming(
      mei([{ id: 'a', n: '1', tempo: ['tstamp="1" midi.bpm="60"', 'tstamp="2.6" midi.bpm="90"'] }]),
      timemap([['a', 4]]),
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars[0].tempo).toEqual([
      { beat: 1, bpm: 60 },
      { beat: 3, bpm: 90 },
    ]);
    expect(r.warnings).toEqual(['bar 1: the tempo change at beat 2.6 is not on a beat; it takes effect at beat 3']);
  });

  it('plays repeats from the timemap and takes onsets from the first playing', () => {
    const r = deriveTiming(
      mei([
        { id: 'a', n: '1', tempo: ['midi.bpm="120"'] },
        { id: 'b', n: '2' },
      ]),
      timemap([
        ['a', 4],
        ['b', 4],
        ['a-rend2', 4],
        ['b-rend2', 2.5],
      ]),
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.measureOf).toEqual(['a', 'b', 'a', 'b']);
    expect(r.timing.onsets).toEqual({ a: [[0, ['a-n1']]], b: [[0, ['b-n1']]] });
    expect(r.timing.bars[3].beats).toBe(3);
    expect(r.warnings).toEqual(['bar 2 lasts 2.5 beats of 4/4, not a whole number; it is counted as 3']);
  });

  it('sums up many overfull bars in one warning, so that the others are seen', () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const form = ids.map((_id, i) =>
      plainMeasure({
        n: String(i + 1),
        quarters: 8,
        parts: [
          { part: 'P1', quarters: 4 },
          { part: 'P2', quarters: 8 },
        ],
      }),
    );
    const r = deriveTiming(
      mei(ids.map((id, i) => ({ id, n: String(i + 1), ...(i === 0 ? { tempo: ['midi.bpm="120"'] } : {}) }))),
      timemap(ids.map((id) => [id, 8])),
      form,
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.bars.map((b) => b.beats)).toEqual([4, 4, 4, 4, 4]);
    expect(r.warnings).toEqual([
      '5 bars are overfull in some parts, each played as its time signature says, as the other parts have it; the first: bar 1 is overfull in some parts (P2 has 8 beats of 4/4); it is played as 4 beats, as the other parts have it',
    ]);
  });

  it('counts each onset in the measure that holds it when the timemap is out of order', () => {
    // Verovio times an overfull bar's extra notes after the next bar has started.
    const map = [
      { qstamp: 0, tstamp: 0, measureOn: 'a', on: ['a-n1'] },
      { qstamp: 4, tstamp: 0, measureOn: 'b', on: ['b-n1'] },
      { qstamp: 6, tstamp: 0, on: ['a-n2', 'b-n2'] },
      { qstamp: 8, tstamp: 0 },
    ];
    const r = deriveTiming(
      mei([
        { id: 'a', n: '1', tempo: ['midi.bpm="120"'] },
        { id: 'b', n: '2' },
      ]),
      map,
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.timing.onsets).toEqual({
      a: [
        [0, ['a-n1']],
        [6, ['a-n2']],
      ],
      b: [
        [0, ['b-n1']],
        [2, ['b-n2']],
      ],
    });
  });
});

describe('timing bounds', () => {
  it('refuses more bars or beats than a package may have, before any page is engraved', () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({ id: `m${i}`, n: String(i + 1) }));
    const r = deriveTiming(mei(many), timemap(many.map((m) => [m.id, 4])));
    expect(r).toEqual({
      ok: false,
      problems: [
        'has 10001 bars in performance order, more than the 10000 a package may have; split the piece into movements',
      ],
    });
    const long = Array.from({ length: 2_000 }, (_, i) => ({
      id: `m${i}`,
      n: String(i + 1),
      ...(i === 0 ? { meter: '30/4' } : {}),
    }));
    expect(deriveTiming(mei(long), timemap(long.map((m) => [m.id, 30])))).toEqual({
      ok: false,
      problems: [
        'has 60000 beats in performance order, more than the 50000 a package may have; split the piece into movements',
      ],
    });
  });
});

describe('beat map', () => {
  const box = (
    /** @type {string} */ id,
    /** @type {Partial<import('../../../../server/package/engrave/svg-layout.js').MeasureBox>} */ more = {},
  ) => ({
    id,
    page: 0,
    system: 0,
    left: 100,
    right: 500,
    lead: 100,
    y0: 10,
    y1: 90,
    mRest: null,
    ...more,
  });
  /** @type {import('../../../../server/package/engrave/timing.js').Timing} */
  const timing = {
    bars: [
      { bar: 1, time: [4, 4], beats: 4, tempo: [{ beat: 1, bpm: 60 }] },
      { bar: 2, time: [4, 4], beats: 4 },
      { bar: 3, time: [4, 4], beats: 4 },
    ],
    measureOf: ['a', 'b', 'c'],
    length: [4, 4, 4],
    onsets: {
      a: [
        [0, ['n1', 'other-part']],
        [2, ['n2']],
      ],
      b: [[0, ['r1']]],
    },
  };

  it('puts beats on onsets, spreads held beats, and centres a whole-bar rest', () => {
    const layout = {
      measures: new Map([
        ['a', box('a')],
        ['b', box('b', { left: 500, lead: 500, right: 900, mRest: 700 })],
        ['c', box('c', { left: 900, lead: 950, right: 1300 })],
      ]),
      x: new Map([
        ['n1', 120],
        ['n2', 320],
      ]),
    };
    const { beats, missing } = buildBeats(timing, layout);
    expect(missing).toEqual([]);
    expect(beats.slice(0, 4).map((b) => [b.x0, b.x1])).toEqual([
      [120, 220],
      [220, 320],
      [320, 410],
      [410, 500],
    ]);
    // Bar 2: a whole-bar rest centred at 700 between the barlines 500 and 900.
    expect(beats.slice(4, 8).map((b) => b.x0)).toEqual([500, 600, 700, 800]);
    // Bar 3: no onset in this view; the music starts after the clef, at `lead`.
    expect(beats.slice(8).map((b) => b.x0)).toEqual([950, 1037.5, 1125, 1212.5]);
  });

  it('points beats of a bar missing from the pages at the bar before', () => {
    const layout = {
      measures: new Map([
        ['a', box('a')],
        ['c', box('c', { page: 1 })],
      ]),
      x: new Map(),
    };
    const { beats, missing } = buildBeats(timing, layout);
    expect(missing).toEqual(['b']);
    expect(beats[4]).toMatchObject({ bar: 2, page: 0, x0: beats[3].x0 });
    expect(beats[8]).toMatchObject({ bar: 3, page: 1 });
  });
});
