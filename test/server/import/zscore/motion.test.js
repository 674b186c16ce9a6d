// The motion of ZScore's audience page as audience state (server/import/zscore/motion.js).
import { describe, it, expect } from 'vitest';
import { motionOf, readMotion } from '../../../../server/import/zscore/motion.js';

/**
 * A web call on a beat, as the cue reader gives them.
 * @param {number} at @param {string} method @param {unknown[]} args
 * @returns {import('../../../../server/import/zscore/cues.js').TimedCall}
 */
const call = (at, method, args) => ({
  at,
  kind: 'web',
  method,
  args,
  text: `webScore.${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`,
  source: `S_BeatInfo.csv line ${at + 2}`,
});

describe('import-zscore: the motion of the audience page', () => {
  it("names the rings each of ZScore's zoom levels shows; outerCircle and unknown names show the whole rose", () => {
    const zoom = (/** @type {string} */ name) => {
      const m = motionOf({ method: 'setZoomLevel', args: [name], at: 0 }, 8);
      return m && 'set' in m ? m.set : m;
    };
    expect(zoom('centreSmall')).toEqual({ layout: { zoom: 1 } });
    expect(zoom('centreShape')).toEqual({ layout: { zoom: 2 } });
    expect(zoom('innerCircleSmall')).toEqual({ layout: { zoom: 4 } });
    expect(zoom('innerCircle')).toEqual({ layout: { zoom: 5 } });
    expect(zoom('outerCircleSmall')).toEqual({ layout: { zoom: 6 } });
    expect(zoom('outerCircle')).toEqual({ layout: { zoom: 8 } });
    expect(zoom('somewhere')).toEqual({ layout: { zoom: 8 } });
    // a rose of three rings cannot zoom past its last
    const small = motionOf({ method: 'setZoomLevel', args: ['innerCircle'], at: 0 }, 3);
    expect(small && 'set' in small && small.set).toEqual({ layout: { zoom: 3 } });
  });

  it('starts a score that fades the disc with the disc dark (as ZScore loads), then fades it on its beats', () => {
    const r = readMotion(
      [
        call(1, 'setZoomLevel', ['centreSmall']),
        call(3, 'setStageAlpha', [0, 8]),
        call(20, 'setZoomLevel', ['innerCircle']),
        call(40, 'setStageAlpha', [1, 30]),
      ],
      8,
    );
    // each fade and each zoom after the first says where it starts and on which beat, so that a
    // phone landing in it (a seek, a restart) shows it where it is
    expect(r.cues).toEqual([
      { at: 0, set: { stage: { alpha: 1, glide: 0 } } },
      { at: 1, set: { layout: { zoom: 1 } } },
      { at: 3, set: { stage: { alpha: 0, glide: 8000, from: 1, at: 3 } } },
      { at: 20, set: { layout: { zoom: 5, zoomFrom: 1, zoomAt: 20 } } },
      { at: 40, set: { stage: { alpha: 1, glide: 30000, from: 0, at: 40 } } },
    ]);
    expect(r.converted).toHaveLength(4);
    expect(r.consumed).toHaveLength(4);
    expect(r.skipped).toEqual([]);
  });

  it("swings the rings a ROTATE action names (ctg<ring>), told apart by the beat; lists other actions with ZScore's reason", () => {
    const r = readMotion(
      [
        call(2, 'setAction', ['start', 'ROTATE', ['ctg2', 'ctg1']]),
        call(5, 'setAction', ['start', 'TIMELINE', ['centreShape'], { duration: 192 }]),
        call(6, 'setAction', ['display', 'ACTIVATE', ['selectedTiles'], { duration: 36 }]),
        call(7, 'setAction', ['start', 'ROTATE', ['t1-1']]),
        call(8, 'setStageAlpha', [3]),
      ],
      8,
    );
    // ZScore's closing picture of the selected tiles: flown in over its duration
    expect(r.cues).toEqual([
      { at: 2, set: { spin: { rings: [1, 2], at: 2 } } },
      { at: 6, set: { showSelected: { at: 6, ms: 36000 } } },
    ]);
    expect(r.skipped.map((i) => i.reason)).toEqual([
      expect.stringMatching(
        /ZScore's own drawings over the rose \(centreShape, .*not a file of the export, and the export names no file for it/,
      ),
      expect.stringMatching(/only setAction\('start', 'ROTATE'/),
      expect.stringMatching(/opacity from 0 to 1/),
    ]);
    // every motion call is accounted for once: converted here or listed here with its own reason
    expect(r.consumed).toHaveLength(5);
  });

  it('converts nothing when the tiles are not drawn as a rose (no rings to zoom on)', () => {
    expect(readMotion([call(1, 'setZoomLevel', ['centreSmall'])], 0)).toEqual({
      cues: [],
      converted: [],
      consumed: [],
      skipped: [],
    });
  });
});
