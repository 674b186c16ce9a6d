import { describe, it, expect } from 'vitest';
import { PNG } from 'pngjs';
import { encodePng, readPpm } from '../../../../server/package/pdf/png-worker.js';

/**
 * A PPM as pdftoppm writes it: width x height, every pixel from `pixel(x, y)`.
 * @param {number} width @param {number} height @param {(x: number, y: number) => number[]} pixel
 */
function ppm(width, height, pixel) {
  const head = Buffer.from(`P6\n${width} ${height}\n255\n`, 'latin1');
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set(pixel(x, y), (y * width + x) * 3);
  return Buffer.concat([head, rgb]);
}

describe("a page's PPM into a PNG", () => {
  it('writes a grey page with one channel, every pixel kept', () => {
    const image = readPpm(ppm(40, 30, (x, y) => (x === y ? [0, 0, 0] : [255 - x, 255 - x, 255 - x])));
    expect(image).toMatchObject({ width: 40, height: 30 });
    const png = encodePng(/** @type {NonNullable<typeof image>} */ (image));
    expect(png.readUInt8(25)).toBe(0); // IHDR colour type: greyscale
    const back = PNG.sync.read(png);
    expect([back.width, back.height]).toEqual([40, 30]);
    expect([...back.data.subarray(0, 4)]).toEqual([0, 0, 0, 255]);
    expect([...back.data.subarray(4, 8)]).toEqual([254, 254, 254, 255]);
  });

  it('keeps the colour of a page that has some', () => {
    const image = readPpm(ppm(20, 10, (x, y) => (x === 5 && y === 5 ? [200, 0, 0] : [255, 255, 255])));
    const png = encodePng(/** @type {NonNullable<typeof image>} */ (image));
    expect(png.readUInt8(25)).toBe(2); // truecolour
    const back = PNG.sync.read(png);
    expect([...back.data.subarray((5 * 20 + 5) * 4, (5 * 20 + 5) * 4 + 3)]).toEqual([200, 0, 0]);
  });

  it('refuses what is not a whole 8-bit PPM', () => {
    expect(readPpm(Buffer.from('P5\n2 2\n255\n\0\0\0\0', 'latin1'))).toBeNull();
    expect(readPpm(ppm(4, 4, () => [1, 2, 3]).subarray(0, 30))).toBeNull();
  });
});
