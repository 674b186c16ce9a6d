// Keeping a video in step with the score's time (a video part: client/src/notation/video-part.js).
// The score's time is what the synced clock says (beat-clock.js); the video follows it by a small
// change of its playback rate for a small drift, and by a seek for a large one or a jump (a seek,
// a loop, a late join). Pure: the caller reads the video and applies what this returns.
//
// Thresholds (doc/score-format.md, "Video parts"):
// - within DEAD_S (10 ms, a quarter of a 25 fps frame) the rate is the performance's own: a
//   rate that changes all the time costs Chromium's audio a resample on every change;
// - up to SEEK_S (100 ms, two and a half frames) the rate is nudged: a drift of d seconds is
//   taken out over CATCH_S (0.2 s), the nudge at most MAX_NUDGE (25%, for a fraction of a second:
//   browsers keep the pitch), so 100 ms is gone in about 0.6 s, and a page whose decoder falls
//   behind steadily (a busy phone) stays within CATCH_S x its shortfall. At 10% over 0.3 s the
//   60 ms a start or a seek lost here took 0.6-0.8 s to take out, and the browser test's p95 was
//   43 ms at load 5 (the bound is a 25 fps frame, 40 ms); at 25% over 0.2 s, 31-37 ms;
// - past SEEK_S, or with a browser that ignores the rate (`rateWorks` false: WebKit on some
//   phones plays on at 1x), a seek, aimed ahead of the score by what the last seeks lost
//   (seekAim). A start from a pause is a play() whose first frames come late by about as much:
//   it is started that far ahead too. Without rate nudges the threshold is NO_RATE_SEEK_S (a frame and a half);
// - where a rate write stalls the video (WebKitGTK pauses and unmutes the element at each write:
//   rateCost), the rate is the performance's only, and a drift is sought as without rate nudges.

export const DEAD_S = 0.01;
export const SEEK_S = 0.1;
export const CATCH_S = 0.2;
export const MAX_NUDGE = 0.25;
/**
 * Not one frame (40 ms): a seek in WebKitGTK on a loaded machine lands 50-110 ms either side of
 * its aim (seeks a second apart landed ahead and behind in turn, as if the cost followed the
 * target's place between the key frames, 2 s apart in the bench's video), and from 40 ms the sync
 * sought once a second for six seconds after the score's seek (bench/RESULTS.md, video parts).
 */
export const NO_RATE_SEEK_S = 0.06;
/**
 * A drift past this is a jump of the score's (a seek, a loop, a late join), not a drift: it is
 * sought at once, within SEEK_GAP_MS of a correction seek or while one settles. Held back by the
 * gap, a jump that came just after a correction seek left the video at the old place for up to a
 * second. Far above what a stall or a late seek leaves, so a struggling page is not sought more.
 */
export const JUMP_S = 1;
/** A seek's aim ahead is at most this (a seek slower than it lands late and is nudged). */
export const MAX_SEEK_LEAD_S = 0.25;
/**
 * Seeks while playing come at most one a SEEK_GAP_MS: a page that cannot keep up (a busy phone)
 * would otherwise seek on every stall, and each seek costs it more than it wins.
 */
export const SEEK_GAP_MS = 1000;
/**
 * The aim of the first seek, before any was measured: Chromium's seeks here cost 38-49 ms
 * (bench/RESULTS.md, video parts), and a first seek aimed at 0 showed the video 45-47 ms behind
 * for the half second until the nudges caught up. Under what any browser's seek costs, so a fast
 * one lands a little ahead and the aim learns down.
 */
export const FIRST_SEEK_LEAD_S = 0.03;
/** The aim moves by at most this after one seek. */
export const LEARN_STEP_S = 0.04;
/** How long after a seek landed its drift is read to learn the aim (the pipeline restarted). */
export const SETTLE_MS = 300;
/** A seek that has not settled after this is given up on: the next correction may come. */
export const SETTLE_LIMIT_MS = 2000;
/**
 * A video busy (seeking, or waiting: below HAVE_FUTURE_DATA with its time standing still) this
 * long while the score plays is sought again to the score's time (at most one seek a
 * SEEK_GAP_MS): a seek that never lands, or data that never comes, would otherwise leave it where
 * it stands for good.
 */
export const STUCK_MS = 1000;
/**
 * A video at HAVE_CURRENT_DATA is waiting for data only once its time has stood still this long:
 * WebKitGTK's plays on at HAVE_CURRENT_DATA (readyState 2 in 98% of the samples of a playing
 * video once its rate was set), and a video taken for waiting is neither nudged nor sought, so
 * its rate stayed at the last nudge and it ran ahead (bench/RESULTS.md, video parts in WebKit).
 * Several frames of a 25 fps video: a time read every animation frame moves within it.
 */
export const STILL_MS = 200;
/**
 * Where the rate is not nudged, a drift is sought once it has stayed past NO_RATE_SEEK_S this
 * long (driftHold): WebKitGTK's currentTime jumps 40-100 ms for one 40 ms sample and comes back
 * (once a run in two runs' traces), and a seek there on a loaded machine costs 0.1-0.46 s of a
 * video standing still (one made from 20 ms in step, most likely on such a reading, left the
 * video 290 ms behind for two seconds).
 */
export const HOLD_MS = 250;
/**
 * A video stuck again within this long of the last time the stuck rule sought it (a seek, or a
 * pause and play) is loaded again (`video.load()`: a new pipeline) rather than sought once more.
 * WebKitGTK after a rate write sometimes stood still, not paused, at HAVE_CURRENT_DATA for the
 * rest of a run, with the stuck rule's seek and pause/play each second showing one frame each
 * (bench/RESULTS.md, video parts in WebKit); that rule comes about once a STUCK_MS plus a seek,
 * so this lets one revival try before the reload.
 */
export const REVIVE_MS = 3000;
/** How many frames after a rate write the element is watched for a pause or an unmute of its own. */
export const RATE_PROBE_FRAMES = 3;
/** A rate is written only when it moves by more than this. */
const RATE_STEP = 0.002;

/**
 * @typedef {object} VideoNow  what the video element says now
 * @property {number} currentTime
 * @property {boolean} paused
 * @property {boolean} seeking
 * @property {number} playbackRate
 * @property {number | null} duration
 * @property {boolean} [busy]  a seek not yet settled (seekAim) or data not there to play on
 *   (stallWatch's `waiting`): the time is not worth correcting until it is
 * @property {number} [stuckMs]  how long the element itself has been seeking or waiting while
 *   the score played (stallWatch)
 * @property {number} [overMs]  how long the drift has stayed past NO_RATE_SEEK_S while the video
 *   played (driftHold); a drift where the rate is not nudged is sought from HOLD_MS (always, if
 *   not told)
 * @property {boolean} [failed]  the element has an error (`video.error`): it neither plays nor
 *   lands a seek until it is loaded again
 * @property {boolean} [revived]  the stuck rule sought it less than REVIVE_MS ago: stuck again,
 *   it is loaded again
 */

/**
 * @typedef {object} Wanted  where the score is
 * @property {number} time     the video's time the score is at now (seconds)
 * @property {boolean} playing the performance is playing (not paused, stopped or counting in)
 * @property {number} rate     the performance's rate against its written tempo (1 unless the
 *   conductor changed it)
 */

/**
 * @typedef {object} SyncAction
 * @property {'play' | 'pause' | 'restart' | null} play  restart: pause, then play
 * @property {number | null} seek   set currentTime to this
 * @property {number | null} rate   set playbackRate to this
 * @property {number} drift         video minus score, seconds (before the action)
 * @property {boolean} reload        load the video again (`video.load()`): it failed
 */

/**
 * What to do to the video now.
 * @param {VideoNow} video
 * @param {Wanted} wanted
 * @param {{ seekLead?: number, startLead?: number, rateWorks?: boolean, nudge?: boolean, canSeek?: boolean, canJump?: boolean }} [o]  seekLead:
 *   seconds a seek loses here (seekAim); startLead: seconds a start from a pause loses (seekAim.startLead,
 *   seekLead unless told); rateWorks: false where the browser ignores playbackRate;
 *   nudge: false where a rate write stalls the video (rateCost), when the rate is only the
 *   performance's and a drift is sought from NO_RATE_SEEK_S; canSeek: false within SEEK_GAP_MS
 *   of the last seek (seekAim.canSeek), when only the rate corrects; canJump: false while the last
 *   seek, made within SEEK_GAP_MS, was for where the score is now (seekAim.canJump), when a drift
 *   past JUMP_S waits for it
 * @returns {SyncAction}
 */
export function syncStep(
  video,
  wanted,
  { seekLead = 0, startLead = seekLead, rateWorks = true, nudge = true, canSeek = true, canJump = true } = {},
) {
  const end = video.duration !== null && Number.isFinite(video.duration) ? video.duration : Infinity;
  const target = Math.min(Math.max(wanted.time, 0), end);
  const drift = video.currentTime - target;
  /** @type {SyncAction} */
  const act = { play: null, seek: null, rate: null, drift, reload: false };
  // A failed element (Chromium: PIPELINE_ERROR_READ when its media cache answered a range with no
  // data) stays seeking for good: loaded again, it comes back paused and the start below seeks it.
  if (video.failed) {
    act.reload = canSeek;
    return act;
  }
  if (!wanted.playing || wanted.time >= end) {
    if (!video.paused) act.play = 'pause';
    // Held where the score holds, ready to start there.
    if (!video.seeking && Math.abs(drift) > DEAD_S) act.seek = target;
    return act;
  }
  const base = wanted.rate > 0 ? wanted.rate : 1;
  const lead = Math.min(seekLead, MAX_SEEK_LEAD_S) * base;
  const ahead = Math.min(startLead, MAX_SEEK_LEAD_S) * base;
  if (video.paused) {
    // A start: its first frames come late by what starts lose here, so it starts that far on.
    act.play = 'play';
    // A nudge left over is put back here, before the play(): in WebKitGTK, where a rate write
    // pauses the element, the write that put it back came next frame, during the start's seek,
    // and such a write left a bare page's video paused, unmuted and still (3 of 3 tries).
    if (rateWorks && Math.abs(video.playbackRate - base) > RATE_STEP) act.rate = base;
    if (!video.seeking && Math.abs(drift - ahead) > DEAD_S) act.seek = Math.min(target + ahead, end);
    return act;
  }
  if (Math.abs(drift) > JUMP_S && canJump) {
    act.seek = Math.min(target + lead, end);
    if (rateWorks && Math.abs(video.playbackRate - base) > RATE_STEP) act.rate = base;
    return act;
  }
  if (video.seeking || video.busy) {
    // Busy too long: the seek is made again, to where the score is now; a video that stood still
    // without seeking is also paused and played again (WebKitGTK's stayed still at HAVE_CURRENT_DATA,
    // not paused, after a rate write paused and resumed it: a seek showed one frame each second).
    // Stuck again soon after that: loaded again, it comes back paused and the start above seeks it.
    if ((video.stuckMs ?? 0) >= STUCK_MS && canSeek) {
      if (video.revived) {
        act.reload = true;
        return act;
      }
      act.seek = Math.min(target + (video.seeking ? lead : ahead), end);
      if (!video.seeking) act.play = 'restart';
    }
    // A nudge is for a video that plays: left on, it runs ahead or behind once the video does.
    // Not where a write stalls the video (nudge false): a write during a seek is one more stall.
    if (rateWorks && nudge && Math.abs(video.playbackRate - base) > RATE_STEP) act.rate = base;
    return act;
  }
  const nudged = rateWorks && nudge;
  const seekAt = nudged ? SEEK_S : NO_RATE_SEEK_S;
  if (Math.abs(drift) > seekAt && canSeek && (nudged || (video.overMs ?? Infinity) >= HOLD_MS)) {
    act.seek = Math.min(target + lead, end);
    if (rateWorks && Math.abs(video.playbackRate - base) > RATE_STEP) act.rate = base;
    return act;
  }
  if (!rateWorks) return act;
  if (!nudge) {
    // The performance's rate alone (a conductor's tempo), and a nudge left over put back.
    if (Math.abs(video.playbackRate - base) > RATE_STEP) act.rate = base;
    return act;
  }
  const by = Math.abs(drift) <= DEAD_S ? 0 : clamp(-drift / CATCH_S, -MAX_NUDGE, MAX_NUDGE);
  const rate = base * (1 + by);
  if (Math.abs(video.playbackRate - rate) > RATE_STEP || (by === 0 && video.playbackRate !== base))
    act.rate = by === 0 ? base : rate;
  return act;
}

/**
 * Whether a video waits for data, and how long it has been stuck, from the frames it is told of.
 * Waiting: no frame (readyState < 2), or HAVE_CURRENT_DATA with its time standing still for
 * STILL_MS (a video that plays on at HAVE_CURRENT_DATA, as WebKitGTK's does, is not waiting).
 * Stuck: seeking or waiting while the score played, in ms; 0 once it is neither, or the score
 * stops.
 * @returns {{ observe: (at: number, el: { seeking: boolean, readyState: number, currentTime: number }, playing: boolean) => { waiting: boolean, stuckMs: number } }}
 */
export function stallWatch() {
  /** @type {number | null} */
  let since = null;
  /** @type {number | null} */
  let lastTime = null;
  let movedAt = 0;
  return {
    observe(at, el, playing) {
      if (el.currentTime !== lastTime || !playing) {
        lastTime = el.currentTime;
        movedAt = at;
      }
      // No frame at all (HAVE_METADATA or less), or HAVE_CURRENT_DATA with the time standing still.
      const waiting = playing && (el.readyState < 2 || (el.readyState < 3 && at - movedAt >= STILL_MS));
      if (!playing || (!el.seeking && !waiting)) {
        since = null;
        return { waiting, stuckMs: 0 };
      }
      // Waiting counts from when the time stopped.
      since ??= el.seeking ? at : movedAt;
      return { waiting, stuckMs: at - since };
    },
  };
}

/**
 * How long the drift has stayed past NO_RATE_SEEK_S, in ms of frames told while the video played;
 * 0 once it is within, or the video does not play (paused, seeking: a seek's own drift is not
 * a drift to seek again).
 * @returns {{ observe: (at: number, drift: number, playing: boolean) => number }}
 */
export function driftHold() {
  /** @type {number | null} */
  let since = null;
  return {
    observe(at, drift, playing) {
      if (!playing || Math.abs(drift) <= NO_RATE_SEEK_S) {
        since = null;
        return 0;
      }
      since ??= at;
      return at - since;
    },
  };
}

/**
 * Whether a rate write costs this browser a stall: WebKitGTK (2.50, GStreamer) pauses the element
 * at every playbackRate write (a `pause` event, `paused` true at once), unmutes a muted one, and
 * plays on about 100 ms later at HAVE_CURRENT_DATA; its autoplay policy may then refuse the
 * sync's play() of the unmuted video. It keeps the rate it was given (1.1 played at 1.10x), but a
 * nudge a frame costs more than the drift it takes out (bench/RESULTS.md, video parts in WebKit):
 * after one such write the sync keeps to seeks (syncStep's `nudge` false). Told of the element
 * before and after each rate write, and every frame of the RATE_PROBE_FRAMES after it.
 * @returns {{ wrote: (before: { paused: boolean, muted: boolean }, after: { paused: boolean, muted: boolean }) => void, paused: () => void, observe: (el: { paused: boolean, muted: boolean }) => boolean, readonly costly: boolean }}
 */
export function rateCost() {
  let frames = 0;
  let costly = false;
  /** @type {{ paused: boolean, muted: boolean }} */
  let was = { paused: true, muted: false };
  /** @param {{ paused: boolean, muted: boolean }} el */
  const moved = (el) => (!was.paused && el.paused) || (was.muted && !el.muted);
  return {
    wrote(before, after) {
      was = { paused: before.paused, muted: before.muted };
      frames = RATE_PROBE_FRAMES;
      if (moved(after)) costly = true;
    },
    /** The sync paused the element itself: not the rate's doing. */
    paused() {
      frames = 0;
    },
    /** A frame: true once a rate write was seen to pause or unmute the element. */
    observe(el) {
      if (frames > 0 && !costly) {
        frames--;
        if (moved(el)) costly = true;
      }
      return costly;
    },
    get costly() {
      return costly;
    },
  };
}

/**
 * @param {number} x
 * @param {number} lo
 * @param {number} hi
 */
const clamp = (x, lo, hi) => Math.min(Math.max(x, lo), hi);

/**
 * How far ahead of the score a seek must aim to land in step here: a seek takes its decode and
 * the pipeline's restart, during which the score moves on. Learnt from the drift each seek left
 * (measured SETTLE_MS after it landed, playing): what syncStep aims a seek ahead by. A start from
 * a pause (a seek and a play()) is learnt apart from a seek while playing: in WebKitGTK a seek
 * while playing cost 22-46 ms and a start about 80 ms in a quiet run, and one aim for both left
 * the score's seek 54 ms ahead and the start after the pause 44 ms behind, each for the rest of
 * its phase (bench/RESULTS.md, video parts in WebKit).
 * @param {number} [first]  the aim before any seek was measured (seconds)
 * @returns {{ started: (at: number, to?: number, start?: boolean) => void, landed: (at: number) => void, observe: (at: number, drift: number, playing: boolean) => void, settling: (at: number) => boolean, canSeek: (at: number) => boolean, canJump: (at: number, time: number) => boolean, readonly lead: number, readonly startLead: number }}
 */
export function seekAim(first = FIRST_SEEK_LEAD_S) {
  let lead = first;
  let startLead = first;
  /** Whether the seek under way came with a play() from a pause. */
  let starting = false;
  /** @type {number | null} */
  let landedAt = null;
  let startedAt = 0;
  /** Where the last seek went (seconds of the video), null if not said. */
  /** @type {number | null} */
  let aimedAt = null;
  let pending = false;
  let seeked = false;
  /** @param {number} at */
  const canSeek = (at) => !seeked || at - startedAt >= SEEK_GAP_MS;
  return {
    started(at, to, start = false) {
      pending = true;
      starting = start;
      seeked = true;
      startedAt = at;
      aimedAt = to ?? null;
      landedAt = null;
    },
    /** Whether SEEK_GAP_MS have passed since the last seek started. */
    canSeek,
    /**
     * Whether a drift past JUMP_S may be sought now: not while the last seek, made within
     * SEEK_GAP_MS, went to within JUMP_S of where the video would now be had it landed at once
     * (it was made for this jump; sought again each frame, a seek would never land).
     */
    canJump(at, time) {
      if (canSeek(at) || aimedAt === null) return true;
      return Math.abs(aimedAt + (at - startedAt) / 1000 - time) > JUMP_S;
    },
    /** A seek is under way, or landed less than SETTLE_MS ago (at most SETTLE_LIMIT_MS in all). */
    settling(at) {
      if (!pending || at - startedAt > SETTLE_LIMIT_MS) return false;
      return landedAt === null || at - landedAt < SETTLE_MS;
    },
    landed(at) {
      if (pending) landedAt = at;
    },
    observe(at, drift, playing) {
      if (!pending || landedAt === null || !playing || at - landedAt < SETTLE_MS) return;
      pending = false;
      landedAt = null;
      // Behind (drift < 0) after the last seek: aim further ahead next time. Half the error, at
      // most LEARN_STEP_S a seek: one seek that met a stall (a busy phone) does not throw the aim.
      const step = Math.min(Math.max(-drift * 0.5, -LEARN_STEP_S), LEARN_STEP_S);
      const learnt = (/** @type {number} */ x) => Math.min(Math.max(x + step, 0), MAX_SEEK_LEAD_S);
      if (starting) startLead = learnt(startLead);
      else lead = learnt(lead);
    },
    get lead() {
      return lead;
    },
    /** What a start from a pause is aimed ahead by. */
    get startLead() {
      return startLead;
    },
  };
}
