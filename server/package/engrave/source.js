// Reads a notation file (MusicXML, compressed MusicXML, MEI) into XML text, checks that it is a
// score and lists its parts, before Verovio sees it: Verovio accepts almost anything and says
// little about why it failed. Problems come back as lines "<file>: <what is wrong>; <what to do>".

import path from 'node:path';
import { child, childrenNamed, localName, parseXml, spliceText, textOf, walk } from './xml.js';
import { ZipEntryError, readZip } from './zip.js';
import { readMusicXmlForm } from './musicxml-form.js';

/** File extensions we engrave, and how they are read. */
export const EXTENSIONS = Object.freeze({ '.musicxml': 'xml', '.xml': 'xml', '.mxl': 'mxl', '.mei': 'xml' });

/**
 * @typedef {object} NotationSource
 * @property {'musicxml' | 'mei'} format
 * @property {string} text                 the XML document
 * @property {import('./xml.js').XmlElement} root
 * @property {{ source: string, name: string }[]} parts  in document order: MusicXML part ids, MEI staff numbers
 * @property {import('./musicxml-form.js').FormMeasure[] | null} form  MusicXML's repeats, endings, jumps and bar lengths; null for MEI
 */

/** @typedef {{ ok: true, value: NotationSource } | { ok: false, problems: string[] }} SourceResult */

/**
 * Text of an XML file, by its byte-order mark (UTF-16 MusicXML exists in the wild).
 * @param {Buffer} bytes
 */
function decodeText(bytes) {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8').decode(
    bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes,
  );
}

/**
 * The MusicXML document inside a .mxl archive (MusicXML 4.0, "Compressed MusicXML files":
 * META-INF/container.xml names the root file).
 * @param {Buffer} bytes
 * @param {(what: string, todo: string) => string} problem
 * @returns {{ ok: true, text: string } | { ok: false, problems: string[] }}
 */
function unpackMxl(bytes, problem) {
  const zip = readZip(bytes);
  if (!zip.ok)
    return {
      ok: false,
      problems: [
        problem(
          `${zip.message}, but .mxl is compressed MusicXML`,
          'export it again as compressed MusicXML, or rename it to .musicxml if it is plain MusicXML',
        ),
      ],
    };
  const byName = new Map(zip.entries.map((e) => [e.name, e]));
  try {
    let rootPath = '';
    const container = byName.get('META-INF/container.xml');
    if (container) {
      const doc = parseXml(decodeText(container.read()));
      if (doc.ok) {
        /** @type {string[]} */
        const paths = [];
        walk(doc.root, (el) => {
          if (localName(el) === 'rootfile' && el.attrs['full-path']) paths.push(el.attrs['full-path']);
        });
        rootPath = paths.find((p) => byName.has(p)) ?? '';
      }
    }
    if (!rootPath)
      rootPath =
        zip.entries.find((e) => /\.(musicxml|xml)$/i.test(e.name) && !e.name.startsWith('META-INF/'))?.name ?? '';
    const entry = byName.get(rootPath);
    if (!entry)
      return {
        ok: false,
        problems: [
          problem(
            'is a zip archive without a MusicXML score in it',
            'export the score again as compressed MusicXML (.mxl)',
          ),
        ],
      };
    return { ok: true, text: decodeText(entry.read()) };
  } catch (err) {
    if (err instanceof ZipEntryError && err.tooLarge)
      return {
        ok: false,
        problems: [
          problem(
            `${err.message}; it was not read further`,
            'check that it is the right file, or export the score as uncompressed MusicXML (.musicxml)',
          ),
        ],
      };
    return {
      ok: false,
      problems: [
        problem(
          `the archive is damaged (${/** @type {Error} */ (err).message})`,
          'export the score again as compressed MusicXML (.mxl)',
        ),
      ],
    };
  }
}

/**
 * Read and check a notation file.
 * @param {string} file  its path (the name appears in problems)
 * @param {Buffer} bytes
 * @returns {SourceResult}
 */
export function readNotation(file, bytes) {
  const name = path.basename(file);
  const problem = (/** @type {string} */ what, /** @type {string} */ todo) => `${name}: ${what}; ${todo}`;
  const ext = /** @type {keyof typeof EXTENSIONS} */ (path.extname(file).toLowerCase());
  if (!Object.hasOwn(EXTENSIONS, ext)) {
    return {
      ok: false,
      problems: [
        problem(
          `"${path.extname(file) || '(none)'}" is not a notation file extension we engrave`,
          'use MusicXML (.musicxml, .xml), compressed MusicXML (.mxl) or MEI (.mei)',
        ),
      ],
    };
  }
  let text;
  if (EXTENSIONS[ext] === 'mxl') {
    const unpacked = unpackMxl(bytes, problem);
    if (!unpacked.ok) return unpacked;
    text = unpacked.text;
  } else {
    text = decodeText(bytes);
  }
  if (!/^\s*</.test(text)) {
    return {
      ok: false,
      problems: [
        problem(
          'is not XML (it does not start with "<")',
          'export the score as MusicXML or MEI from your notation program',
        ),
      ],
    };
  }
  const doc = parseXml(text);
  if (!doc.ok)
    return {
      ok: false,
      problems: [
        problem(
          `is not well-formed XML: line ${doc.line}: ${doc.message}`,
          'export the score again, or fix the XML at that line',
        ),
      ],
    };
  const root = doc.root;
  const rootName = localName(root);
  if (rootName === 'score-timewise') {
    return {
      ok: false,
      problems: [problem('is timewise MusicXML, which Verovio does not engrave', 'export it as (partwise) MusicXML')],
    };
  }
  if (rootName === 'score-partwise') return musicXmlSource(text, root, problem);
  if (rootName === 'mei') return meiSource(text, root, problem);
  return {
    ok: false,
    problems: [
      problem(
        `is XML but not music: its root element is <${root.name}>, not <score-partwise> (MusicXML) or <mei>`,
        'export the score as MusicXML or MEI from your notation program',
      ),
    ],
  };
}

/**
 * @param {string} text
 * @param {import('./xml.js').XmlElement} root
 * @param {(what: string, todo: string) => string} problem
 * @returns {SourceResult}
 */
function musicXmlSource(text, root, problem) {
  const partList = child(root, 'part-list');
  const scoreParts = partList ? childrenNamed(partList, 'score-part') : [];
  const parts = childrenNamed(root, 'part');
  if (scoreParts.length === 0 || parts.length === 0)
    return {
      ok: false,
      problems: [
        problem(
          'is MusicXML without parts (no <score-part> or <part>)',
          'export the whole score from your notation program',
        ),
      ],
    };
  if (!parts.some((p) => childrenNamed(p, 'measure').length > 0))
    return {
      ok: false,
      problems: [problem('is MusicXML without measures', 'export the whole score from your notation program')],
    };
  const named = new Map(
    scoreParts.map((sp) => {
      const pn = child(sp, 'part-name');
      return [sp.attrs.id, pn ? textOf(text, pn).trim() : ''];
    }),
  );
  return {
    ok: true,
    value: {
      format: 'musicxml',
      text: wrapBareTempo(text, parts),
      root,
      parts: parts.map((p) => ({ source: p.attrs.id ?? '', name: named.get(p.attrs.id) ?? '' })),
      form: readMusicXmlForm(text, root),
    },
  };
}

/**
 * MusicXML lets <sound tempo> stand in a measure on its own (MusicXML 4.0, <measure> content);
 * Verovio 6.3 reads tempo only from a <sound> inside a <direction>, so wrap bare ones in a
 * direction without text, where they are.
 * @param {string} text
 * @param {import('./xml.js').XmlElement[]} parts
 */
function wrapBareTempo(text, parts) {
  const edits = parts
    .flatMap((part) => childrenNamed(part, 'measure').flatMap((m) => childrenNamed(m, 'sound')))
    .filter((sound) => sound.attrs.tempo !== undefined)
    .map((sound) => ({
      start: sound.start,
      end: sound.end,
      with: `<direction><direction-type><words/></direction-type>${text.slice(sound.start, sound.end)}</direction>`,
    }));
  return edits.length ? spliceText(text, edits) : text;
}

/**
 * @param {string} text
 * @param {import('./xml.js').XmlElement} root
 * @param {(what: string, todo: string) => string} problem
 * @returns {SourceResult}
 */
function meiSource(text, root, problem) {
  /** @type {import('./xml.js').XmlElement | undefined} */
  let scoreDef;
  let measures = 0;
  walk(root, (el) => {
    const ln = localName(el);
    if (ln === 'meiHead') return false;
    if (ln === 'scoreDef' && !scoreDef) scoreDef = el;
    if (ln === 'measure') measures++;
    return true;
  });
  if (!scoreDef || measures === 0)
    return {
      ok: false,
      problems: [
        problem(
          'is MEI without a score in measures (no <scoreDef> or <measure>)',
          'engrave common music notation encoded as <score> with <measure>s',
        ),
      ],
    };
  /** @type {{ source: string, name: string }[]} */
  const parts = [];
  walk(scoreDef, (el) => {
    if (localName(el) !== 'staffDef') return true;
    const label = child(el, 'label');
    parts.push({ source: el.attrs.n ?? '', name: label ? textOf(text, label).trim() : (el.attrs.label ?? '') });
    return false;
  });
  if (parts.length === 0)
    return {
      ok: false,
      problems: [
        problem(
          'is MEI without staves (no <staffDef> in its first <scoreDef>)',
          'define the staves in the first <scoreDef>',
        ),
      ],
    };
  return { ok: true, value: { format: 'mei', text, root, parts, form: null } };
}
