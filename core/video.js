// Video parts: a view whose content is a video kept in step with the performance
// (doc/score-format.md, "Video parts"). `video:` in score.yaml maps a view (a part id, `score`,
// or `all` for every part without its own) to a file and the video's second at the score's first
// beat. What the browsers play is decided here, pure, from what the server read of the file
// (server/package/load-video.js): the container by its magic bytes and the codecs of its tracks.

import { isObject } from './values.js';

/** The key of `video:` that gives every part view without its own video the same one. */
export const VIDEO_FOR_ALL = 'all';

/**
 * What every current browser plays, Safari on iPhones included (caniuse, "WebM" and "MPEG-4/H.264"):
 * MP4 with H.264 and AAC, and WebM with VP9 (or VP8) and Opus (or Vorbis). H.265 and AV1 play in
 * some browsers only; Matroska (.mkv), QuickTime (.mov), AVI and MPEG-TS in few or none.
 */
export const VIDEO_FORMATS = Object.freeze({
  mp4: { type: 'video/mp4', video: ['avc1', 'avc3'], audio: ['mp4a'] },
  webm: { type: 'video/webm', video: ['V_VP9', 'V_VP8'], audio: ['A_OPUS', 'A_VORBIS'] },
});

/** What a refusal calls the containers people most often bring (file-type's names). */
const CONTAINER_NAMES = /** @type {Record<string, string>} */ ({
  mkv: 'a Matroska (.mkv) file',
  mov: 'a QuickTime (.mov) file',
  avi: 'an AVI file',
  mts: 'an MPEG transport stream',
  mpg: 'an MPEG-1/2 file',
  ogv: 'an Ogg video',
  flv: 'a Flash video',
  wmv: 'a Windows Media file',
  asf: 'a Windows Media file',
  '3gp': 'a 3GPP file',
});

/** How to make a file that plays everywhere, said in every refusal of a format. */
export const VIDEO_HINT =
  'make an MP4 (H.264 and AAC: ffmpeg -i in -c:v libx264 -pix_fmt yuv420p -c:a aac -movflags +faststart out.mp4) or a WebM (VP9 and Opus: ffmpeg -i in -c:v libvpx-vp9 -c:a libopus out.webm)';

/**
 * @typedef {object} VideoSpec
 * @property {string} file   relative to the package folder
 * @property {number} start  the video's second at the score's first beat (its lead-in, >= 0)
 */

/**
 * @typedef {object} VideoProbe  what the server read of a video file
 * @property {string | null} container  from the magic bytes: 'mp4', 'webm', 'mkv', 'mov', ... or null
 * @property {{ kind: 'video' | 'audio' | 'other', codec: string }[]} tracks
 * @property {number | null} width
 * @property {number | null} height
 * @property {number | null} duration  seconds
 */

/**
 * The views' videos from `video:` of score.yaml, `all` spread over the parts that name none.
 * @param {unknown} raw
 * @param {{ parts: { id: string }[], safePath: (p: unknown) => p is string, problem: (field: string, message: string) => void }} ctx
 *   safePath: core/manifest.js's isSafeRelativePath (passed, so that the two modules do not import each other)
 * @returns {Record<string, VideoSpec> | null}
 */
export function checkVideo(raw, { parts, safePath, problem }) {
  if (raw === undefined) return null;
  if (!isObject(raw)) {
    problem('video', 'must map views to a video, e.g. video: { all: { file: video/guide.webm } }');
    return null;
  }
  const views = ['score', ...parts.map((p) => p.id)];
  /** @type {Record<string, VideoSpec>} */
  const out = {};
  /** @type {VideoSpec | null} */
  let forAll = null;
  for (const [view, spec] of Object.entries(raw)) {
    const f = `video.${view}`;
    if (view !== VIDEO_FOR_ALL && !views.includes(view)) {
      problem(f, `"${view}" is not a score or part view (${[VIDEO_FOR_ALL, ...views].join(', ')})`);
      continue;
    }
    const one = checkOne(spec, f, safePath, problem);
    if (!one) continue;
    if (view === VIDEO_FOR_ALL) forAll = one;
    else out[view] = one;
  }
  if (forAll) for (const p of parts) out[p.id] ??= forAll;
  return out;
}

/**
 * @param {unknown} spec
 * @param {string} f
 * @param {(p: unknown) => p is string} safePath
 * @param {(field: string, message: string) => void} problem
 * @returns {VideoSpec | null}
 */
function checkOne(spec, f, safePath, problem) {
  const s = typeof spec === 'string' ? { file: spec } : spec;
  if (!isObject(s) || !safePath(s.file)) {
    problem(`${f}.file`, 'must be a video file inside the package, e.g. { file: video/cello.webm }');
    return null;
  }
  const start = s.start ?? 0;
  if (typeof start !== 'number' || !Number.isFinite(start) || start < 0 || start > 86_400) {
    problem(`${f}.start`, "must be the video's second at the score's first beat, from 0 (default 0)");
    return null;
  }
  return { file: s.file, start };
}

/**
 * Whether browsers play a video as the server read it: null when they do, else what is wrong
 * and what to do.
 * @param {VideoProbe} probe
 * @param {{ maxPixels: number }} limits
 * @returns {{ ok: true, type: string } | { ok: false, reason: string }}
 */
export function judgeVideo(probe, { maxPixels }) {
  const format = probe.container === 'mp4' || probe.container === 'webm' ? VIDEO_FORMATS[probe.container] : null;
  if (!format)
    return {
      ok: false,
      reason: `is ${probe.container ? (CONTAINER_NAMES[probe.container] ?? `a ${probe.container} file`) : 'not a video file browsers play'} (read from its first bytes, whatever its name); ${VIDEO_HINT}`,
    };
  const video = probe.tracks.filter((t) => t.kind === 'video');
  const audio = probe.tracks.filter((t) => t.kind === 'audio');
  if (video.length === 0) return { ok: false, reason: `has no video track; ${VIDEO_HINT}` };
  /** @type {string[]} */
  const unplayable = [];
  for (const t of video) if (!format.video.includes(t.codec)) unplayable.push(`video ${t.codec}`);
  for (const t of audio) if (!format.audio.includes(t.codec)) unplayable.push(`audio ${t.codec}`);
  if (unplayable.length > 0)
    return {
      ok: false,
      reason: `has ${unplayable.join(', ')}, which not every browser plays in ${String(probe.container).toUpperCase()} (${format.video.join('/')} video and ${format.audio.join('/')} audio do); ${VIDEO_HINT}`,
    };
  if (probe.width !== null && probe.height !== null && probe.width * probe.height > maxPixels)
    return {
      ok: false,
      reason: `is ${probe.width} x ${probe.height}, more than the ${maxPixels.toLocaleString('en')} pixels a frame may have (3840 x 2160); scale it down (ffmpeg -vf scale=1920:-2)`,
    };
  return { ok: true, type: format.type };
}

/**
 * Milliseconds from the score's first beat to (fractional) beat `b`, from a tempo map's
 * segments (core/tempo-map.js): what the page computes its video's time from.
 * @param {{ beat: number, ms: number, bpm: number }[]} segments  sorted by beat, the first at 0
 * @param {number} b
 */
export function msAtBeat(segments, b) {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid].beat <= b) lo = mid;
    else hi = mid - 1;
  }
  const s = segments[lo];
  return s.ms + ((b - s.beat) * 60000) / s.bpm;
}
