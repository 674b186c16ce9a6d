// ZScore's `web:` scripts and what of them becomes scorecast cues. A web script is JavaScript that
// ZScore's server evaluates (Nashorn) against its audience-page model `webScore`
// (szcore .../score/web/audience/WebAudienceScore.java), e.g.
//   web:beat=2:reset=both:webScore.setInstructions('Now'|'play'|'');webScore.reset(3)
// with ZScore's escapes: "|" for a comma, "@C@" for a literal comma, "@Q@" for an apostrophe
// inside a quoted text ('you@Q@ve'), curly quotes for quotes (ScoreLoader.processWebAudienceElement).
// We read the calls as data, never run them.

/**
 * @typedef {object} WebScript
 * @property {number | null} beat    the beat=N prefix, or null
 * @property {'only' | 'both' | null} reset  the reset=... prefix, or null
 * @property {string} body           the JavaScript, escapes undone
 */

/**
 * @typedef {object} Call
 * @property {string} method
 * @property {unknown[]} args
 * @property {string} text   the call as written, for the report
 */

/**
 * @typedef {object} Preset  a preset of ZScore's web score configuration (YAML)
 * @property {number} id
 * @property {string} file
 * @property {number} line
 * @property {{ text: string, line: number }[]} scripts
 * @property {{ name: string, line: number, value?: unknown }[]} config
 */

/**
 * @typedef {{ type: 'set', set: Record<string, unknown> } | { type: 'reset' }} Op
 */

/**
 * @typedef {object} Skipped  something not converted, with where it is and why
 * @property {string} source  "file line N"
 * @property {string} what
 * @property {string} reason
 */

/**
 * Split a `web:` resource into its prefixes and script body, as ZScore does.
 * @param {string} resource  starting with "web:"
 * @returns {{ ok: true, value: WebScript } | { ok: false, message: string }}
 */
export function splitWebResource(resource) {
  let s = resource.replace(/^web:?/, '');
  /** @type {number | null} */
  let beat = null;
  /** @type {'only' | 'both' | null} */
  let reset = null;
  if (s.startsWith('beat')) {
    const m = /^beat=?(-?\d+):/.exec(s);
    if (!m)
      return {
        ok: false,
        message: 'beat= must be a whole number followed by ":" and the script, e.g. web:beat=2:webScore...',
      };
    beat = Number(m[1]);
    s = s.slice(m[0].length);
  }
  if (s.startsWith('reset')) {
    const m = /^reset=?(only|both):/.exec(s);
    if (!m) return { ok: false, message: 'reset= must be "only" or "both" followed by ":" and the script' };
    reset = /** @type {'only' | 'both'} */ (m[1]);
    s = s.slice(m[0].length);
  }
  // @Q@ stands inside a quoted string: it becomes an escaped apostrophe, so the string goes on.
  const body = s
    .replaceAll('|', ',')
    .replace(/[\u2018\u2019]/g, "'")
    .replaceAll('@C@', ',')
    .replaceAll('@Q@', "\\'");
  return { ok: true, value: { beat, reset, body } };
}

/**
 * The beat a `beat=N` prefix points at, exactly as ZScore computes it: N is counted from the
 * row's own beat (1 = this beat, 2 = the next, -1 = the one before), except that N equal to the
 * row's beat number means that beat itself.
 * @param {number} beatNo  the row's beat number
 * @param {number} n
 */
export function zscoreScriptBeat(beatNo, n) {
  if (n === beatNo) return beatNo;
  return beatNo + n + (n < 0 ? 0 : -1);
}

/**
 * Read a script as a list of `webScore.method(args)` calls (or calls on `object`, e.g. `sce`)
 * with literal arguments (strings, numbers, booleans, null, arrays, objects). Anything else is
 * refused with the reason.
 * @param {string} js
 * @param {string} [object]
 * @returns {{ ok: true, calls: Call[] } | { ok: false, message: string }}
 */
export function parseWebCalls(js, object = 'webScore') {
  let i = 0;
  /** @param {string} message */
  const fail = (message) => {
    throw new SyntaxError(`${message} at character ${i + 1}`);
  };
  const ws = () => {
    while (i < js.length && /\s/.test(js[i])) i++;
  };
  /** @param {string} ch */
  const eat = (ch) => {
    ws();
    if (js[i] !== ch) fail(`expected "${ch}"`);
    i++;
  };
  const ident = () => {
    ws();
    const m = /^[A-Za-z_$][\w$]*/.exec(js.slice(i));
    if (!m) fail('expected a name');
    i += /** @type {RegExpExecArray} */ (m)[0].length;
    return /** @type {RegExpExecArray} */ (m)[0];
  };
  /** @returns {unknown} */
  const value = () => {
    ws();
    const ch = js[i];
    if (ch === "'" || ch === '"') {
      i++;
      let out = '';
      while (i < js.length && js[i] !== ch) {
        if (js[i] === '\\' && i + 1 < js.length) {
          const e = js[i + 1];
          out += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else out += js[i++];
      }
      if (i >= js.length) fail('a string is never closed');
      i++;
      return out;
    }
    if (ch === '[') {
      i++;
      const items = [];
      ws();
      while (js[i] !== ']') {
        items.push(value());
        ws();
        if (js[i] === ',') {
          i++;
          ws();
        } else if (js[i] !== ']') fail('expected "," or "]"');
      }
      i++;
      return items;
    }
    if (ch === '{') {
      i++;
      /** @type {Record<string, unknown>} */
      const obj = {};
      ws();
      while (js[i] !== '}') {
        ws();
        const key = js[i] === "'" || js[i] === '"' ? String(value()) : ident();
        eat(':');
        obj[key] = value();
        ws();
        if (js[i] === ',') {
          i++;
          ws();
        } else if (js[i] !== '}') fail('expected "," or "}"');
      }
      i++;
      return obj;
    }
    const m = /^(-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|true|false|null)/.exec(js.slice(i));
    if (!m) fail('expected a literal value (text in quotes, a number, true, false, a list [...])');
    i += /** @type {RegExpExecArray} */ (m)[0].length;
    const t = /** @type {RegExpExecArray} */ (m)[0];
    return t === 'true' ? true : t === 'false' ? false : t === 'null' ? null : Number(t);
  };

  /** @type {Call[]} */
  const calls = [];
  try {
    for (;;) {
      ws();
      while (js[i] === ';') {
        i++;
        ws();
      }
      if (i >= js.length) break;
      const start = i;
      if (ident() !== object) fail(`expected a call on ${object}`);
      eat('.');
      const method = ident();
      eat('(');
      const args = [];
      ws();
      while (js[i] !== ')') {
        if (i >= js.length) fail('expected ")"');
        args.push(value());
        ws();
        if (js[i] === ',') i++;
        else if (js[i] !== ')') fail('expected "," or ")"');
        ws();
      }
      i++;
      calls.push({ method, args, text: js.slice(start, i).trim() });
      ws();
      if (i < js.length && js[i] !== ';') fail('expected ";" between calls');
    }
  } catch (err) {
    return { ok: false, message: /** @type {Error} */ (err).message };
  }
  return { ok: true, calls };
}

/** Why the web-page features ZScore scripts drive have no scorecast counterpart. */
const NO_COUNTERPART = [
  [
    /^(set(Visible|Active)Rows|deactivateRows?|setTileTexts?|setPlaying(Next)?Tiles?|playTiles|setSelectedElement|reset(Selected|Playing|PlayingNext)Tiles|resetClickCounts|prepareNextTilesToPlay)$/,
    "a tile call scorecast does not read here (a preset's rows, a selection made by the composer, click counts): scorecast's tiles come from setActiveRows, deactivateRows, setTileTexts, playTiles and setPlayingNextTiles in the score's scripts, and each phone selects its own tiles",
  ],
  [
    /(Granulator|granulator|Speech|speech|speak|Synth|synth|Player|player|Audio|audio|Volume)/,
    "browser sound of this kind (ZScore's synth, player, or a granulator call with arguments scorecast does not read) is not converted; scorecast plays audio clips (`audio` cues), the granulator (`granulator`) and speaks tile words (`speech`)",
  ],
  [
    /^(setAction|resetActions|setZoomLevel|setStageAlpha|setAlpha|removeOverlays|setSection|activateViews|deactivateViews|setOverlay\w*)$/,
    "overlays, sections and other effects of ZScore's audience page have no scorecast counterpart (its zoom, the stage's fade and ring rotations are converted when the tiles are drawn as a rose)",
  ],
];

/**
 * Turn calls into cue operations. `webScore.reset(N)` runs preset N of the YAML configuration
 * (its scripts are converted the same way, its `config` entries are reported).
 * @param {Call[]} calls
 * @param {{ source: string, presets: Map<number, Preset>, used: Set<number>, stack?: number[] }} ctx
 * @returns {{ ops: Op[], converted: string[], skipped: Skipped[] }}
 */
export function convertWebCalls(calls, ctx) {
  /** @type {Op[]} */
  const ops = [];
  /** @type {string[]} */
  const converted = [];
  /** @type {Skipped[]} */
  const skipped = [];
  /** @param {Call} c @param {string} reason */
  const skip = (c, reason) => {
    skipped.push({ source: ctx.source, what: c.text, reason });
  };
  for (const c of calls) {
    const a = c.args;
    if (c.method === 'setInstructions') {
      const set = instructions(a);
      if (!set)
        skip(
          c,
          'setInstructions takes (visible), (line1, line2, line3), (…, visible) or (…, colour, visible); these arguments do not fit',
        );
      else {
        ops.push({ type: 'set', set });
        converted.push(c.text);
      }
    } else if (c.method === 'resetState' && a.length === 0) {
      ops.push({ type: 'reset' });
      converted.push(c.text);
    } else if (c.method === 'setVisible') {
      // ZScore's setVisible shows or hides the page's shapes (its element states: centreShape,
      // innerCircle, outerCircle in Union Rose), never tiles (WebAudienceScoreProcessor.setVisible).
      skip(
        c,
        "shows or hides a shape of ZScore's audience page (the rose's centre and circles), not a tile; scorecast's audience view does not draw ZScore's shapes",
      );
    } else if (c.method === 'reset' && a.length === 1 && Number.isInteger(a[0])) {
      const id = /** @type {number} */ (a[0]);
      const preset = ctx.presets.get(id);
      const stack = ctx.stack ?? [];
      if (!preset) {
        skip(
          c,
          `preset ${id} is not in the YAML configuration (presets: ${[...ctx.presets.keys()].join(', ') || 'none'})`,
        );
        continue;
      }
      if (stack.includes(id)) {
        skip(c, `preset ${id} resets itself (through ${[...stack, id].join(' -> ')}); ZScore would loop`);
        continue;
      }
      ctx.used.add(id);
      for (const cfg of preset.config) {
        skipped.push({
          source: `${preset.file} line ${cfg.line}`,
          what: `preset ${id}: config ${cfg.name} (through ${c.text} in ${ctx.source})`,
          reason:
            'browser sound configuration of a preset run by a script (granulator, speech, synth, player) is not converted; the load preset -2 gives the phones their voice',
        });
      }
      for (const s of preset.scripts) {
        const source = `${preset.file} line ${s.line}`;
        const parsed = parseWebCalls(s.text);
        if (!parsed.ok) {
          skipped.push({ source, what: s.text, reason: `could not read the script: ${parsed.message}` });
          continue;
        }
        const inner = convertWebCalls(parsed.calls, { ...ctx, source, stack: [...stack, id] });
        ops.push(...inner.ops);
        converted.push(...inner.converted.map((t) => `${c.text} -> ${t}`));
        skipped.push(...inner.skipped);
      }
    } else {
      const reason = NO_COUNTERPART.find(([re]) => /** @type {RegExp} */ (re).test(c.method));
      skip(c, reason ? /** @type {string} */ (reason[1]) : `webScore.${c.method} has no scorecast counterpart`);
    }
  }
  return { ops, converted, skipped };
}

/**
 * The cue patch of a setInstructions call, or null when the arguments do not fit its overloads.
 * ZScore shows three lines of text (HTML allowed) on a coloured panel; scorecast shows one text.
 * @param {unknown[]} a
 * @returns {Record<string, unknown> | null}
 */
function instructions(a) {
  if (a.length === 1 && typeof a[0] === 'boolean') return { text: null };
  if (a.length < 3 || a.length > 5 || !a.slice(0, 3).every((l) => typeof l === 'string' || l === null)) return null;
  const visible = a.length === 3 ? true : a[a.length - 1];
  if (typeof visible !== 'boolean') return null;
  const colour = a.length === 5 ? a[3] : undefined;
  if (colour !== undefined && typeof colour !== 'string') return null;
  if (!visible) return { text: null };
  const text = a
    .slice(0, 3)
    .map((l) => plainText(/** @type {string | null} */ (l) ?? ''))
    .filter((l) => l !== '')
    .join('\n');
  return { text: text === '' ? null : text, ...(colour ? { background: colour } : {}) };
}

/**
 * Text of a line of ZScore instructions, which may hold HTML markup.
 * @param {string} html
 */
export function plainText(html) {
  const ENTITIES = /** @type {Record<string, string>} */ ({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' ',
  });
  return html
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Apply cue operations to a patch of the audience view.
 * @param {Op[]} ops
 * @returns {Record<string, unknown>}
 */
export function applyOps(ops) {
  /** @type {Record<string, unknown>} */
  const patch = {};
  for (const op of ops) {
    if (op.type === 'set') Object.assign(patch, op.set);
    else Object.assign(patch, { text: null, color: null, background: null });
  }
  return patch;
}
