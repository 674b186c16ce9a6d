// Reading a Server-Sent Events stream as its text arrives (the QA load clients and the tests read
// /live/sse with this; browsers use EventSource). Events are separated by a blank line; `data:`
// lines join with a newline, `id:` names the event, comment lines (": hb") carry nothing. As the
// HTML standard's event stream format says, one space after the colon is not part of the value,
// and CRLF, CR and LF all end a line.

/**
 * @typedef {{ id: string | null, event: string | null, data: string }} SseEvent
 */

/**
 * @param {(event: SseEvent) => void} onEvent  called for each event that has data
 * @returns {(chunk: string) => void}  give it the stream's text as it comes
 */
export function createSseParser(onEvent) {
  let buf = '';
  return (chunk) => {
    buf += chunk;
    if (buf.includes('\r')) buf = buf.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      /** @type {string | null} */
      let id = null;
      /** @type {string | null} */
      let event = null;
      /** @type {string[]} */
      const data = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
        else if (field === 'event') event = value;
      }
      if (data.length) onEvent({ id, event, data: data.join('\n') });
    }
  };
}
