// Poppler's command-line tools (pdfinfo, pdftoppm, pdfdetach), run as child processes: never
// through a shell, with the PDF's path as an argument after the options, under an address-space
// limit and a CPU-time limit (prlimit) and a wall-time backstop, at a lower CPU priority (nice,
// and a scheduling group of low weight: server/lib/spawn-apart.js), started by the PDF helper
// process (helper.js), so that a hostile or huge PDF costs that process only and the beat's event
// loop never waits on it (doc/score-format.md, "PDF pages", says why Poppler).

import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { runInHelper } from './helper.js';

/** Each tool's address space: a 600 dpi A3 scan page decoded is about 200 MB. */
export const TOOL_MEMORY_BYTES = 1024 ** 3;
/**
 * A run's CPU time (RLIMIT_CPU, then SIGXCPU) for each page it renders: an A4 page of dense
 * engraved music at 1,600 px takes about 0.5 s of CPU. CPU time, not wall time: at nice 10 on a machine busy with other work a run
 * waits for the CPU far longer than it works (5 pages took more than 60 s at load 20), and a
 * hostile PDF is bounded by the work it makes, not by how busy the machine is.
 */
export const TOOL_CPU_SECONDS = 60;
/** CPU seconds a render may take per page, on top of TOOL_CPU_SECONDS. */
export const CPU_SECONDS_PER_PAGE = 12;
/** A backstop in wall time, for a tool stuck without using CPU. */
export const TOOL_TIMEOUT_MS = 600_000;

/**
 * The absolute path of an executable on PATH, or null.
 * @param {string} name
 * @param {string} [searchPath]
 */
export async function findTool(name, searchPath = process.env.PATH ?? '') {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** @type {Map<string, Promise<string | null>>} */
const found = new Map();

/** @param {string} name */
const tool = (name) => {
  let p = found.get(name);
  if (!p) {
    p = findTool(name);
    found.set(name, p);
  }
  return p;
};

/**
 * The Poppler tools, or null when pdfinfo or pdftoppm is missing (SC_ERR_PDF_RENDERER_MISSING).
 * @returns {Promise<{ pdfinfo: string, pdftoppm: string, version: string } | null>}
 */
export async function popplerTools() {
  const [pdfinfo, pdftoppm] = await Promise.all([tool('pdfinfo'), tool('pdftoppm')]);
  if (!pdfinfo || !pdftoppm) return null;
  // Asked once per process: each child started costs a fork of this process.
  let v = versions.get(pdftoppm);
  if (!v) {
    v = runTool(pdftoppm, ['-v']).then((r) => /version\s+([\d.]+)/.exec(`${r.stdout}\n${r.stderr}`)?.[1] ?? 'unknown');
    versions.set(pdftoppm, v);
  }
  return { pdfinfo, pdftoppm, version: await v };
}

/** @type {Map<string, Promise<string>>} */
const versions = new Map();

/**
 * @typedef {object} ToolResult
 * @property {number | null} code  exit code (null when killed; -1 when the helper that started it
 *   stopped: helper.js)
 * @property {string} stdout
 * @property {string} stderr
 * @property {boolean} timedOut  past its CPU time or its wall time
 * @property {boolean} outOfMemory  it failed for want of memory within its limit
 */

/**
 * Run a tool with its arguments (no shell), within `memoryBytes` of address space, `cpuSeconds`
 * of CPU and `timeoutMs` of wall time.
 * @param {string} file  absolute path of the tool
 * @param {string[]} args
 * @param {{ timeoutMs?: number, memoryBytes?: number, cpuSeconds?: number }} [options]
 * @returns {Promise<ToolResult>}
 */
export async function runTool(
  file,
  args,
  { timeoutMs = TOOL_TIMEOUT_MS, memoryBytes = TOOL_MEMORY_BYTES, cpuSeconds = TOOL_CPU_SECONDS } = {},
) {
  const [prlimit, nice] = await Promise.all([tool('prlimit'), tool('nice')]);
  /** @type {string[]} */
  let argv = [file, ...args];
  if (nice) argv = [nice, '-n', '10', ...argv];
  // Without prlimit (not Linux) the time limit still holds.
  if (prlimit) argv = [prlimit, `--as=${memoryBytes}`, `--cpu=${cpuSeconds}`, '--core=0', '--', ...argv];
  const [cmd, ...rest] = argv;
  try {
    return await runInHelper({ kind: 'tool', cmd, args: rest, timeoutMs }, timeoutMs + GRACE_MS);
  } catch (err) {
    // A tool whose helper stopped is not waited for (its limits, and its parent-death signal, end it).
    const stderr = `the PDF helper stopped (${/** @type {Error} */ (err).message})`;
    return { code: -1, stdout: '', stderr, timedOut: false, outOfMemory: false };
  }
}

/** Past a tool's own wall-time limit (the helper kills it), the helper is stopped too. */
const GRACE_MS = 5000;
