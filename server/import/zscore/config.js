// ZScore's YAML configuration beside an export: the web score presets (audienceScoreConfig.yml,
// webscoreConfig.yml: `scoreName`, `presets: [{id, scripts: [...], config: [...]}]`,
// `pageRangeMapping`), the scripting engine's presets (scriptingEngineConfig.yml) and the page
// strategies (strategyConfig.yml). Only web presets can become cues, through webScore.reset(N).

import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { indentFlowContinuations } from './yaml.js';

/**
 * @typedef {object} ZScoreConfig
 * @property {string | null} scoreName
 * @property {import('./script.js').Preset[]} presets   web presets, for webScore.reset(N)
 * @property {import('./script.js').Skipped[]} skipped  everything that cannot be converted
 * @property {string[]} notes
 * @property {import('./csv.js').SourceProblem[]} problems
 * @property {{ value: unknown, line: number } | null} rndStrategy       as written, for rose.js
 * @property {{ value: unknown, line: number } | null} pageRangeMapping  as written, for rose.js
 * @property {{ value: unknown, line: number } | null} builderStrategy   as written, for open-form.js
 */

/** What each known top-level key of ZScore's configuration is, and why it stays behind. */
const KEY_REASONS = /** @type {Record<string, string>} */ ({
  pageRangeMapping: "assigns score pages to the tiles of ZScore's audience tile grid; scorecast has no tile grid",
  rndStrategy: "ZScore's random page order (open-form scores); scorecast plays pages in order",
  transpositionStrategy: "ZScore's on-the-fly transposition of notation; scorecast shows the pages as drawn",
  dynamicsStrategy: "ZScore's dynamics overlays; scorecast has no overlays",
  dynamicMovementStrategy:
    "ZScore's dynamic movements (Symphonea): named movements, each a set of sections over page ranges with the parts that play them and Max and web presets, one selected live for the next round, stopping at a movement's end; ZScore's Symphonea pages draw them as regions that move to a play line, play and dissolve. scorecast has no counterpart: it plays the pages in order, the export's movements as sections the conductor may choose among",
  scoreTitle: "ZScore's display title of the score; scorecast's title is the score name of the BeatInfo files",
});

/**
 * Read one YAML configuration file of a ZScore export.
 * @param {string} text
 * @param {string} file
 * @returns {ZScoreConfig}
 */
export function readZScoreConfig(text, file) {
  /** @type {ZScoreConfig} */
  const out = {
    scoreName: null,
    presets: [],
    skipped: [],
    notes: [],
    problems: [],
    rndStrategy: null,
    pageRangeMapping: null,
    builderStrategy: null,
  };
  let lineCounter = new LineCounter();
  let doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length > 0) {
    // ZScore's reader (SnakeYAML) takes flow mappings whose lines are not indented past their
    // key; read them as it does when that is the only thing wrong (yaml.js).
    const lenient = indentFlowContinuations(text);
    const counter = new LineCounter();
    const again = lenient.lines > 0 ? parseDocument(lenient.text, { lineCounter: counter, prettyErrors: true }) : null;
    if (again && again.errors.length === 0) {
      out.notes.push(
        `${file}: ${lenient.lines} line${lenient.lines === 1 ? '' : 's'} inside multi-line flow mappings ({ ... } over several lines) are not indented past their key; ZScore's YAML reader (SnakeYAML) accepts that, so they were read as it reads them`,
      );
      doc = again;
      lineCounter = counter;
    }
  }
  if (doc.errors.length > 0) {
    out.problems.push(
      ...doc.errors.map((e) => ({
        file,
        line: e.linePos?.[0]?.line,
        message: `YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}; fix the YAML syntax`,
      })),
    );
    return out;
  }
  /** @param {unknown} node */
  const lineOf = (node) => {
    const offset = /** @type {any} */ (node)?.range?.[0];
    return typeof offset === 'number' ? lineCounter.linePos(offset).line : 1;
  };
  /** @param {unknown} node @param {string} what @param {string} reason */
  const skip = (node, what, reason) => {
    out.skipped.push({ source: `${file} line ${lineOf(node)}`, what, reason });
  };
  const root = doc.contents;
  if (!isMap(root)) {
    skip(root, file, 'not a ZScore configuration (a YAML mapping with scoreName and presets)');
    return out;
  }
  const engine = /scriptingengine/i.test(file);
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const value = pair.value;
    if (key === 'scoreName') {
      out.scoreName = isScalar(value) ? String(value.value) : null;
    } else if (key === 'presets' && isSeq(value)) {
      for (const item of value.items) readPreset(item, engine);
    } else {
      if (key === 'rndStrategy' || key === 'pageRangeMapping' || key === 'builderStrategy')
        out[key] = { value: /** @type {any} */ (value)?.toJSON?.() ?? null, line: lineOf(pair.key) };
      // The section builder becomes the package's open form, or is listed there (open-form.js).
      if (key !== 'builderStrategy')
        skip(pair.key, key, KEY_REASONS[key] ?? `ZScore setting "${key}" has no scorecast counterpart`);
    }
  }
  return out;

  /**
   * @param {unknown} item
   * @param {boolean} engineFile presets of the scripting engine (sce.*), not of the web score
   */
  function readPreset(item, engineFile) {
    if (!isMap(item)) {
      out.problems.push({ file, line: lineOf(item), message: 'a preset must be a mapping {id: N, scripts: [...]}' });
      return;
    }
    const idNode = item.get('id', true);
    const id = isScalar(idNode) ? idNode.value : undefined;
    if (!Number.isInteger(id)) {
      out.problems.push({
        file,
        line: lineOf(item),
        message: 'a preset needs a whole-number id (ZScore refuses to load it otherwise)',
      });
      return;
    }
    const pid = /** @type {number} */ (id);
    /** @type {import('./script.js').Preset} */
    const preset = { id: pid, file, line: lineOf(item), scripts: [], config: [] };
    const scripts = item.get('scripts', true);
    if (isSeq(scripts)) {
      for (const s of scripts.items) {
        if (isScalar(s) && typeof s.value === 'string') preset.scripts.push({ text: s.value, line: lineOf(s) });
        else out.problems.push({ file, line: lineOf(s), message: `preset ${pid}: scripts must be text in quotes` });
      }
    }
    const config = item.get('config', true);
    if (isSeq(config)) {
      for (const c of config.items) {
        const name = isMap(c) && c.items[0] && isScalar(c.items[0].key) ? String(c.items[0].key.value) : 'config';
        const first = isMap(c) ? /** @type {any} */ (c.items[0]) : null;
        const value = first ? (first.value?.toJSON?.() ?? null) : null;
        preset.config.push({ name, line: lineOf(c), value });
      }
    }
    if (engineFile) {
      for (const s of preset.scripts) {
        out.skipped.push({
          source: `${file} line ${s.line}`,
          what: `scripting-engine preset ${pid}: ${s.text}`,
          reason: "ZScore's scripting engine runs server-side JavaScript; scorecast has no scripting engine",
        });
      }
      return;
    }
    if (out.presets.some((p) => p.id === pid))
      out.notes.push(
        `${file} line ${preset.line}: preset ${pid} is defined again; the later one is used, as in ZScore`,
      );
    out.presets = [...out.presets.filter((p) => p.id !== pid), preset];
  }
}
