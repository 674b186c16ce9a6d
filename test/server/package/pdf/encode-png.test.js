import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { drawAndEncode } from '../../../../server/package/pdf/encode-png.js';
import { closePdfHelper } from '../../../../server/package/pdf/helper.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sc-encode-png-'));
afterAll(async () => {
  await closePdfHelper();
  rmSync(tmp, { recursive: true, force: true });
});

/** A grey PPM as pdftoppm writes it. */
const ppm = (/** @type {number} */ width, /** @type {number} */ height) =>
  Buffer.concat([Buffer.from(`P6\n${width} ${height}\n255\n`, 'latin1'), Buffer.alloc(width * height * 3, 200)]);

/** pid, state letter and session of each running child of this process whose command line has `part`. */
function childrenWith(/** @type {string} */ part) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== process.pid || f[0] === 'Z') continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(part))
        found.push({ pid: Number(pid), session: Number(f[3]) });
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const ownSession = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
};

describe("the pages' PNG encoder", () => {
  it('encodes each page drawn, in the helper process (a session of its own), which ends with the helper', async () => {
    const dir = path.join(tmp, 'pages');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const { result, failed, sizes } = await drawAndEncode(
      dir,
      'r',
      (n) => `page-${n}.png`,
      async () => {
        writeFileSync(path.join(dir, 'r-1.ppm'), ppm(30, 20));
        writeFileSync(path.join(dir, 'r-2.ppm'), ppm(40, 10));
        return 'drawn';
      },
    );
    expect(result).toBe('drawn');
    expect(failed).toEqual([]);
    expect(Object.fromEntries(sizes)).toEqual({ 1: { width: 30, height: 20 }, 2: { width: 40, height: 10 } });
    const png = PNG.sync.read(readFileSync(path.join(dir, 'page-2.png')));
    expect([png.width, png.height]).toEqual([40, 10]);
    expect(existsSync(path.join(dir, 'r-1.ppm'))).toBe(false);

    const encoders = childrenWith('helper-process.js');
    expect(encoders).toHaveLength(1);
    expect(encoders[0].session).toBe(encoders[0].pid);
    expect(encoders[0].session).not.toBe(ownSession());

    await closePdfHelper();
    for (let t = 0; t < 10_000 && childrenWith('helper-process.js').length > 0; t += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(childrenWith('helper-process.js')).toEqual([]);
  });
});
