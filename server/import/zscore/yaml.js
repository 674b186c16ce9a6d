// ZScore's YAML as its own reader (SnakeYAML) takes it. ZScore's configuration files write flow
// mappings over several lines with the continuation lines no deeper than the key that opens them
// (`- granulator: {` then `masterGainVal: 0.1,` at the column of `granulator`). SnakeYAML accepts
// that; YAML 1.2 (and the `yaml` package) requires flow content to be indented past the block it
// sits in and rejects every such line. Indentation means nothing inside a flow collection, so
// indenting every line that starts inside one makes the text valid YAML 1.2 with the same values
// and the same line numbers.

/** Spaces added in front of a line that continues a flow collection. */
const FLOW_INDENT = ' '.repeat(64);

/**
 * The text with every line that starts inside a flow collection ([...] or {...}) indented by a
 * fixed amount. Quotes and comments are respected; lines outside flow collections are unchanged.
 * @param {string} text
 * @returns {{ text: string, lines: number }}  the text, and how many lines were indented
 */
export function indentFlowContinuations(text) {
  const src = text.replace(/\r\n?/g, '\n').split('\n');
  let depth = 0;
  /** @type {'' | "'" | '"'} */
  let quote = '';
  let changed = 0;
  const out = src.map((line) => {
    const inside = depth > 0 && quote === '';
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quote === "'") {
        if (ch === "'" && line[i + 1] === "'") i++;
        else if (ch === "'") quote = '';
      } else if (quote === '"') {
        if (ch === '\\') i++;
        else if (ch === '"') quote = '';
      } else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]))) break;
      else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '[' || ch === '{') depth++;
      else if ((ch === ']' || ch === '}') && depth > 0) depth--;
    }
    if (!inside || line.trim() === '') return line;
    changed++;
    return `${FLOW_INDENT}${line}`;
  });
  return { text: out.join('\n'), lines: changed };
}
