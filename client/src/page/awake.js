// Keeps the phone's screen on while the piece plays: a sleeping screen loses the beat and, on
// iOS, the sound. Two ways, chosen once per page:
//
// - The Screen Wake Lock, where the page is a secure context (HTTPS, localhost). The browser
//   releases it whenever the page is hidden, so it is asked for again on every return.
// - A playing <video>, where there is no Wake Lock: plain HTTP to the venue's LAN address (Wake
//   Lock needs a secure context), an iOS web app on the Home Screen (Wake Lock is granted there
//   but the screen sleeps anyway: WebKit bug 254545), or a refused lock. This is NoSleep.js's
//   technique, written here rather than installed: nosleep.js (0.12.0) is unmaintained since
//   2020, and it and its forks on npm ship the video as a data: URL (refused by our
//   Content-Security-Policy, media-src 'self') of a muted, looping element, which WebKit and Gecko
//   do not count. Each engine's rule for when a playing video keeps the screen on has to be met
//   on purpose (read in their sources):
//   - Blink (VideoWakeLock::ShouldBeActive): audible, or at least 20 % of the viewport and 75 %
//     on screen. The video is full-viewport, almost transparent, behind the page.
//   - WebKit (HTMLMediaElement::shouldDisableSleep): only an element playing video and audio
//     (a track, not muted, volume above 0), and never one with `loop` set.
//   - Gecko (HTMLVideoElement::ShouldCreateVideoWakeLock): only a video with an audio track.
//   So the files (media/awake.mp4, H.264 and AAC for iOS; media/awake.webm, VP8 and Opus) carry a
//   silent audio track, the element plays unmuted (inaudible: the track is silence) and loops by
//   seeking back, not with `loop`. Where unmuted play is refused (no user gesture yet) it plays
//   muted, which still holds the screen in Blink, and tries unmuted again at the next start().
//   The files, 2 s of black 32x32 at 4 fps (2.3 kB and 2.0 kB), were made with ffmpeg 5.1:
//     ffmpeg -f lavfi -i color=c=black:s=32x32:r=4:d=2 -f lavfi -i anullsrc=r=8000:cl=mono -t 2
//       -c:v libx264 -profile:v baseline -pix_fmt yuv420p -tune stillimage -crf 51 -c:a aac -b:a 8k
//       -movflags +faststart -map_metadata -1 -fflags +bitexact awake.mp4
//     (webm: anullsrc=r=48000, -c:v libvpx -b:v 10k -c:a libopus -b:a 6k)
//   Under 5 s, Chromium counts the element as transient media: no media notification, and the
//   music of other apps is not stopped.
//
// Held from the join tap until the piece ends (the state's `playback` turns 'stopped'
// after playing), and again if it plays again.

/** Where the video seeks back to the start (s): well before the 2 s file ends, so it never pauses at the end. */
export const LOOP_AT_S = 1;

/** @typedef {'wake-lock' | 'video' | 'none'} AwakeMethod */

/**
 * @typedef {object} SentinelLike  a WakeLockSentinel
 * @property {boolean} released
 * @property {() => Promise<void>} release
 * @property {(type: 'release', listener: () => void) => void} addEventListener
 */

/**
 * @typedef {object} VideoLike  the keep-awake <video> element
 * @property {boolean} paused
 * @property {boolean} muted
 * @property {number} currentTime
 * @property {() => Promise<void> | void} play
 * @property {() => void} pause
 * @property {(type: string, listener: () => void) => void} addEventListener
 */

/**
 * @typedef {object} ListenerTarget
 * @property {(type: string, listener: (event?: any) => void) => void} addEventListener
 * @property {(type: string, listener: (event?: any) => void) => void} removeEventListener
 */

/**
 * @typedef {object} AwakeEnv
 * @property {boolean} secure  `isSecureContext`
 * @property {{ request: (type: 'screen') => Promise<SentinelLike> }} [wakeLock]  `navigator.wakeLock`
 * @property {boolean} [standalone]  `navigator.standalone`: an iOS web app opened from the Home Screen
 * @property {() => VideoLike} [createVideo]  makes the keep-awake video, in the page, on first need
 * @property {ListenerTarget & { readonly visibilityState: string }} document  visibilitychange, resume
 * @property {ListenerTarget} window  pageshow
 * @property {(message: string, detail?: unknown) => void} [log]
 */

/**
 * How this page would keep the screen on.
 * @param {Pick<AwakeEnv, 'secure' | 'wakeLock' | 'standalone' | 'createVideo'>} env
 * @returns {AwakeMethod}
 */
export function awakeMethod({ secure, wakeLock, standalone, createVideo }) {
  if (secure && typeof wakeLock?.request === 'function' && standalone !== true) return 'wake-lock';
  return createVideo ? 'video' : 'none';
}

/**
 * @param {AwakeEnv} env
 */
export function createAwake(env) {
  const { document: doc, window: win, log = () => {} } = env;
  /** @type {AwakeMethod} */
  let method = awakeMethod(env);
  /** Joined (the tap) and the piece not over. */
  let joined = false;
  let ended = false;
  /** The state played or paused since the page joined or the piece last ended. */
  let underway = false;
  /** @type {SentinelLike | null} */
  let sentinel = null;
  /** @type {Promise<void> | null} */
  let asking = null;
  /** @type {VideoLike | null} */
  let video = null;
  /** Unmuted play was refused (no gesture): muted until the next start(). */
  let mutedOnly = false;

  const wanted = () => joined && !ended;
  const visible = () => doc.visibilityState === 'visible';

  function askLock() {
    if (sentinel || asking || !env.wakeLock) return;
    asking = env.wakeLock.request('screen').then(
      (s) => {
        asking = null;
        if (!wanted() || method !== 'wake-lock') {
          s.release().catch(() => {});
          return;
        }
        sentinel = s;
        // The browser releases it when the page is hidden; the next return asks again.
        s.addEventListener('release', () => {
          if (sentinel === s) sentinel = null;
        });
      },
      (/** @type {unknown} */ err) => {
        asking = null;
        // Refused because the page was hidden meanwhile: the return asks again.
        if (!visible() || !wanted()) return;
        log('wake lock refused: keeping the screen on with a video instead', err);
        method = env.createVideo ? 'video' : 'none';
        acquire();
      },
    );
  }

  /** @param {VideoLike} v */
  function loopBySeeking(v) {
    v.addEventListener('timeupdate', () => {
      if (v.currentTime >= LOOP_AT_S) v.currentTime = 0;
    });
  }

  function playVideo() {
    if (!env.createVideo) return;
    if (!video) {
      video = env.createVideo();
      loopBySeeking(video);
    }
    const v = video;
    if (!v.paused) return;
    v.muted = mutedOnly;
    Promise.resolve(v.play()).catch((/** @type {unknown} */ err) => {
      if (!wanted() || !visible()) return;
      if (!v.muted) {
        // No user gesture behind this play: muted it is allowed, and still holds the screen in Blink.
        log('keep-awake video refused with sound: playing it muted', err);
        mutedOnly = true;
        v.muted = true;
        Promise.resolve(v.play()).catch((/** @type {unknown} */ e) => log('keep-awake video refused', e));
      } else log('keep-awake video refused', err);
    });
  }

  function acquire() {
    if (!wanted() || !visible()) return;
    if (method === 'wake-lock') askLock();
    else if (method === 'video') playVideo();
  }

  function releaseAll() {
    const s = sentinel;
    sentinel = null;
    s?.release().catch(() => {});
    if (video && !video.paused) video.pause();
  }

  const onVisibility = () => {
    if (visible()) acquire();
    // Hidden, a video would go on decoding for nothing (the screen is off or another app in front).
    else if (video && !video.paused) video.pause();
  };
  const onReturn = () => acquire();
  doc.addEventListener('visibilitychange', onVisibility);
  doc.addEventListener('resume', onReturn);
  win.addEventListener('pageshow', onReturn);

  return {
    /** How the screen is kept on, and whether it is now: a fresh object each time. */
    get status() {
      const held =
        method === 'wake-lock'
          ? sentinel !== null && !sentinel.released
          : method === 'video' && video !== null && !video.paused;
      return { method, held };
    },

    /** The join tap (a user gesture: the video may play with sound, the lock may be asked for). */
    start() {
      joined = true;
      mutedOnly = false;
      acquire();
    },

    /**
     * Follow the performance: release when the piece ends, hold again when it plays again.
     * @param {any} state  the held state (client/src/live/connection.js)
     */
    update(state) {
      const t = state?.playback;
      if (t === 'playing' || t === 'paused') {
        underway = true;
        if (ended) {
          ended = false;
          acquire();
        }
      } else if (t === 'stopped' && underway) {
        underway = false;
        ended = true;
        releaseAll();
      }
    },

    /** The page is back without an event to say so (wake-watch.js): hold again if it should. */
    refresh() {
      acquire();
    },

    /** Release and stop listening. */
    stop() {
      joined = false;
      releaseAll();
      doc.removeEventListener('visibilitychange', onVisibility);
      doc.removeEventListener('resume', onReturn);
      win.removeEventListener('pageshow', onReturn);
    },
  };
}

/**
 * The keep-awake video element, in the page: inline, no controls, out of the accessibility tree
 * and of pointer events, covering the viewport behind everything (Blink's size rule) and almost
 * transparent; the mp4 first (iOS plays H.264 and AAC), the webm for builds without H.264.
 * @param {Document} doc
 * @param {{ mp4: string, webm: string }} urls
 * @returns {HTMLVideoElement}
 */
export function keepAwakeVideo(doc, urls) {
  const v = doc.createElement('video');
  v.className = 'awake-video';
  v.setAttribute('playsinline', '');
  v.setAttribute('webkit-playsinline', '');
  v.setAttribute('aria-hidden', 'true');
  v.setAttribute('tabindex', '-1');
  v.setAttribute('disableremoteplayback', '');
  v.setAttribute('disablepictureinpicture', '');
  v.playsInline = true;
  v.controls = false;
  v.preload = 'auto';
  for (const [src, type] of [
    [urls.mp4, 'video/mp4'],
    [urls.webm, 'video/webm'],
  ]) {
    const source = doc.createElement('source');
    source.src = src;
    source.type = type;
    v.append(source);
  }
  doc.body.append(v);
  return v;
}
