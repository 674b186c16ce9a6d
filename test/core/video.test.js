import { describe, it, expect } from 'vitest';
import { checkVideo, judgeVideo, msAtBeat } from '../../core/video.js';
import { isSafeRelativePath } from '../../core/manifest.js';
import { createTempoMap } from '../../core/tempo-map.js';

const parts = [{ id: 'violin' }, { id: 'cello' }];

/** @param {unknown} raw */
function check(raw) {
  /** @type {{ field: string, message: string }[]} */
  const problems = [];
  const value = checkVideo(raw, {
    parts,
    safePath: isSafeRelativePath,
    problem: (field, message) => problems.push({ field, message }),
  });
  return { value, problems };
}

describe('video: in score.yaml', () => {
  it('spreads `all` over the parts without a video of their own, never over the score view', () => {
    const { value, problems } = check({ all: { file: 'v/guide.webm' }, cello: { file: 'v/cello.mp4', start: 2.5 } });
    expect(problems).toEqual([]);
    expect(value).toEqual({ violin: { file: 'v/guide.webm', start: 0 }, cello: { file: 'v/cello.mp4', start: 2.5 } });
  });

  it('takes a file name alone, and names the field of every mistake', () => {
    expect(check({ score: 'full.webm' }).value).toEqual({ score: { file: 'full.webm', start: 0 } });
    const { problems } = check({
      viola: 'a.webm',
      violin: { file: '../x.webm' },
      cello: { file: 'c.webm', start: -1 },
    });
    expect(problems.map((p) => p.field)).toEqual(['video.viola', 'video.violin.file', 'video.cello.start']);
    expect(problems[0].message).toMatch(/not a score or part view \(all, score, violin, cello\)/);
    expect(check(['a.webm']).problems[0].field).toBe('video');
  });

  it('is absent: null', () => {
    expect(check(undefined)).toEqual({ value: null, problems: [] });
  });
});

describe('what browsers play', () => {
  const limits = { maxPixels: 3840 * 2160 };
  /** @param {Partial<import('../../core/video.js').VideoProbe>} p */
  const probe = (p) => ({ container: 'webm', tracks: [], width: 640, height: 360, duration: 10, ...p });
  const vp9 = { kind: /** @type {const} */ ('video'), codec: 'V_VP9' };
  const opus = { kind: /** @type {const} */ ('audio'), codec: 'A_OPUS' };

  it('takes WebM with VP9 and Opus, and MP4 with H.264 and AAC, with or without sound', () => {
    expect(judgeVideo(probe({ tracks: [vp9, opus] }), limits)).toEqual({ ok: true, type: 'video/webm' });
    expect(judgeVideo(probe({ tracks: [vp9] }), limits)).toEqual({ ok: true, type: 'video/webm' });
    const mp4 = probe({
      container: 'mp4',
      tracks: [
        { kind: 'video', codec: 'avc1' },
        { kind: 'audio', codec: 'mp4a' },
      ],
    });
    expect(judgeVideo(mp4, limits)).toEqual({ ok: true, type: 'video/mp4' });
  });

  it('refuses other containers, codecs some browsers lack, no video, and frames past the bound, saying how to fix it', () => {
    const cases = [
      [probe({ container: 'mkv', tracks: [vp9] }), /is a Matroska \(\.mkv\) file .*ffmpeg/],
      [probe({ container: 'mov', tracks: [{ kind: 'video', codec: 'avc1' }] }), /is a QuickTime \(\.mov\) file/],
      [probe({ container: null }), /not a video file browsers play/],
      [
        probe({ container: 'mp4', tracks: [{ kind: 'video', codec: 'hvc1' }] }),
        /has video hvc1, which not every browser plays in MP4/,
      ],
      [probe({ container: 'mp4', tracks: [{ kind: 'video', codec: 'vp09' }] }), /has video vp09/],
      [probe({ tracks: [vp9, { kind: 'audio', codec: 'A_AAC' }] }), /has audio A_AAC/],
      [probe({ tracks: [opus] }), /has no video track/],
      [probe({ tracks: [vp9], width: 7680, height: 4320 }), /7680 x 4320, more than the 8,294,400 pixels/],
    ];
    for (const [p, reason] of cases) {
      const judged = judgeVideo(/** @type {any} */ (p), limits);
      expect(judged.ok).toBe(false);
      if (!judged.ok) expect(judged.reason).toMatch(/** @type {RegExp} */ (reason));
    }
  });
});

describe('the score time of a beat', () => {
  it('agrees with the tempo map, across tempo changes and within a beat', () => {
    const map = createTempoMap({
      bars: 8,
      changes: [
        { bar: 1, time: [4, 4], tempo: 120 },
        { bar: 3, tempo: 60 },
        { bar: 5, beat: 3, tempo: 90 },
      ],
    });
    for (const b of [0, 1.5, 7.99, 8, 12.25, 17, 18.5, 31])
      expect(msAtBeat(map.segments, b)).toBeCloseTo(map.timeAt(b), 9);
  });
});
