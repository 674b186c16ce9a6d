// The PDF helper process (started by helper-thread.js, for helper.js): it starts Poppler's tools
// (exec-tool.js) and encodes the pages they draw into PNG (png-worker.js), so that the server
// forks once per helper, not once per tool, and the encoding's CPU time is charged to the
// helper's scheduling group, not the server's (server/lib/spawn-apart.js). Messages in, over its
// IPC channel: { id, kind: 'png', from, to } or { id, kind: 'tool', cmd, args, timeoutMs };
// out: { id, data }, data { ok, width, height } for a page, a ToolResult (poppler.js) for a tool.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { execTool } from './exec-tool.js';
import { encodePng, readPpm } from './png-worker.js';

// At nice 10, as pdftoppm and the engraver (engrave/worker.js): where the kernel has no autogroups
// the nice value alone ranks it below the beat's thread. Encoding at the server's own priority put
// the beat timer's p99 lateness at 217 ms while PDFs loaded (7.5 ms idle) at load 11.
try {
  os.setPriority(10);
} catch {
  // Not permitted here: the helper runs at the server's priority.
}

/**
 * A page's PPM file written as a PNG file (the PPM removed).
 * @param {string} from
 * @param {string} to
 */
function encodeFile(from, to) {
  try {
    const image = readPpm(readFileSync(from));
    if (!image) return { ok: false };
    writeFileSync(to, encodePng(image));
    rmSync(from, { force: true });
    return { ok: true, width: image.width, height: image.height };
  } catch {
    return { ok: false };
  }
}

const send = /** @type {NonNullable<typeof process.send>} */ (process.send).bind(process);

process.on(
  'message',
  async (
    /** @type {{ id: number, kind: 'png', from: string, to: string } | { id: number, kind: 'tool', cmd: string, args: string[], timeoutMs: number }} */ m,
  ) => {
    if (m.kind === 'png') send({ id: m.id, data: encodeFile(m.from, m.to) });
    else send({ id: m.id, data: await execTool(m.cmd, m.args, m.timeoutMs) });
  },
);
// The thread that started it has let it go, or has ended.
process.on('disconnect', () => process.exit(0));
