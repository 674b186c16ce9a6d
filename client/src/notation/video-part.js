// A video part: the view's content is a video (score.yaml `video:`, core/video.js), kept in
// step with the performance on the synced clock. Every animation frame the score's time is read
// from the beat clock's position (the beat and how far into it, on the server's clock) and the
// tempo map, and the video is nudged or sought toward it (client/src/time/video-sync.js); it
// pauses with the performance and waits where the score waits. It starts muted, which every
// browser lets play without a tap; a tap on "Sound on" unmutes it.

import { positionAt } from '../time/beat-clock.js';
import {
  driftHold,
  REVIVE_MS,
  rateCost,
  rateStallsHere,
  seekAim,
  STUCK_MS,
  stallWatch,
  syncStep,
} from '../time/video-sync.js';
import { msAtBeat } from '../../../core/video.js';

/**
 * @typedef {object} VideoPartData  `/api/score/views/<view>` of a video part (server/package/load-video.js)
 * @property {{ url: string, type: string, width: number | null, height: number | null, duration: number | null, start: number }} video
 * @property {{ beat: number, ms: number, bpm: number }[]} tempo
 */

/**
 * @typedef {object} VideoStatus  for browser tests and the bench
 * @property {number} currentTime  the video's time now
 * @property {number | null} scoreTime  the video time the score is at now, null before a state
 * @property {boolean} playing   the performance plays
 * @property {boolean} paused    the video is paused
 * @property {number} rate       the video's playbackRate
 * @property {number} seeks      seeks made to follow the score
 * @property {number} reloads    loads again after the video failed (`video.error`)
 * @property {number} seekLead   what a seek while playing is aimed ahead by (s)
 * @property {number} startLead  what a start from a pause is aimed ahead by (s)
 * @property {boolean} nudges    the rate is nudged (false once a rate write cost a seek here)
 */

/**
 * @param {HTMLElement} root
 * @param {VideoPartData} data
 * @param {object} o
 * @param {() => any} o.getState  the held performance state
 * @param {() => number} o.serverNow  the server's time now (the synced clock)
 * @param {() => boolean} o.ready  false while the clock is still being measured: the video waits
 * @param {(fn: (t: number) => void) => unknown} o.requestFrame
 * @param {() => number} o.now  page time (ms), for the seek timer
 * @returns {import('./view-base.js').NotationView & { status: () => VideoStatus }}
 */
export function createVideoPart(root, data, { getState, serverNow, ready, requestFrame, now }) {
  const doc = root.ownerDocument;
  const box = doc.createElement('div');
  box.className = 'sc-video-part';
  const video = doc.createElement('video');
  video.className = 'sc-video';
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  video.disablePictureInPicture = true;
  video.setAttribute('playsinline', '');
  const source = doc.createElement('source');
  source.src = data.video.url;
  source.type = data.video.type;
  video.append(source);
  const sound = doc.createElement('button');
  sound.type = 'button';
  sound.className = 'sc-video-sound';
  sound.textContent = 'Sound on';
  sound.setAttribute('aria-pressed', 'false');
  /** Muted unless the performer pressed "Sound on": what the video is kept at. */
  let muted = true;
  sound.addEventListener('click', () => {
    muted = !muted;
    video.muted = muted;
    sound.textContent = video.muted ? 'Sound on' : 'Sound off';
    sound.setAttribute('aria-pressed', String(!video.muted));
  });
  box.append(video, sound);
  root.append(box);

  const seeks = seekAim();
  const stall = stallWatch();
  const hold = driftHold();
  /**
   * Whether a rate write stalls the video here (WebKitGTK): then the sync keeps to seeks. Known
   * before any write where the media engine is GStreamer (rateStallsHere): no probe write, no
   * stall, no load again.
   */
  const stallKnown = rateStallsHere(video);
  const rateCosts = rateCost(stallKnown);
  let seekCount = 0;
  /** Loads again after the element failed. */
  let reloads = 0;
  /** A play() under way: not asked again until it settles. */
  let starting = false;
  /** Whether the video was loaded again after a rate write was seen to stall it (or needs not be: none was written). */
  let reloadedForRate = stallKnown;
  /** When the stuck rule last sought the video (page ms). */
  let revivedAt = -Infinity;
  /** Whether playbackRate is taken here: false once a rate set did not hold (some WebKit builds). */
  let rateWorks = true;
  video.addEventListener('seeked', () => seeks.landed(now()));

  /** Loaded again: timed as a seek (at most one a SEEK_GAP_MS); it comes back paused, at 1x, and the sync's start seeks it. */
  function reload() {
    reloads++;
    revivedAt = -Infinity;
    seeks.started(now(), { reload: true });
    video.muted = muted;
    video.load();
  }

  /** Where the score is now, as the video's time. */
  function wanted() {
    const state = getState();
    const pos = positionAt(state, serverNow());
    if (pos.beat === null || !ready()) return null;
    const beat = Math.max(pos.beat, 0);
    const ms = msAtBeat(data.tempo, beat + (pos.count > 0 ? 0 : pos.fraction));
    const written = msAtBeat(data.tempo, beat + 1) - msAtBeat(data.tempo, beat);
    const playing = state?.playback === 'playing' && pos.count === 0 && pos.beatMs > 0;
    return {
      time: data.video.start + ms / 1000,
      playing,
      rate: playing && written > 0 ? written / pos.beatMs : 1,
    };
  }

  function tick() {
    const w = wanted();
    if (!w) return;
    const failed = video.error !== null;
    if (video.readyState < 1 && !failed) return;
    const nudge = !rateCosts.observe(video);
    if (!nudge && !reloadedForRate) {
      // The first rate write here was seen to stall the element (WebKitGTK). Its rate is then the
      // nudge's, and putting it back takes one more write, which stalls it again: one made during
      // the start's seek left a bare page's video paused and still, and 1 in 4 bench runs never
      // played again after the first write. Loaded again it comes back at 1x (its
      // defaultPlaybackRate) with no write, and is kept to seeks from then on.
      reloadedForRate = true;
      reload();
      return;
    }
    const held = stall.observe(now(), video, w.playing && !video.paused);
    const moving = w.playing && !video.paused && !video.seeking && !held.waiting;
    const overMs = hold.observe(now(), video.currentTime - w.time, moving);
    const act = syncStep(
      {
        currentTime: video.currentTime,
        paused: video.paused,
        seeking: video.seeking,
        playbackRate: video.playbackRate,
        duration: Number.isFinite(video.duration) ? video.duration : null,
        // Waiting: below HAVE_FUTURE_DATA with its time standing still (WebKitGTK plays on at
        // HAVE_CURRENT_DATA).
        busy: seeks.settling(now()) || held.waiting,
        stuckMs: held.stuckMs,
        overMs,
        failed,
        revived: now() - revivedAt < REVIVE_MS,
        settling: seeks.settling(now()),
      },
      w,
      {
        seekLead: seeks.lead,
        startLead: seeks.startLead,
        rateWorks,
        nudge,
        canSeek: seeks.canSeek(now()),
        canJump: seeks.canJump(now(), w.time),
        holding: seeks.holding(now()),
      },
    );
    seeks.observe(now(), act.drift, w.playing && !video.paused && !video.seeking, video.playbackRate - w.rate);
    if (act.reload) {
      reload();
      return;
    }
    if (act.rate !== null) {
      const before = { paused: video.paused, muted: video.muted };
      video.playbackRate = act.rate;
      if (Math.abs(video.playbackRate - act.rate) > 1e-3) rateWorks = false;
      rateCosts.wrote(before, video);
    }
    // WebKitGTK 2.50 unmutes a muted video when its rate is set (at once or a few frames later),
    // then pauses it and refuses its play() without a gesture: it stood paused, sought every frame
    // (bench/RESULTS.md, video parts in WebKit). Put back on every frame, before any play().
    if (video.muted !== muted) video.muted = muted;
    if (act.seek !== null) {
      if (held.stuckMs >= STUCK_MS) revivedAt = now();
      seekCount++;
      seeks.started(now(), {
        to: act.seek,
        start: act.play === 'play' || act.play === 'restart',
        // Measured only where the score plays: a seek that holds the video where the score waits
        // has no cost to learn.
        ahead: w.playing ? act.seek - (video.currentTime - act.drift) : undefined,
        lead: act.lead,
        rate: w.rate,
      });
      video.currentTime = act.seek;
    }
    if (act.play === 'pause' || act.play === 'restart') {
      rateCosts.paused();
      video.pause();
    }
    if ((act.play === 'play' || act.play === 'restart') && !starting) {
      starting = true;
      video
        .play()
        .catch(() => {})
        .finally(() => {
          starting = false;
        });
    }
  }

  let stopped = false;
  requestFrame(function loop() {
    if (stopped) return;
    tick();
    requestFrame(loop);
  });

  return {
    update() {},
    error: null,
    status() {
      const w = wanted();
      return {
        currentTime: video.currentTime,
        scoreTime: w?.time ?? null,
        playing: w?.playing ?? false,
        paused: video.paused,
        rate: video.playbackRate,
        seeks: seekCount,
        reloads,
        seekLead: seeks.lead,
        startLead: seeks.startLead,
        nudges: !rateCosts.costly,
      };
    },
    destroy() {
      stopped = true;
      video.pause();
      video.removeAttribute('src');
      source.remove();
      video.load();
      box.remove();
    },
  };
}
