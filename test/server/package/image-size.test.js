import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { imageSize } from '../../../server/package/image-size.js';

/**
 * A minimal JPEG header: SOI, an APP0 segment, optional fill bytes, then a baseline SOF0.
 * @param {{ width: number, height: number, fill?: number }} options
 */
function jpeg({ width, height, fill = 0 }) {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]);
  // Fill bytes (0xFF) may precede any marker (ITU T.81, B.1.1.2).
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, Buffer.alloc(fill, 0xff), sof, Buffer.from([0xff, 0xd9])]);
}

/** A PNG with an IHDR and an empty image. @param {number} width @param {number} height */
function png(width, height) {
  const chunk = (/** @type {string} */ type, /** @type {Buffer} */ data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(height * (width + 1)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const svg = (/** @type {string} */ attrs) =>
  Buffer.from(
    `<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" ${attrs}><rect width="1" height="1"/></svg>`,
  );

describe('page image sizes', () => {
  it('PNG and JPEG from their headers, JPEG fill bytes included', () => {
    expect(imageSize(png(640, 480), 'p.png')).toEqual({ width: 640, height: 480 });
    expect(imageSize(jpeg({ width: 1240, height: 1754 }), 'p.jpg')).toEqual({ width: 1240, height: 1754 });
    expect(imageSize(jpeg({ width: 1240, height: 1754, fill: 3 }), 'p.jpg')).toEqual({ width: 1240, height: 1754 });
  });

  it('an SVG in its user units: the viewBox, in double or single quotes', () => {
    expect(imageSize(svg('viewBox="0 0 2100 2970"'), 'p.svg')).toEqual({ width: 2100, height: 2970 });
    expect(imageSize(svg("viewBox='0 0 2100 2970'"), 'p.svg')).toEqual({ width: 2100, height: 2970 });
    expect(imageSize(svg('width="210mm" height="297mm" viewBox="0,0,2100,2970"'), 'p.svg')).toEqual({
      width: 2100,
      height: 2970,
    });
  });

  it('an SVG without a viewBox: its width and height in CSS pixels, units converted', () => {
    expect(imageSize(svg('width="210mm" height="297mm"'), 'p.svg')).toEqual({
      width: (210 * 96) / 25.4,
      height: (297 * 96) / 25.4,
    });
    expect(imageSize(svg("width='12.5' height='8pt'"), 'p.svg')).toEqual({ width: 12.5, height: (8 * 96) / 72 });
    expect(imageSize(svg('width="100%" height="100%"'), 'p.svg')).toBeNull();
    expect(imageSize(svg('width="800" height="600"'), 'p.svg')).toEqual({ width: 800, height: 600 });
  });

  it('absurd sizes come back as written, for the loader to refuse', () => {
    expect(imageSize(svg('viewBox="0 0 1e308 10"'), 'p.svg')).toEqual({ width: 1e308, height: 10 });
  });

  it('nothing for what is not a page image, or is not what its name says', () => {
    expect(imageSize(Buffer.from('not an image'), 'p.png')).toBeNull();
    expect(imageSize(svg(''), 'p.svg')).toBeNull();
    expect(imageSize(png(10, 10), 'p.svg')).toBeNull();
    expect(imageSize(svg('viewBox="0 0 10 10"'), 'p.png')).toBeNull();
    expect(imageSize(Buffer.alloc(0), 'p.jpg')).toBeNull();
    // A JPEG cut before its frame header, or whose scan starts before one.
    expect(imageSize(jpeg({ width: 10, height: 10 }).subarray(0, 24), 'p.jpg')).toBeNull();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0, 0, 0]), 'p.jpg')).toBeNull();
  });
});
