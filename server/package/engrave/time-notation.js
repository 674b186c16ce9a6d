// Time a notation file without engraving it: read it, let Verovio load it, and derive the bars
// in performance order, as a score task does before it draws any page. For the corpus sweep
// (bench/corpus.js) and the tests of performance order.

import path from 'node:path';
import { readNotation } from './source.js';
import { parseXml } from './xml.js';
import { deriveTiming } from './timing.js';
import { IMPORT_OPTIONS, TIMEMAP_OPTIONS, XML_ID_SEED } from './options.js';

// Imported by a computed name, as in worker.js: a static import makes tsc check Verovio's bundle.
const VEROVIO = { module: 'verovio/wasm', toolkit: 'verovio/esm' };

/**
 * A Verovio toolkit in this thread, logging to a buffer (read by getLog) instead of stdout.
 * @returns {Promise<import('./tasks.js').Toolkit>}
 */
export async function createToolkit() {
  const [{ default: createVerovioModule }, { VerovioToolkit, enableLogToBuffer }] = await Promise.all([
    import(VEROVIO.module),
    import(VEROVIO.toolkit),
  ]);
  const module = await createVerovioModule();
  enableLogToBuffer(1, module);
  return new VerovioToolkit(module);
}

/**
 * @param {import('./tasks.js').Toolkit} tk
 * @param {string} file   its path (the name appears in problems)
 * @param {Buffer} bytes
 * @param {{ compare?: boolean }} [options]  compare: also time it with repeats as Verovio
 *                                     expands them (`verovio`), from the same load
 * @returns {{ ok: true, timing: import('./timing.js').Timing, warnings: string[], written: number, verovio?: ReturnType<typeof deriveTiming> } | { ok: false, problems: string[] }}
 */
export function timeNotation(tk, file, bytes, { compare = false } = {}) {
  const name = path.basename(file);
  const src = readNotation(file, bytes);
  if (!src.ok) return src;
  tk.resetOptions();
  tk.setOptions(IMPORT_OPTIONS);
  tk.resetXmlIdSeed(XML_ID_SEED);
  if (!tk.loadData(src.value.text)) return { ok: false, problems: [`${name}: Verovio could not read it`] };
  const meiText = tk.getMEI();
  const mei = parseXml(meiText);
  if (!mei.ok)
    return {
      ok: false,
      problems: [`${name}: Verovio's reading of it is not well-formed (line ${mei.line}: ${mei.message})`],
    };
  const timemap = tk.renderToTimemap(TIMEMAP_OPTIONS);
  const timed = deriveTiming(mei.root, timemap, src.value.form, meiText);
  if (!timed.ok) return { ok: false, problems: timed.problems.map((p) => `${name}: ${p}`) };
  const written = src.value.form?.length ?? new Set(timed.timing.measureOf).size;
  return { ...timed, written, ...(compare ? { verovio: deriveTiming(mei.root, timemap, null) } : {}) };
}
