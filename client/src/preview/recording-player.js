// The recording tap-along plays (tap-along.js): an AudioContext and a decoded buffer, not an
// <audio> element, since its clock is the samples played, where an element's currentTime is
// coarse and late. It says which second of the recording was being heard at an event's timeStamp
// (the moment of a key press or touch, on the performance.now() clock): the AudioContext's
// getOutputTimestamp() pairs the context time leaving the speakers with a performance.now()
// time, so the output latency (tens of ms on Bluetooth and some laptops) is taken off; without
// it, currentTime less outputLatency.

/**
 * @param {{ changed: () => void }} o  changed: called when it stops at the recording's end
 */
export function createRecordingPlayer({ changed }) {
  /** @type {AudioContext | null} */
  let ctx = null;
  /** @type {AudioBuffer | null} */
  let buffer = null;
  /** @type {AudioBufferSourceNode | null} */
  let source = null;
  /** Context time at which the recording's 0 plays, while playing. */
  let startedAt = 0;
  /** Where the recording stands while paused, in its seconds. */
  let offset = 0;

  function stop() {
    const s = source;
    source = null;
    s?.stop();
  }

  return {
    /**
     * Decode a recording's bytes; it stands at its start, paused.
     * @param {() => Promise<ArrayBuffer>} bytes
     */
    async load(bytes) {
      ctx ??= new AudioContext();
      buffer = await ctx.decodeAudioData(await bytes());
      offset = 0;
    },
    get loaded() {
      return ctx !== null;
    },
    get playing() {
      return source !== null;
    },
    play() {
      if (!ctx || !buffer || source) return;
      if (offset >= buffer.duration) offset = 0;
      void ctx.resume();
      const played = ctx.createBufferSource();
      source = played;
      played.buffer = buffer;
      played.connect(ctx.destination);
      played.onended = () => {
        if (source !== played) return;
        offset = buffer?.duration ?? 0;
        source = null;
        changed();
      };
      startedAt = ctx.currentTime - offset;
      played.start(0, offset);
    },
    pause() {
      if (!ctx || !source) return;
      offset = Math.max(0, ctx.currentTime - startedAt);
      stop();
    },
    /**
     * Go to `time` (seconds of the recording), playing on from there if it played.
     * @param {number} time
     */
    seek(time) {
      const playing = source !== null;
      stop();
      offset = Math.max(0, Math.min(time, buffer?.duration ?? time));
      if (playing) this.play();
    },
    /** Where the recording stands now, in its seconds. */
    position() {
      return source && ctx ? ctx.currentTime - startedAt : offset;
    },
    /**
     * The recording's second being heard at `stamp` (performance.now() time).
     * @param {number} stamp
     */
    heardAt(stamp) {
      if (!ctx) return Number.NaN;
      const out = typeof ctx.getOutputTimestamp === 'function' ? ctx.getOutputTimestamp() : null;
      const latency = ctx.outputLatency || ctx.baseLatency || 0;
      const contextTime =
        out?.performanceTime && out.contextTime && out.contextTime <= ctx.currentTime
          ? out.contextTime + (stamp - out.performanceTime) / 1000
          : ctx.currentTime - latency - (performance.now() - stamp) / 1000;
      return contextTime - startedAt;
    },
  };
}
