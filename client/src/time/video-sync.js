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
//   rateCost), the rate is never written again, not even for a conductor's tempo: the drift, and
//   a tempo the video does not follow, are sought as without rate nudges.

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
/**
 * A seek's aim ahead is at most this. Not a quarter of a second, as it was: that bound held the
 * aim under what a WebKitGTK seek cost in one run of four or five (about a second, each seek
 * landing 0.7-0.8 s late), and from there every seek missed and was made again, a seek a second
 * to the end of the run (bench/RESULTS.md, video parts in WebKit). The aim is a median of
 * measured costs (seekAim), so a slow seek's own cost, not a step per late landing. Under JUMP_S
 * with room to spare, so a seek aimed that far is not taken for a jump while it lands.
 */
export const MAX_SEEK_LEAD_S = 0.8;
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
/** How long after a seek landed (`seeked`) its drift starts to be read (the pipeline restarts). */
export const SETTLE_MS = 300;
/**
 * A landing is measured once the drift has stayed within STEADY_S for STEADY_MS: the video plays
 * on at its pace. Read at a fixed time after `seeked`, a WebKitGTK video still standing still was
 * read as a seek that landed late. Half a 25 fps frame, over five frames.
 */
export const STEADY_S = 0.02;
export const STEADY_MS = 200;
/** How many measured costs of each kind the aim is the median of: one that met a stall does not throw it. */
export const COSTS_KEPT = 3;
/**
 * A seek that has not played on steadily after this is given up on (and counted as a miss): the
 * next correction may come, and the stuck rule may seek again.
 */
export const SETTLE_LIMIT_MS = 2000;
/**
 * After this many seeks in a row that missed, correction seeks are held back for STORM_MS: a
 * seek that misses costs a stand-still and lands no nearer, and a seek a second for a minute left
 * a WebKitGTK video 0.7-0.8 s behind throughout (54 seeks after the pause in one run). Held back,
 * the video plays on with the offset it has, and the aims keep what the misses measured.
 */
export const STORM_SEEKS = 3;
export const STORM_MS = 5000;
/**
 * A seek missed when it landed more than this from where it meant: WebKit's bound (100 ms at
 * p95). From NO_RATE_SEEK_S (60 ms), WebKitGTK's seeks under load landing 70-80 ms either side
 * made three misses and held an 80 ms offset for 5 s (one run of five).
 */
export const MISS_S = 0.1;
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
 * @property {boolean} [settling]  a seek of ours has not yet landed and played on steadily
 *   (seekAim.settling): the stuck rule waits for it
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
 * @property {number} lead          what the seek was aimed ahead by for its own cost (seconds of
 *   the page's time; seekAim's `lead` or `startLead`): the seek meant to land `lead` x the rate
 *   short of where it went
 */

/**
 * What to do to the video now.
 * @param {VideoNow} video
 * @param {Wanted} wanted
 * @param {{ seekLead?: number, startLead?: number, rateWorks?: boolean, nudge?: boolean, canSeek?: boolean, canJump?: boolean, holding?: boolean }} [o]  seekLead:
 *   seconds a seek loses here (seekAim); startLead: seconds a start from a pause loses (seekAim.startLead,
 *   seekLead unless told); rateWorks: false where the browser ignores playbackRate;
 *   nudge: false where a rate write stalls the video (rateCost), when the rate is never written
 *   and a drift is sought from NO_RATE_SEEK_S; canSeek: false within SEEK_GAP_MS
 *   of the last seek (seekAim.canSeek), when only the rate corrects; canJump: false while the last
 *   seek, made within SEEK_GAP_MS, was for where the score is now (seekAim.canJump), when a drift
 *   past JUMP_S waits for it; holding: seeks that missed in a row hold correction seeks back
 *   (seekAim.holding): a jump, a start and the stuck rule still seek
 * @returns {SyncAction}
 */
export function syncStep(
  video,
  wanted,
  {
    seekLead = 0,
    startLead = seekLead,
    rateWorks = true,
    nudge = true,
    canSeek = true,
    canJump = true,
    holding = false,
  } = {},
) {
  const end = video.duration !== null && Number.isFinite(video.duration) ? video.duration : Infinity;
  const target = Math.min(Math.max(wanted.time, 0), end);
  const drift = video.currentTime - target;
  /** @type {SyncAction} */
  const act = { play: null, seek: null, rate: null, drift, reload: false, lead: 0 };
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
  // Where a rate write stalls the video (WebKitGTK: a conductor's tempo written once after the
  // reload stood it still up to 1.5 s), it is never written: a tempo the video does not follow is
  // kept to by seeks, each aimed to land ahead by as much as it will fall behind in a gap (or the
  // reverse), so the drift passes through 0 between two seeks rather than starting from it.
  const writes = rateWorks && nudge;
  const skew = writes ? 0 : clamp((base - video.playbackRate) * (SEEK_GAP_MS / 1000), -NO_RATE_SEEK_S, NO_RATE_SEEK_S);
  const seekLeadS = Math.min(seekLead, MAX_SEEK_LEAD_S);
  const startLeadS = Math.min(startLead, MAX_SEEK_LEAD_S);
  /** @param {number} aim  seconds the seek is aimed ahead for its own cost */
  const seekTo = (aim) => {
    act.lead = aim;
    act.seek = Math.min(target + aim * base + skew, end);
  };
  const putBack = writes && Math.abs(video.playbackRate - base) > RATE_STEP;
  if (video.paused) {
    // A start: its first frames come late by what starts lose here, so it starts that far on.
    act.play = 'play';
    // A nudge left over is put back here, before the play(): in WebKitGTK, where a rate write
    // pauses the element, the write that put it back came next frame, during the start's seek,
    // and such a write left a bare page's video paused, unmuted and still (3 of 3 tries).
    if (putBack) act.rate = base;
    if (!video.seeking && Math.abs(drift - startLeadS * base - skew) > DEAD_S) seekTo(startLeadS);
    return act;
  }
  // Stuck (a seek of ours given its time to land): the stuck rule below, even for a drift past
  // JUMP_S. A WebKitGTK video that showed one frame after the score's seek and stood still
  // gathered a jump's drift every two seconds; sought as a jump each time, it was never played
  // again nor loaded again (12 s of it in a loaded run).
  const stuck = (video.stuckMs ?? 0) >= STUCK_MS && !video.settling;
  if (Math.abs(drift) > JUMP_S && canJump && !stuck) {
    seekTo(seekLeadS);
    if (putBack) act.rate = base;
    return act;
  }
  if (video.seeking || video.busy) {
    // Busy too long: the seek is made again, to where the score is now; a video that stood still
    // without seeking is also paused and played again (WebKitGTK's stayed still at HAVE_CURRENT_DATA,
    // not paused, after a rate write paused and resumed it: a seek showed one frame each second).
    // Stuck again soon after that: loaded again, it comes back paused and the start above seeks it.
    // A seek of ours is first given SETTLE_LIMIT_MS to land and play on (`settling`): where a
    // seek costs about a second, sought again at STUCK_MS it would never land.
    if (stuck && canSeek) {
      if (video.revived) {
        act.reload = true;
        return act;
      }
      seekTo(video.seeking ? seekLeadS : startLeadS);
      if (!video.seeking) act.play = 'restart';
    }
    // A nudge is for a video that plays: left on, it runs ahead or behind once the video does.
    // Not where a write stalls the video (nudge false): a write during a seek is one more stall.
    if (putBack) act.rate = base;
    return act;
  }
  const seekAt = writes ? SEEK_S : NO_RATE_SEEK_S;
  if (Math.abs(drift) > seekAt && canSeek && !holding && (writes || (video.overMs ?? Infinity) >= HOLD_MS)) {
    seekTo(seekLeadS);
    if (putBack) act.rate = base;
    return act;
  }
  if (!writes) return act;
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
 * before and after each rate write, and every frame of the RATE_PROBE_FRAMES after it. With
 * `known` (rateStallsHere: the media engine says so before any write) it is costly from the
 * start, and the probe's write, its stall and the load again after it never happen.
 * @param {boolean} [known]
 * @returns {{ wrote: (before: { paused: boolean, muted: boolean }, after: { paused: boolean, muted: boolean }) => void, paused: () => void, observe: (el: { paused: boolean, muted: boolean }) => boolean, readonly costly: boolean }}
 */
export function rateCost(known = false) {
  let frames = 0;
  let costly = known;
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
 * Whether this page's rate writes will stall the video, told without writing one: WebKit's media
 * stack (its `videoTracks`, which neither Chromium nor Firefox exposes by default) playing through
 * GStreamer (WebKitGTK and WPE: GStreamer demuxes FLV and AVI, which no other engine's
 * `canPlayType` owns to; Apple's WebKit plays through AVFoundation and says '' to both). Every
 * WebKitGTK run of the bench wrote the rate once as the probe (rateCost), stood still and was
 * loaded again: about a second of its start, and the write is what set off the video that never
 * played again (bench/RESULTS.md, video parts in WebKit). A rate write on a paused element shows
 * nothing there (no pause, no unmute), so a probe before the first start cannot tell it either.
 * Not the user agent: the stall is GStreamer's (a rate change is a seek of its pipeline).
 * @param {{ videoTracks?: unknown, canPlayType?: (type: string) => string }} el  the video element
 */
export function rateStallsHere(el) {
  if (!el || !('videoTracks' in el) || typeof el.canPlayType !== 'function') return false;
  return el.canPlayType('video/x-flv') !== '' || el.canPlayType('video/x-msvideo') !== '';
}

/**
 * @param {number} x
 * @param {number} lo
 * @param {number} hi
 */
const clamp = (x, lo, hi) => Math.min(Math.max(x, lo), hi);

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * @typedef {object} SeekStart  a seek being made (seekAim.started)
 * @property {number} [to]     where it goes (seconds of the video)
 * @property {boolean} [start] it comes with a play(): a start from a pause, or a restart
 * @property {number} [ahead]  how far ahead of the score's time it goes (video seconds); unless
 *   told, the seek teaches the aim nothing (a load again, a seek while the score holds)
 * @property {number} [lead]   the part of `ahead` that was the aim for the seek's own cost
 *   (seconds); `ahead` less this is where it meant to land (syncStep's `aim`)
 * @property {number} [rate]   the performance's rate when it was made
 * @property {boolean} [reload] a load again (`video.load()`), not a seek: a new pipeline, so the
 *   misses of the old one no longer hold corrections back
 */

/**
 * @typedef {object} SeekAim
 * @property {(at: number, o?: SeekStart) => void} started  a seek is made now
 * @property {(at: number) => void} landed  the element's `seeked`
 * @property {(at: number, drift: number, playing: boolean, slope?: number) => void} observe  a frame
 * @property {(at: number) => boolean} settling
 * @property {(at: number) => boolean} canSeek
 * @property {(at: number, time: number) => boolean} canJump
 * @property {(at: number) => boolean} holding
 * @property {number} lead
 * @property {number} startLead
 */

/**
 * How far ahead of the score a seek must aim to land in step here: a seek takes its decode and
 * the pipeline's restart, during which the score moves on. Measured from where each seek landed
 * once the video plays on at its pace (the drift steady for STEADY_MS, from SETTLE_MS after
 * `seeked`): the seek's cost is its aim ahead less the drift it left, and the aim is the median of
 * the last COSTS_KEPT costs (the ones not yet measured taken as the prior). Read earlier, or stepped toward by a part of each error, the cost
 * is read as more than it is: a WebKitGTK video stands still some time after `seeked`, and a
 * landing read then looked late, the aim grew a step a seek to its bound, and every seek after
 * missed (bench/RESULTS.md, video parts in WebKit). A start from a pause (a seek and a play()) is
 * learnt apart from a seek while playing (a start cost about 80 ms there, a seek 22-46 ms), each
 * with the other's as its prior.
 *
 * STORM_SEEKS seeks in a row that missed (landed more than MISS_S from where they meant,
 * their aim learnt from COSTS_KEPT measurements; or never played on steadily within
 * SETTLE_LIMIT_MS) hold correction seeks back for STORM_MS (`holding`); one more miss after that
 * holds them back again, a hit ends it.
 * @param {number} [first]  the aim before any seek was measured (seconds)
 * @returns {SeekAim}
 */
export function seekAim(first = FIRST_SEEK_LEAD_S) {
  /** Measured costs (seconds), the last COSTS_KEPT of each kind. */
  /** @type {number[]} */
  const seekCosts = [];
  /** @type {number[]} */
  const startCosts = [];
  /** @type {(SeekStart & { at: number, learnt: boolean }) | null} the seek whose landing is to be measured */
  let pending = null;
  /** @type {number | null} */
  let landedAt = null;
  /** The steady window's first frame: when, and the drift then less the slope's share. */
  /** @type {{ at: number, drift: number } | null} */
  let steady = null;
  let startedAt = 0;
  /** @type {number | null} */
  let aimedAt = null;
  let seeked = false;
  /** Seeks in a row that missed, and until when corrections are held back. */
  let misses = 0;
  let holdUntil = -Infinity;
  /**
   * The median of a kind's last COSTS_KEPT costs, the slots not yet measured taken by `prior`:
   * one cost alone does not move the aim, two that agree do. The first seek after WebKitGTK's
   * reload stood the video still a second, and the seeks after it cost 20-40 ms: taken alone,
   * that second aimed the next two seeks 0.78 and 0.45 s ahead (two bench runs alike).
   * @param {number[]} xs
   * @param {number} prior
   */
  const filled = (xs, prior) => median([...xs, ...Array(Math.max(COSTS_KEPT - xs.length, 0)).fill(prior)]);
  /** @param {number[]} own @param {number[]} other */
  const aimOf = (own, other) => Math.min(Math.max(filled(own, filled(other, first)), 0), MAX_SEEK_LEAD_S);
  /** @param {number} at */
  const canSeek = (at) => !seeked || at - startedAt >= SEEK_GAP_MS;
  /**
   * A seek is under way, or landed and not yet playing on steadily (at most SETTLE_LIMIT_MS in all).
   * @param {number} at
   */
  const settling = (at) => pending !== null && at - startedAt <= SETTLE_LIMIT_MS;
  /** @param {number} at @param {boolean} missed */
  const tally = (at, missed) => {
    misses = missed ? misses + 1 : 0;
    if (misses >= STORM_SEEKS) {
      holdUntil = at + STORM_MS;
      misses = STORM_SEEKS - 1;
    }
  };
  return {
    /**
     * A seek is made now.
     * @param {number} at
     * @param {SeekStart} [o]
     */
    started(at, o = {}) {
      // A seek made before the last one was measured: that one's landing is never seen.
      if (pending && pending.ahead !== undefined && landedAt !== null) tally(at, true);
      // A WebKitGTK video that never played again after a seek missed its seeks, was loaded again
      // and played; held back for those misses it then kept a 0.87 s offset for 5 s. The starts'
      // costs go too: a pipeline's first start prerolls it, and a load again makes a new one.
      // The first start before WebKitGTK's load (0.39 s) and the first after it (0.34 s) agreed,
      // so seeks that then cost 0-70 ms were aimed 0.34 s ahead, and so was the resume from the
      // pause a minute later (a start there cost 50 ms): p95 148 ms in one run (bench/RESULTS.md,
      // video parts). The seeks' costs (the same file's decode) are kept.
      if (o.reload) {
        misses = 0;
        holdUntil = -Infinity;
        startCosts.length = 0;
      }
      seeked = true;
      startedAt = at;
      aimedAt = o.to ?? null;
      // Whether its aim stood on COSTS_KEPT measurements of its kind: a miss before that is the
      // aim still learning (a first seek aimed by the prior), not a storm.
      const learnt = (o.start ? startCosts : seekCosts).length >= COSTS_KEPT;
      pending = { ...o, at, learnt };
      landedAt = null;
      steady = null;
    },
    /** Whether SEEK_GAP_MS have passed since the last seek started. */
    canSeek,
    /** Whether seeks that missed in a row hold correction seeks back now. */
    holding(/** @type {number} */ at) {
      return at < holdUntil;
    },
    /**
     * Whether a drift past JUMP_S may be sought now: not while the last seek, made within
     * SEEK_GAP_MS or still settling, went to within JUMP_S of where the video would now be had it
     * landed at once (it was made for this jump; sought again each frame, a seek would never land;
     * and a seek that stands the video still a second drifts a second while it settles).
     */
    canJump(/** @type {number} */ at, /** @type {number} */ time) {
      if ((canSeek(at) && !settling(at)) || aimedAt === null) return true;
      return Math.abs(aimedAt + (at - startedAt) / 1000 - time) > JUMP_S;
    },
    settling,
    /** The element's `seeked`. */
    landed(/** @type {number} */ at) {
      if (pending) landedAt = at;
    },
    /**
     * A frame: the drift now, whether the video plays (not paused, not seeking, the score
     * playing), and how fast the drift moves while both play (the video's rate less the
     * performance's: not 0 where a conductor's tempo is not written to the video).
     * @param {number} at
     * @param {number} drift
     * @param {boolean} playing
     * @param {number} [slope]
     */
    observe(at, drift, playing, slope = 0) {
      if (!pending) return;
      const p = pending;
      if (at - p.at > SETTLE_LIMIT_MS) {
        // Never played on steadily: a miss, if it was one to measure and the score played on.
        if (p.ahead !== undefined && playing) tally(at, true);
        pending = null;
        return;
      }
      if (landedAt === null || !playing || at - landedAt < SETTLE_MS) {
        steady = null;
        return;
      }
      // The drift as it would be without the slope since the seek: constant once the video plays on.
      const flat = drift - (slope * (at - p.at)) / 1000;
      if (steady === null || Math.abs(flat - steady.drift) > STEADY_S) {
        steady = { at, drift: flat };
        return;
      }
      if (at - steady.at < STEADY_MS) return;
      pending = null;
      if (p.ahead === undefined) return;
      // Stood still `cost` seconds, then played on at the video's rate from where it was sought.
      const rate = p.rate ?? 1;
      const cost = Math.max((p.ahead - flat) / Math.max(rate + slope, 0.1), 0);
      const costs = p.start ? startCosts : seekCosts;
      costs.push(cost);
      if (costs.length > COSTS_KEPT) costs.shift();
      if (p.learnt) tally(at, Math.abs(rate * ((p.lead ?? 0) - cost)) > MISS_S);
    },
    /** What a seek while playing is aimed ahead by (seconds). */
    get lead() {
      return aimOf(seekCosts, startCosts);
    },
    /** What a start from a pause is aimed ahead by. */
    get startLead() {
      return aimOf(startCosts, seekCosts);
    },
  };
}
