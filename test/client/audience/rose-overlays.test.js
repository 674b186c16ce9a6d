// What ZScore's rose page draws over its tiles (client/src/audience/rose-overlays.js): the playing tiles'
// fade and play line, and the closing picture of the tiles a phone selected.
import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import {
  drawPicture,
  drawPlaying,
  flyFrom,
  pictureLines,
  pictureTiles,
  playingOf,
  showSelectedOf,
} from '../../../client/src/audience/rose-overlays.js';
import { drawRose } from '../../../client/src/audience/rose.js';

const layout = { rings: 8, slices: 8 };

/** @param {{ id: string, state: string, text: string }[]} tiles */
function rose(tiles) {
  const { document } = new JSDOM('<div id="box"></div>').window;
  const box = /** @type {HTMLElement} */ (document.getElementById('box'));
  drawRose(box, layout, tiles, null, { window: '', tile: '' });
  return /** @type {SVGElement} */ (/** @type {unknown} */ (box.querySelector('svg.rose')));
}

describe('over the rose: playing tiles and the closing picture', () => {
  it('reads playing and showSelected from the cue, nothing else', () => {
    expect(playingOf({ playing: { at: 17, fade: 9600, sweep: 11250 } })).toEqual({ at: 17, fade: 9600, sweep: 11250 });
    expect(playingOf({ playing: { fade: 0 } })).toBeNull();
    expect(playingOf({ playing: 'x' })).toBeNull();
    expect(playingOf({})).toBeNull();
    expect(showSelectedOf({ showSelected: { at: 770, ms: 36000 } })).toEqual({ at: 770, ms: 36000 });
    expect(showSelectedOf({ showSelected: null })).toBeNull();
    expect(showSelectedOf({ showSelected: { ms: 'long' } })).toEqual({ at: null, ms: 0 });
  });

  it("the picture takes a phone's last choice in each ring, innermost first, and joins them ring to ring and back", () => {
    expect(pictureTiles(['t2-3', 't1-1', 't2-5', 't9-1', 'centreShape', 't4-8'], layout)).toEqual([
      't1-1',
      't2-5',
      't4-8',
    ]);
    const d = pictureLines(['t1-1', 't2-5', 't4-8'], layout);
    // two joins between rings, one from the last back to the first
    expect(d.match(/M /g)).toHaveLength(3);
    expect(pictureLines(['t1-1'], layout)).toBe('');
  });

  it('each piece flies in from beyond the rose in its own direction, the same way at every redraw', () => {
    const a = flyFrom('t1-1', [0, -15]);
    expect(flyFrom('t1-1', [0, -15])).toBe(a);
    expect(flyFrom('t2-5', [20, 20])).not.toBe(a);
    // t1-1 is above the centre: it comes from far above
    const [, dy] = /** @type {RegExpMatchArray} */ (/translate\(([-\d.]+)px, ([-\d.]+)px\)/.exec(a))
      .slice(1)
      .map(Number);
    expect(dy).toBeLessThan(-200);
    expect(a).toMatch(/scale\((\d+)\)/);
  });

  it('draws the outlines and lines of the picture over the rose; the playing tile fades out and its line sweeps', () => {
    const svg = rose([
      { id: 't1-1', state: 'played', text: 'hope' },
      { id: 't2-5', state: 'playing', text: 'fear' },
    ]);
    expect(drawPicture(svg, ['t1-1', 't2-5'], { ms: 4000 }, 10_000, layout, false)).toEqual(['t1-1', 't2-5']);
    expect(
      [...svg.querySelectorAll('.rose-picture-tile')].map((p) => /** @type {SVGElement} */ (p).dataset.tile),
    ).toEqual(['t1-1', 't2-5']);
    expect(svg.querySelectorAll('.rose-picture-lines')).toHaveLength(1);
    // long after the fade began the playing tile is gone, and the sweep is over
    drawPlaying(svg, { fade: 9600, sweep: 11250 }, 20_000, layout, false);
    expect(svg.querySelector('g.tile[data-tile="t2-5"]')?.getAttribute('opacity')).toBe('0');
    expect(svg.querySelectorAll('.rose-playline')).toHaveLength(0);
  });

  it('a play line sweeps the playing tile while the page plays, not with reduced motion', () => {
    const tiles = [{ id: 't2-5', state: 'playing', text: 'fear' }];
    const moving = rose(tiles);
    drawPlaying(moving, { fade: 9600, sweep: 11250 }, 2000, layout, false);
    const line = moving.querySelector('.rose-playline');
    expect(line?.getAttribute('data-tile')).toBe('t2-5');
    // the line lies on the tile's start edge (slice 5 starts at six o'clock: x = 0, below the centre)
    expect(Number(line?.getAttribute('x1'))).toBeCloseTo(0);
    expect(Number(line?.getAttribute('y2'))).toBeGreaterThan(Number(line?.getAttribute('y1')));
    const still = rose(tiles);
    drawPlaying(still, { fade: 9600, sweep: 11250 }, 2000, layout, true);
    expect(still.querySelectorAll('.rose-playline')).toHaveLength(0);
  });
});
