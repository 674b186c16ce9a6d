// Page image sizes from file headers: PNG, JPEG and SVG. The sizes are as the file says (NaN, zero
// or absurd included): the package loader bounds them.
//
// Read here rather than with the `image-size` package: tried (2.1.0), it refuses a JPEG with fill
// bytes before a marker ("Corrupt JPG"), which ITU T.81 allows (B.1.1.2) and encoders write, and
// it rounds an SVG's width to whole pixels (12.5 -> 13) and refuses small ones (0.001), while an
// SVG page's size is in its user units, exactly: the units of its drawing and of beat maps
// (doc/score-format.md).

/** An SVG number, exponent included ("1e308" is read whole, for the bounds to refuse). */
const NUM = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
/** viewBox="min-x min-y width height", in double or single quotes. */
const VIEW_BOX = new RegExp(`\\sviewBox\\s*=\\s*(["'])\\s*${NUM}[\\s,]+${NUM}[\\s,]+(${NUM})[\\s,]+(${NUM})\\s*\\1`);
/** CSS pixels per unit of an SVG length (CSS Values 4, absolute lengths: 1in = 96px). */
const PX_PER = /** @type {Record<string, number>} */ ({
  '': 1,
  px: 1,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  q: 96 / 101.6,
  pt: 96 / 72,
  pc: 16,
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * An SVG length attribute of the root element in CSS pixels (`210mm` is 793.7), or null when it
 * is missing or relative (%, em).
 * @param {string} head
 * @param {'width' | 'height'} name
 */
function svgLength(head, name) {
  const m = new RegExp(`\\s${name}\\s*=\\s*(["'])\\s*(${NUM})\\s*([a-zA-Z%]*)\\s*\\1`).exec(head);
  if (!m) return null;
  const per = PX_PER[m[3].toLowerCase()];
  return per === undefined ? null : Number(m[2]) * per;
}

/**
 * Width and height of a PNG, JPEG or SVG page from its header. An SVG's size is its viewBox
 * (user units); without one, its width and height in CSS pixels, units converted.
 * @param {Buffer} data
 * @param {string} name
 * @returns {{ width: number, height: number } | null}
 */
export function imageSize(data, name) {
  if (name.toLowerCase().endsWith('.svg')) {
    const head = data.toString('utf8', 0, Math.min(data.length, 4096));
    const root = /<svg\b[^>]*>/i.exec(head)?.[0];
    if (!root) return null;
    const vb = VIEW_BOX.exec(root);
    if (vb) return { width: Number(vb[2]), height: Number(vb[3]) };
    const width = svgLength(root, 'width');
    const height = svgLength(root, 'height');
    return width !== null && height !== null ? { width, height } : null;
  }
  // PNG: the signature, then the IHDR chunk, whose data starts with width and height
  // (PNG spec, section 11.2.2; bytes 16..23).
  if (data.length >= 24 && data.subarray(0, 8).equals(PNG_SIGNATURE) && data.toString('latin1', 12, 16) === 'IHDR') {
    const width = data.readUInt32BE(16);
    const height = data.readUInt32BE(20);
    return width > 0 && height > 0 ? { width, height } : null;
  }
  if (data.length > 4 && data[0] === 0xff && data[1] === 0xd8) return jpegSize(data);
  return null;
}

/**
 * A JPEG's size from its start-of-frame segment (ITU T.81, B.1.1 and B.2.2): markers may be
 * preceded by any number of 0xFF fill bytes; standalone markers (TEM, RST0-7) have no length.
 * @param {Buffer} data  starting with SOI (FF D8)
 * @returns {{ width: number, height: number } | null}
 */
function jpegSize(data) {
  let i = 2;
  while (i < data.length) {
    if (data[i] !== 0xff) return null;
    while (i < data.length && data[i] === 0xff) i++;
    if (i >= data.length) return null;
    const marker = data[i++];
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    // End of image, or scan data before any frame header: no size to be had.
    if (marker === 0xd9 || marker === 0xda || i + 2 > data.length) return null;
    const len = data.readUInt16BE(i);
    if (len < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 7 > data.length) return null;
      return { width: data.readUInt16BE(i + 5), height: data.readUInt16BE(i + 3) };
    }
    i += len;
  }
  return null;
}
