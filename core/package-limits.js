// The bounds of a score package (doc/score-format.md, "Limits"). A package may come from
// someone else (doc/security.md): every size in it is bounded, so that no package, however written, can
// take the server's memory or its event loop. Each bound is many times what a real piece needs:
// a 1,000-bar symphony movement with 30 parts and a full score is about 4,000 beats, 124,000
// beat-map rows and 300 pages; ZScore's Union Rose is 57 bars, 897 beats, 6 views of 56 pages
// (754 x 1040 px, about 150 KB each) and about 550 cues.
// Pure: constants only; the manifest and beat-map checks and the server's loader read them.

const KIB = 1024;
const MIB = 1024 * KIB;

export const PACKAGE_LIMITS = Object.freeze({
  /** score.yaml; parsing YAML costs about 1 s per MiB (measured on the target machine). */
  manifestBytes: 2 * MIB,
  /** Parts, each a view with its own pages and beat map. */
  parts: 64,
  /** Bars in performance order (repeats expanded). */
  bars: 10_000,
  /** Beats in performance order: also the rows of each view's beat map. */
  beats: 50_000,
  /** Entries of `meter` (a tempo change may fall on any beat). */
  meterChanges: 50_000,
  /** Cues of the timeline (a vote counts as one). */
  cues: 20_000,
  /** OSC messages of the `osc` list, like cues: each is a UDP datagram on its beat. */
  oscCues: 20_000,
  /**
   * OSC messages on one beat (set-up ones included): a beat's messages go out in one burst to
   * the electronics; 52,699 cues on few beats made about 13,000 datagrams a beat.
   */
  oscPerBeat: 256,
  /** One cue's patch as JSON: every phone receives it (the seed profile's updates are 18 KB). */
  cueBytes: 256 * KIB,
  /** Nesting of objects and lists in a cue's patch. */
  cueDepth: 16,
  /** Rehearsal marks named in `marks:` (a symphony's movement has a few dozen letters). */
  marks: 1_000,
  /** Tiles in one cue's `tiles` list. */
  tiles: 1_024,
  /** Tiles a vote chooses between. */
  voteTiles: 64,
  /** Files named by `assets` and audio cues. */
  assets: 1_000,
  /** Pages of one view. */
  pagesPerView: 1_000,
  /** Beat-map rows of all views together (views x beats). */
  beatMapRows: 500_000,
  /** A page's width and height, in page units (SVG user units or image pixels). */
  pageUnits: 100_000,
  /** Pixels of one raster page (a tablet decodes it: 600 dpi A4 is 35 million). */
  pagePixels: 64_000_000,
  /** The notation file (a 56-page, 5-part MusicXML score is about 5 MB). */
  notationBytes: 64 * MIB,
  /** One page image file. */
  pageBytes: 32 * MIB,
  /** One beat-map file (50,000 rows of eight numbers fit in about 4 MiB). */
  beatMapBytes: 8 * MIB,
  /** One asset or audio clip (an hour of CD-quality WAV is 635 MB). */
  assetBytes: 1024 * MIB,
  /**
   * A PDF of pages (a part or the full score as a composer exports it). Sibelius, Dorico and
   * LilyPond parts are well under 1 MiB a page; a 300-page 600 dpi scan is about 100 MiB.
   */
  pdfBytes: 128 * MIB,
  /** Pages of one PDF file (the pages a view takes from it are also held to pagesPerView). */
  pdfPages: 2_000,
  /**
   * A PDF page's width and height, in points (1/72 inch): 2,592 is 36 inches, past an A1 sheet's
   * short side and a B3 score's long side; a page is rendered at most 2,048 pixels wide.
   */
  pdfPagePoints: 2_592,
  /**
   * A video part's file: every phone of the part downloads it (a 10-minute 1080p guide at
   * 4 Mbit/s is about 300 MB; a 720p one at 1.5 Mbit/s about 110 MB).
   */
  videoBytes: 512 * MIB,
  /** Pixels of a video's frame: 3840 x 2160 (phones decode 4K at most, most only 1080p). */
  videoPixels: 3840 * 2160,
  /** Every file of the package together (manifest, notation, pages, beat maps, assets). */
  packageBytes: 2048 * MIB,
});

/**
 * A size as people read it: "2 MiB", "640 KiB", "12 bytes".
 * @param {number} n
 */
export function formatBytes(n) {
  if (n >= 1024 * MIB && n % (1024 * MIB) === 0) return `${n / (1024 * MIB)} GiB`;
  if (n >= MIB && n % MIB === 0) return `${n / MIB} MiB`;
  if (n >= MIB) return `${(n / MIB).toFixed(1)} MiB`;
  if (n >= KIB) return `${Math.round(n / KIB)} KiB`;
  return `${n} bytes`;
}
