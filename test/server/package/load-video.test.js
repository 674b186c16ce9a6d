// Video parts at load: files made here by ffmpeg (test/setup/ensure-deps.sh installs it) in each
// container and codec, judged by their bytes whatever their names; a refused video leaves a
// running server playing the score it has.

import path from 'node:path';
import os from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { describe, it, expect, beforeAll } from 'vitest';
import { loadPackage } from '../../../server/package/load.js';
import { buildApp } from '../../../server/app.js';
import { PACKAGE_LIMITS } from '../../../core/package-limits.js';

const run = promisify(execFile);
const CACHE = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
const MEDIA = mkdtempSync(path.join(os.tmpdir(), 'sc-video-'));
const TOKEN = 'video-token-12345';

/**
 * A 2 s test picture (and a tone) encoded by ffmpeg.
 * @param {string} name
 * @param {string[]} codecs  ffmpeg's output options
 */
async function make(name, codecs) {
  const out = path.join(MEDIA, name);
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=25:duration=2'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'],
    ...codecs,
    out,
  ]);
  return out;
}

beforeAll(async () => {
  await Promise.all([
    make('vp9-opus.webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-c:a', 'libopus']),
    make('h264-aac.mp4', ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac']),
    make('h264-aac.mkv', ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac']),
    make('vp9-in.mp4', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-an']),
    make('h264-aac.mov', ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac']),
  ]);
}, 60_000);

/** @param {Record<string, string | Buffer>} videos  package path -> a file of MEDIA, or bytes */
function videoPackage(videos, spec = '  all: { file: video.webm }\n') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-pkg-'));
  writeFileSync(
    path.join(dir, 'score.yaml'),
    `id: v\ntitle: V\nparts:\n  - { id: violin }\n  - { id: cello }\nbars: 2\nmeter:\n  - { bar: 1, time: 4/4, tempo: 120 }\nvideo:\n${spec}`,
  );
  for (const [rel, from] of Object.entries(videos)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    if (typeof from === 'string') copyFileSync(path.join(MEDIA, from), path.join(dir, rel));
    else writeFileSync(path.join(dir, rel), from);
  }
  return dir;
}

/** @param {string} dir */
const refusal = (dir) =>
  loadPackage(dir, { cacheDir: CACHE }).then(
    () => ({ code: 'loaded', message: '' }),
    (/** @type {any} */ err) => ({ code: err.code, message: String(err.message) }),
  );

describe('video parts', () => {
  it('serves a WebM (VP9, Opus) and an MP4 (H.264, AAC) at hashed URLs, with their size, length and the tempo map', async () => {
    const dir = videoPackage(
      { 'video.webm': 'vp9-opus.webm', 'cello.mp4': 'h264-aac.mp4' },
      '  all: { file: video.webm }\n  cello: { file: cello.mp4, start: 1.5 }\n',
    );
    const loaded = await loadPackage(dir, { cacheDir: CACHE });
    expect(Object.keys(loaded.videos).sort()).toEqual(['cello', 'violin']);
    const violin = loaded.videos.violin;
    expect(violin.video).toMatchObject({ type: 'video/webm', width: 160, height: 90, start: 0 });
    expect(violin.video.duration).toBeCloseTo(2, 0);
    expect(violin.video.url).toMatch(/^\/scores\/v\/[0-9a-f]{16}\/video\.webm$/);
    expect(violin.tempo).toEqual([{ beat: 0, ms: 0, bpm: 120 }]);
    expect(loaded.videos.cello.video).toMatchObject({ type: 'video/mp4', start: 1.5 });
    expect(loaded.files.get(violin.video.url)).toMatchObject({ type: 'video/webm' });
    expect(loaded.files.get(loaded.videos.cello.video.url)).toMatchObject({ type: 'video/mp4' });
    // 4 s of score on 2 s videos, the cello's from 1.5 s into it: they end first, and the load says so.
    expect([...loaded.warnings].sort()).toEqual([
      expect.stringMatching(
        /^cello\.mp4 \(video\.cello\): is 2\.0 s long, shorter than the score \(5\.5 s with its start\); its last frame stays/,
      ),
      expect.stringMatching(/^video\.webm \(video\.violin\): is 2\.0 s long, shorter than the score \(4\.0 s/),
    ]);
  });

  it('judges a file by its bytes, not its name: Matroska, QuickTime, VP9 in MP4 and text are refused naming the file, the view and the fix', async () => {
    const cases = [
      [
        { 'video.webm': 'h264-aac.mkv' },
        /video\.webm \(video\.violin, video\.cello\): is a Matroska \(\.mkv\) file .*ffmpeg -i in -c:v libx264/,
      ],
      [{ 'video.webm': 'h264-aac.mov' }, /is a QuickTime \(\.mov\) file/],
      [{ 'video.webm': 'vp9-in.mp4' }, /has video vp09, which not every browser plays in MP4/],
      [{ 'video.webm': Buffer.from('not a video at all\n') }, /is not a video file browsers play/],
      [{}, /video\.all\.file|video\.violin\.file: video\.webm does not exist/],
    ];
    for (const [files, message] of cases) {
      const r = await refusal(videoPackage(/** @type {any} */ (files)));
      expect(r.message).toMatch(/** @type {RegExp} */ (message));
      if (Object.keys(/** @type {object} */ (files)).length > 0) expect(r.code).toBe('SC_ERR_SCORE_VIDEO');
    }
  });

  it('refuses a video past its size unread, naming the bound', async () => {
    const dir = videoPackage({ 'video.webm': 'vp9-opus.webm' });
    truncateSync(path.join(dir, 'video.webm'), PACKAGE_LIMITS.videoBytes + 1);
    const r = await refusal(dir);
    expect(r.code).toBe('SC_ERR_SCORE_VIDEO');
    expect(r.message).toMatch(/video\.webm .*512 MiB.*lower bitrate/);
  });

  it('a bad video on reload keeps the server playing the score it has, and serving its video with byte ranges', async () => {
    const dir = videoPackage({ 'video.webm': 'vp9-opus.webm' });
    const built = await buildApp({ score: await loadPackage(dir, { cacheDir: CACHE }), token: TOKEN, cacheDir: CACHE });
    const { app } = built;
    try {
      const view = (await app.inject({ url: '/api/score/views/violin' })).json();
      copyFileSync(path.join(MEDIA, 'h264-aac.mkv'), path.join(dir, 'video.webm'));
      const res = await app.inject({
        method: 'POST',
        url: '/api/reload',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'SC_ERR_SCORE_VIDEO' });
      expect(res.json().message).toMatch(/video\.webm \(video\.violin, video\.cello\): is a Matroska \(\.mkv\) file/);
      const part = await app.inject({ url: view.video.url, headers: { range: 'bytes=0-3' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-type']).toBe('video/webm');
      // The WebM's EBML magic number, from the copy the server read at load.
      expect([...part.rawPayload]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    } finally {
      await app.close();
    }
  });
});
