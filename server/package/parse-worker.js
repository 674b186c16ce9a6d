// The parse worker (parse.js): reads a package's untrusted text off the event loop that
// plays the beats. YAML costs about 1 s per MiB and a beat map up to 8 MiB of CSV about as much
// (measured: bench/package-load.js), which on the main thread would stop every phone's updates.
// Messages in: { id, kind, task }; out: { id, type: 'done', data } (the pool's protocol, see
// server/lib/worker-pool.js).

import { parentPort } from 'node:worker_threads';
import { failAndLeave } from '../lib/worker-exit.js';
import { Document, LineCounter, isMap, isScalar, parseDocument, visit } from 'yaml';
import { checkBeatMap, parseBeatMapCsv, BEATMAP_CSV_COLUMNS } from '../../core/beatmap.js';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** Alias expansions allowed while building the manifest (yaml's guard against alias bombs). */
const MAX_ALIAS_COUNT = 100;

/** Problems listed per beat map: a map wrong on every row says so in the first ones. */
const MAX_PROBLEMS = 50;

/** The last manifest parsed, kept to answer the lines of its problems without parsing again. */
/** @type {{ text: string, doc: import('yaml').Document, lines: LineCounter } | null} */
let last = null;

/**
 * @param {string} text
 */
function parse(text) {
  if (last?.text === text) return last;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  last = { text, doc, lines };
  return last;
}

/**
 * Path of a problem's field as YAML keys: "cues[3].bar" -> ["cues", 3, "bar"].
 * @param {string} field
 */
function fieldPath(field) {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
}

/**
 * The manifest as data, or its problems as "score.yaml line N: field: message" lines.
 * @param {{ text: string }} task
 * @returns {{ ok: true, json: string } | { ok: false, problems: string[] }}
 */
function manifest({ text }) {
  const { doc, lines } = parse(text);
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map(
        (e) =>
          `score.yaml${e.linePos?.[0]?.line ? ` line ${e.linePos[0].line}` : ''}: syntax: ${e.message.split('\n')[0]}`,
      ),
    };
  }
  try {
    // As JSON text: the main thread parses it 2.5 times faster than it deserializes the same
    // value cloned (measured on a 2 MiB manifest). YAML's .nan and .inf become null, which every
    // field refuses, and a cue's values go to phones as JSON anyway.
    return { ok: true, json: JSON.stringify(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })) ?? 'null' };
  } catch (err) {
    // yaml throws a ReferenceError when aliases would expand past maxAliasCount (an alias bomb:
    // a few lines that build billions of values), or for an alias to no anchor.
    /** @type {number | null} */
    let line = null;
    visit(doc, {
      Alias(_, node) {
        if (node.range) line = lines.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
    const text = /** @type {Error} */ (err).message;
    const message = /Excessive alias count/.test(text)
      ? `aliases (*name) expand to more than ${MAX_ALIAS_COUNT} copies; write the values out, or use fewer aliases`
      : /circular/i.test(text)
        ? 'an alias (*name) is inside the value it names, which makes the value endless; write the values out'
        : `${text.split('\n')[0]}; check the anchors (&name) and aliases (*name)`;
    return { ok: false, problems: [`score.yaml${line ? ` line ${line}` : ''}: aliases: ${message}`] };
  }
}

/**
 * " line N" for each field path like "cues[3].bar", or "" when it is not in the file.
 * @param {{ text: string, fields: string[] }} task
 */
function linesOf({ text, fields }) {
  const { doc, lines } = parse(text);
  return fields.map((field) => {
    const node = /** @type {any} */ (doc.getIn(fieldPath(field), true));
    const offset = node?.range?.[0];
    return typeof offset === 'number' ? ` line ${lines.linePos(offset).line}` : '';
  });
}

/**
 * A beat map read and checked; its beats packed eight numbers a beat in a transferable array
 * (copying 50,000 objects back costs the main thread about 65 ms, this about 1).
 * @param {{ bytes: Uint8Array, form: 'csv' | 'json', options: import('../../core/beatmap.js').BeatMapOptions }} task
 */
function beatMap({ bytes, form, options }) {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  /** @type {import('../../core/beatmap.js').BeatMapResult} */
  let result;
  if (form === 'csv') {
    const parsed = parseBeatMapCsv(text, options);
    result = parsed.ok ? checkBeatMap(parsed.value, options) : parsed;
  } else {
    let value;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return {
        ok: false,
        problems: [
          {
            file: options.file,
            message: `is not valid JSON (${/** @type {Error} */ (err).message}); export the beat map again`,
          },
        ],
      };
    }
    result = checkBeatMap(value, options);
  }
  if (!result.ok) {
    const { problems } = result;
    if (problems.length <= MAX_PROBLEMS) return result;
    return {
      ok: false,
      problems: [
        ...problems.slice(0, MAX_PROBLEMS),
        { file: options.file, message: `and ${problems.length - MAX_PROBLEMS} more problems like these` },
      ],
    };
  }
  const { beats } = result.value;
  const packed = new Float64Array(beats.length * BEATMAP_CSV_COLUMNS.length);
  beats.forEach((b, i) => {
    BEATMAP_CSV_COLUMNS.forEach((k, j) => {
      packed[i * BEATMAP_CSV_COLUMNS.length + j] = /** @type {any} */ (b)[k];
    });
  });
  return { ok: true, packed };
}

/** The comment line the preview's tap-along writes above `meter`, replaced when it writes again. */
const TAPPED = /^# meter tapped along to .*\n/;

/**
 * score.yaml with its `meter` replaced (the preview's tap-along), everything else as it was,
 * byte for byte: only the lines of `meter` are spliced, one change a line in flow style.
 * @param {{ text: string, meter: object[], comment: string }} task
 * @returns {{ ok: true, text: string } | { ok: false, problems: string[] }}
 */
function retempo({ text, meter, comment }) {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0 || !isMap(doc.contents))
    return { ok: false, problems: ['score.yaml: is not a mapping of fields; fix it and tap again'] };
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'meter');
  const keyAt = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
  const valueEnd = /** @type {any} */ (pair?.value)?.range?.[1];
  if (typeof keyAt !== 'number' || typeof valueEnd !== 'number')
    return {
      ok: false,
      problems: ['score.yaml: has no meter to replace (a score with notation takes its tempo from it)'],
    };
  const lineStart = text.lastIndexOf('\n', keyAt - 1) + 1;
  if (text.slice(lineStart, keyAt).trim() !== '')
    return { ok: false, problems: ['score.yaml: meter is not at the start of its line; write it so and tap again'] };
  const after = text.indexOf('\n', valueEnd - 1);
  const end = after === -1 ? text.length : after + 1;
  let head = text.slice(0, lineStart);
  const prev = head.lastIndexOf('\n', head.length - 2) + 1;
  if (TAPPED.test(head.slice(prev))) head = head.slice(0, prev);
  const block = new Document({ meter });
  for (const item of /** @type {any} */ (block.get('meter')).items) item.flow = true;
  return { ok: true, text: `${head}# ${comment}\n${block.toString({ lineWidth: 0 })}${text.slice(end)}` };
}

/** @type {Record<string, (task: any) => unknown>} */
const KINDS = { manifest, lines: linesOf, beatmap: beatMap, retempo };

port.on('message', (/** @type {{ id: number, kind: string, task: any }} */ { id, kind, task }) => {
  try {
    const data = KINDS[kind](task);
    const transfer =
      data && typeof data === 'object' && 'packed' in data
        ? [/** @type {ArrayBuffer} */ (/** @type {Float64Array} */ (data.packed).buffer)]
        : [];
    port.postMessage({ id, type: 'done', data }, transfer);
  } catch (err) {
    failAndLeave(port, id, err);
  }
});
