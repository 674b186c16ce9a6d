// Page image sizes from file headers, without an image library: PNG, JPEG and SVG. The sizes
// are as the file says (NaN, zero or absurd included): the package loader bounds them.

/** An SVG number, exponent included ("1e308" is read whole, for the bounds to refuse). */
const NUM = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Width and height of a PNG, JPEG or SVG page from its header.
 * @param {Buffer} data
 * @param {string} name
 * @returns {{ width: number, height: number } | null}
 */
export function imageSize(data, name) {
  // PNG: the signature, then the IHDR chunk, whose data starts with width and height
  // (PNG spec, section 11.2.2; bytes 16..23).
  if (data.length >= 24 && data.subarray(0, 8).equals(PNG_SIGNATURE) && data.toString('latin1', 12, 16) === 'IHDR') {
    const width = data.readUInt32BE(16);
    const height = data.readUInt32BE(20);
    return width > 0 && height > 0 ? { width, height } : null;
  }
  if (data.length > 4 && data[0] === 0xff && data[1] === 0xd8) {
    // JPEG: walk the segments to a start-of-frame marker.
    let i = 2;
    while (i + 9 < data.length) {
      if (data[i] !== 0xff) return null;
      const marker = data[i + 1];
      const len = data.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { width: data.readUInt16BE(i + 7), height: data.readUInt16BE(i + 5) };
      }
      i += 2 + len;
    }
    return null;
  }
  if (name.toLowerCase().endsWith('.svg')) {
    const head = data.toString('utf8', 0, Math.min(data.length, 4096));
    const vb = new RegExp(`viewBox\\s*=\\s*"\\s*${NUM}[\\s,]+${NUM}[\\s,]+(${NUM})[\\s,]+(${NUM})\\s*"`).exec(head);
    if (vb) return { width: Number(vb[1]), height: Number(vb[2]) };
    const w = new RegExp(`\\swidth\\s*=\\s*"(${NUM})`).exec(head);
    const h = new RegExp(`\\sheight\\s*=\\s*"(${NUM})`).exec(head);
    if (w && h) return { width: Number(w[1]), height: Number(h[1]) };
  }
  return null;
}
