// Verovio options for the views, and the version of our own output format. Both go into the
// cache key: change either and every score is engraved again.

/**
 * Bump when what we write changes (beat maps, file names, SVG post-processing), so old cache
 * entries are not read as new ones.
 */
export const FORMAT_VERSION = 8;

/** Seed of Verovio's id generator: element ids are the same on every engraving of a file. */
export const XML_ID_SEED = 20240601;

// Pages are A4 portrait: 2100 x 2970 SVG user units (0.1 mm) whatever the notation size.
// Verovio lays out a page of pageWidth x pageHeight at scale 100, where a staff is 72 units
// high, and `scale` shrinks the output, so pageWidth = 2100 * 100 / scale keeps the page A4.
const A4 = { width: 2100, height: 2970 };

/**
 * @param {number} scale  notation size in percent: staff height 7.2 mm at 100
 */
const a4At = (scale) => ({
  scale,
  pageWidth: Math.round((A4.width * 100) / scale),
  pageHeight: Math.round((A4.height * 100) / scale),
});

const COMMON = Object.freeze({
  xmlIdSeed: XML_ID_SEED,
  // The client scales pages to the screen: a viewBox and no fixed size.
  svgViewBox: true,
  svgRemoveXlink: true,
  svgFormatRaw: true,
  // Title and composer on the first page, page numbers on the others; no engraver credit.
  header: 'auto',
  footer: 'none',
  // Every page the same size, so page turns do not jump.
  adjustPageHeight: false,
  pageMarginTop: 100,
  pageMarginBottom: 100,
  pageMarginLeft: 100,
  pageMarginRight: 100,
});

/**
 * The full score's notation size, in percent (staff 7.2 mm at 100), as a conductor reads it on a
 * tablet. Drawn across a 768 CSS px tablet in portrait (736 px of page), a chamber score at the
 * largest size has a staff 86.4 of the page's 2100 units, 30 CSS px (about 5.8 mm on a 10-inch
 * tablet's glass, a printed chamber score's size); 41 px on its side, 1024 px wide. At the A4
 * score's former 75 (5.4 mm on paper) it was 19 px: too small to read at a music stand. A
 * system must still fit on a page, so a larger ensemble's staff shrinks with its staves, down
 * to that 75 (an orchestral score is read at the desk, not on a tablet): a system takes about 2.75
 * staff heights (72 units at 100) a staff, with its spacing and dynamics, and a page 2970 units
 * of height at 100, less 200 of margins.
 */
export const SCORE_SIZE = Object.freeze({ largest: 120, smallest: 75, unitsPerStaff: 198, margins: 200 });

/**
 * Full score options for a score of `staves` staves: every staff in every system (condensing
 * would move a part's staff from system to system), encoded system breaks kept when they fit.
 * @param {number} staves
 */
export function scoreLayout(staves) {
  const { largest, smallest, unitsPerStaff, margins } = SCORE_SIZE;
  const fits = Math.floor((A4.height * 100) / (unitsPerStaff * Math.max(1, staves) + margins));
  return Object.freeze({
    ...COMMON,
    ...a4At(Math.max(smallest, Math.min(largest, fits))),
    breaks: 'smart',
    condense: 'none',
    breaksNoWidow: true,
  });
}

/**
 * A part: staff 7.2 mm, as printed parts are; the score's breaks do not apply to it. No widows:
 * a last page holding one bar is a page turn for nothing.
 */
export const PART_LAYOUT = Object.freeze({
  ...COMMON,
  ...a4At(100),
  breaks: 'auto',
  breaksNoWidow: true,
  spacingNonLinear: 0.6,
});

/**
 * A part's layouts, widest first: the A4 page, and narrower pages for smaller screens with the
 * same 7.2 mm staff. The part view shows the widest whose staff is tall enough on the
 * screen (core/layout-choice.js). A page width in staff heights (72 units) is
 * what matters: 600 units (8.3 staff heights, 2-4 bars of 4/4) shown 358 CSS px wide, a phone
 * in portrait, gives a 43 px staff; 1200 (16.7) shown 736 px wide, a tablet in portrait or a
 * phone in landscape, 44 px. Narrow pages get narrow margins and slightly tighter spacing.
 * @type {readonly { name: string, options: Readonly<Record<string, unknown>> }[]}
 */
export const PART_LAYOUTS = Object.freeze([
  { name: 'page', options: PART_LAYOUT },
  {
    name: 'medium',
    options: Object.freeze({ ...PART_LAYOUT, pageWidth: 1200, pageMarginLeft: 50, pageMarginRight: 50 }),
  },
  {
    name: 'narrow',
    options: Object.freeze({
      ...PART_LAYOUT,
      pageWidth: 600,
      pageMarginLeft: 30,
      pageMarginRight: 30,
      spacingNonLinear: 0.5,
    }),
  },
]);

/** Options for the first, layout-free load that reads the notation and times it. */
export const IMPORT_OPTIONS = Object.freeze({ xmlIdSeed: XML_ID_SEED, breaks: 'none' });

/** Timemap with measure starts (bars in performance order) and rests (beats of silent bars). */
export const TIMEMAP_OPTIONS = Object.freeze({ includeMeasures: true, includeRests: true });

/** Brotli quality for the precompressed pages: 11 takes about 1 s per page for 10% less. */
export const BROTLI_QUALITY = 5;
