// The views, each in a frame drawn at the size of the device it is made for and scaled down to
// fit the preview. A frame stays loaded across reloads of the score (the page in it resyncs and
// redraws by itself); only views that come or go are added or removed.

/**
 * @typedef {object} FrameSpec
 * @property {string} id      view id, also the key
 * @property {string} url
 * @property {string} label   caption and frame title
 * @property {number} width   device size in CSS pixels
 * @property {number} height
 */

/**
 * @param {HTMLElement} root  holds the frames, in the order given
 */
export function createFrames(root) {
  const doc = root.ownerDocument;
  /** @type {Map<string, HTMLElement>} */
  const figures = new Map();
  const resize = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      const box = /** @type {HTMLElement} */ (target);
      box.style.setProperty('--scale', String(box.clientWidth / Number(box.dataset.width)));
    }
  });

  /** @param {FrameSpec} spec */
  function make(spec) {
    const figure = doc.createElement('figure');
    figure.className = 'pv-frame';
    figure.dataset.view = spec.id;
    const caption = doc.createElement('figcaption');
    const name = doc.createElement('span');
    name.textContent = spec.label;
    const open = doc.createElement('a');
    open.href = spec.url;
    open.target = '_blank';
    open.rel = 'noopener';
    open.textContent = 'open';
    open.setAttribute('aria-label', `Open the ${spec.label} view in a new tab`);
    caption.append(name, open);
    const box = doc.createElement('div');
    box.className = 'pv-device';
    box.dataset.width = String(spec.width);
    box.style.setProperty('--w', String(spec.width));
    box.style.setProperty('--h', String(spec.height));
    const frame = doc.createElement('iframe');
    frame.src = spec.url;
    frame.title = `${spec.label} view`;
    frame.width = String(spec.width);
    frame.height = String(spec.height);
    box.append(frame);
    figure.append(caption, box);
    resize.observe(box);
    return figure;
  }

  return {
    /**
     * Show these views, keeping the frames of those already shown.
     * @param {FrameSpec[]} specs
     */
    set(specs) {
      const wanted = new Set(specs.map((s) => s.id));
      for (const [id, figure] of figures) {
        if (wanted.has(id)) continue;
        resize.unobserve(/** @type {Element} */ (figure.lastElementChild));
        figure.remove();
        figures.delete(id);
      }
      /** @type {Element | null} */
      let prev = null;
      for (const spec of specs) {
        const figure = figures.get(spec.id) ?? make(spec);
        figures.set(spec.id, figure);
        const label = /** @type {HTMLElement} */ (figure.querySelector('figcaption span'));
        if (label.textContent !== spec.label) label.textContent = spec.label;
        // Moving a frame in the document reloads it: only new frames and a changed order move.
        /** @type {Element | null} */
        const at = prev ? prev.nextElementSibling : root.firstElementChild;
        if (at !== figure) root.insertBefore(figure, at);
        prev = figure;
      }
    },
  };
}
