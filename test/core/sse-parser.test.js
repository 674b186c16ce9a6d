import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../core/sse-parser.js';

/** @param {string[]} chunks */
function parse(chunks) {
  /** @type {import('../../core/sse-parser.js').SseEvent[]} */
  const events = [];
  const push = createSseParser((e) => events.push(e));
  for (const c of chunks) push(c);
  return events;
}

describe('SSE parser', () => {
  it('reads events split anywhere across chunks, with their ids', () => {
    expect(parse(['id: 7:12\nda', 'ta: {"a":1}\n', '\n: hb\n\nid: 7:13\ndata: {"b":2}\n\n'])).toEqual([
      { id: '7:12', event: null, data: '{"a":1}' },
      { id: '7:13', event: null, data: '{"b":2}' },
    ]);
  });

  it('joins data lines with a newline, keeps a value without its one leading space, reads CRLF', () => {
    expect(parse(['event: x\r\ndata:a\r\ndata:  b\r\n\r\n'])).toEqual([{ id: null, event: 'x', data: 'a\n b' }]);
  });

  it('a comment or an event without data gives nothing; an unfinished event waits', () => {
    expect(parse([': hb\n\nid: 1\n\n', 'data: half'])).toEqual([]);
  });
});
