// The load's video step (load.js): every video a view names is opened inside the package, its
// container read from its first bytes (file-type: the magic numbers, never the file's name) and
// its tracks' codecs from its headers (music-metadata reads the MP4 boxes and the WebM elements
// it needs, by range, never the whole file), judged by core/video.js, and served at a
// content-hashed URL with byte ranges (server/http/send-served.js) like every package file.

import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { parseFile } from 'music-metadata';
import { PACKAGE_LIMITS as LIMITS, formatBytes } from '../../core/package-limits.js';
import { judgeVideo } from '../../core/video.js';

/** Bytes read for the magic numbers (file-type reads at most 4,100 for the containers here). */
const HEAD_BYTES = 4100;
/** A header that takes longer than this to read is refused (a valid one takes milliseconds). */
const PROBE_MS = 10_000;

/**
 * @typedef {object} VideoView  what a video part's page is given (`/api/score/views/<view>`)
 * @property {{ url: string, type: string, width: number | null, height: number | null, duration: number | null, start: number }} video
 * @property {{ beat: number, ms: number, bpm: number }[]} tempo  the tempo map's segments: the
 *   score's time of any beat (core/video.js, msAtBeat)
 */

/**
 * Read, judge and serve the videos of the views; a problem for each that browsers cannot play.
 * @param {import('./load-context.js').LoadContext} context
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @returns {Promise<Record<string, VideoView>>}
 */
export async function serveVideos(context, model) {
  /** @type {Record<string, VideoView>} */
  const out = {};
  if (!model.video) return out;
  /** @type {Map<string, string[]>} */
  const byFile = new Map();
  for (const [view, spec] of Object.entries(model.video))
    byFile.set(spec.file, [...(byFile.get(spec.file) ?? []), view]);
  const tempo = model.map.segments.map((s) => ({ beat: s.beat, ms: s.ms, bpm: s.bpm }));
  for (const [file, views] of byFile) {
    const served = await serveOne(context, model.id, file, views);
    if (!served) continue;
    for (const view of views)
      out[view] = { video: { ...served, start: /** @type {any} */ (model.video)[view].start }, tempo };
    if (served.duration !== null) {
      const end =
        Math.max(...views.map((v) => /** @type {any} */ (model.video)[v].start)) + model.map.durationMs / 1000;
      if (served.duration + 0.5 < end)
        context.warnings.push(
          `${file} (video.${views.join(', video.')}): is ${served.duration.toFixed(1)} s long, shorter than the score (${end.toFixed(1)} s with its start); its last frame stays on screen to the end`,
        );
    }
  }
  return out;
}

/**
 * @param {import('./load-context.js').LoadContext} context
 * @param {string} scoreId
 * @param {string} file
 * @param {string[]} views
 */
async function serveOne(context, scoreId, file, views) {
  const field = `video.${views[0]}.file`;
  const opened = await context.openPackageFile(file, field, LIMITS.videoBytes);
  if (!opened) {
    const last = context.problems[context.problems.length - 1];
    if (typeof last === 'object' && last.field === field && last.message.includes(formatBytes(LIMITS.videoBytes))) {
      context.refusal = 'SC_ERR_SCORE_VIDEO';
      last.message += '; encode it at a lower bitrate (a 720p guide needs about 1.5 Mbit/s)';
    }
    return null;
  }
  const refuse = (/** @type {string} */ reason) => {
    if (context.refusal === 'SC_ERR_SCORE_INVALID') context.refusal = 'SC_ERR_SCORE_VIDEO';
    context.problems.push(`${file} (${views.map((v) => `video.${v}`).join(', ')}): ${reason}`);
    return null;
  };
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, opened.size));
    await opened.handle.read(head, 0, head.length, 0);
    const kind = await fileTypeFromBuffer(head);
    const container = kind ? containerOf(kind.ext, kind.mime) : null;
    /** @type {import('../../core/video.js').VideoProbe} */
    let probe = { container, tracks: [], width: null, height: null, duration: null };
    if (container === 'mp4' || container === 'webm') {
      const read = await withTimeout(parseFile(opened.real, { duration: false, skipCovers: true }), PROBE_MS);
      if (!read) return refuse(`its headers could not be read within ${PROBE_MS / 1000} s; encode it again`);
      probe = { ...probe, ...tracksOf(read.format) };
    }
    const judged = judgeVideo(probe, { maxPixels: LIMITS.videoPixels });
    if (!judged.ok) return refuse(judged.reason);
    const hash = await hashStream(opened.handle);
    const url = `/scores/${scoreId}/${hash}/${file}`;
    context.files.set(url, {
      file: opened.real,
      root: context.root,
      type: judged.type,
      etag: hash,
      size: opened.size,
      mtimeMs: opened.mtimeMs,
    });
    return { url, type: judged.type, width: probe.width, height: probe.height, duration: probe.duration };
  } catch (err) {
    return refuse(
      `cannot be read as a video (${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'}); encode it again`,
    );
  } finally {
    await opened.handle.close().catch(() => {});
  }
}

/**
 * The container file-type named, as core/video.js knows it: MP4 only for ISO brands browsers
 * take (a QuickTime .mov has its own brand and answers 'mov').
 * @param {string} ext
 * @param {string} mime
 */
function containerOf(ext, mime) {
  if (ext === 'mp4' || ext === 'm4v') return 'mp4';
  if (ext === 'webm') return 'webm';
  if (mime.startsWith('video/') || mime.startsWith('audio/')) return ext;
  return null;
}

/**
 * The tracks music-metadata found: Matroska's CodecID ("V_VP9", "A_OPUS") or the MP4 sample
 * entry ("avc1", "mp4a").
 * @param {import('music-metadata').IFormat} format
 * @returns {Pick<import('../../core/video.js').VideoProbe, 'tracks' | 'width' | 'height' | 'duration'>}
 */
function tracksOf(format) {
  /** @type {import('../../core/video.js').VideoProbe['tracks']} */
  const tracks = [];
  let width = null;
  let height = null;
  for (const t of format.trackInfo ?? []) {
    // Matroska's track types: 1 video, 2 audio; MP4's tracks carry `video` or `audio`.
    const kind = t.video || t.type === 1 ? 'video' : t.audio || t.type === 2 ? 'audio' : 'other';
    tracks.push({ kind, codec: String(t.codecId ?? t.codecName ?? '?') });
    if (kind === 'video' && t.video && width === null) {
      width = t.video.pixelWidth ?? null;
      height = t.video.pixelHeight ?? null;
    }
  }
  const duration = typeof format.duration === 'number' && Number.isFinite(format.duration) ? format.duration : null;
  return { tracks, width, height, duration };
}

/**
 * @template T
 * @param {Promise<T>} p
 * @param {number} ms
 * @returns {Promise<T | null>}
 */
async function withTimeout(p, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return /** @type {T | null} */ (await Promise.race([p, late]));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Hash an opened file as it streams (a video may be hundreds of MB: it is never held whole).
 * @param {import('node:fs/promises').FileHandle} handle
 */
async function hashStream(handle) {
  const hash = createHash('sha256');
  for await (const chunk of handle.createReadStream({ start: 0, highWaterMark: 1024 * 1024, autoClose: false }))
    hash.update(chunk);
  return hash.digest('hex').slice(0, 16);
}
