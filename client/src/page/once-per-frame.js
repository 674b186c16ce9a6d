// Work that only needs the latest of several changes, done once on the next frame however many
// changes came before it. The audience page draws its state this way: a page back from a roam
// receives the changes it missed in one burst, one a beat, and drawing each of them (the seed
// profile's 18 kB of audience tiles every other beat) kept the main thread busy long enough to
// show the beat due meanwhile up to 0.5 s late (venue lab, infra/lab/roam.js).

/**
 * @param {(fn: (frameTime: number) => void) => unknown} nextFrame runs `fn` on the next frame
 *   (the page's frame scheduler, which falls back to a timer where frames do not come)
 * @param {() => void} work reads the latest state itself
 * @returns {() => void} call on every change
 */
export function oncePerFrame(nextFrame, work) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    nextFrame(() => {
      pending = false;
      work();
    });
  };
}
