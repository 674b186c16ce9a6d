// The console's presets (score.yaml `presets`; ZScore's web-score presets): one button each, which
// fires the preset now, changing what every phone shows. Hidden for a score without presets.

import { button, h } from '../console/dom.js';

/**
 * @param {HTMLElement} box
 * @param {{ presets?: { id: string, name: string }[] } | null} answer  GET /api/presets
 * @param {(id: string, name: string) => void} fire
 */
export function renderPresets(box, answer, fire) {
  const presets = Array.isArray(answer?.presets) ? answer.presets.filter((p) => typeof p?.id === 'string') : [];
  const section = /** @type {HTMLElement | null} */ (box.closest('section'));
  if (section) section.hidden = presets.length === 0;
  const key = JSON.stringify(presets.map((p) => [p.id, p.name]));
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(
    h(
      'div',
      { class: 'row presets' },
      ...presets.map((p) => {
        const name = typeof p.name === 'string' ? p.name : `Preset ${p.id}`;
        const b = button(`preset-${p.id}`, name, () => fire(p.id, name));
        b.dataset.preset = p.id;
        return b;
      }),
    ),
  );
}
