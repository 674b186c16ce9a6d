import { describe, it, expect, vi, afterAll } from 'vitest';

// The calling thread's child_process refuses to start anything: a tool must be started by the
// PDF helper (its thread's and process's own modules are not this mock).
vi.mock('node:child_process', () => {
  const refuse = () => {
    throw new Error('started from the calling thread');
  };
  return { execFile: refuse, spawn: refuse, default: { execFile: refuse, spawn: refuse } };
});

const { existsSync, mkdtempSync, readFileSync, rmSync } = await import('node:fs');
const os = await import('node:os');
const path = await import('node:path');
const { runTool } = await import('../../../../server/package/pdf/poppler.js');
const { closePdfHelper, helperThreadId } = await import('../../../../server/package/pdf/helper.js');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sc-poppler-'));
afterAll(async () => {
  await closePdfHelper();
  rmSync(tmp, { recursive: true, force: true });
});

/** A process's state letter, parent and session id from /proc/<pid>/stat, or null when it is gone. */
function statOf(/** @type {number} */ pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], parent: Number(f[1]), session: Number(f[3]) };
  } catch {
    return null;
  }
}

/** Running: there and not a zombie (killed, not yet waited for). */
const running = (/** @type {number} */ pid) => {
  const s = statOf(pid);
  return s !== null && s.state !== 'Z';
};

/** Resolve when `check` holds, looking every 20 ms, at most `limitMs` (then resolve anyway). */
async function until(/** @type {() => boolean} */ check, limitMs = 10_000) {
  for (let t = 0; t < limitMs && !check(); t += 20) await new Promise((r) => setTimeout(r, 20));
}

describe("Poppler's tools, started by the PDF helper", () => {
  it('runs a tool from the helper and gives its output and exit code', async () => {
    const r = await runTool('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3']);
    expect(r).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(helperThreadId()).not.toBeNull();
  });

  it('runs tools side by side, and a wall-time limit still ends one', async () => {
    const [slow, fast] = await Promise.all([
      runTool('/bin/sleep', ['5'], { timeoutMs: 300 }),
      runTool('/bin/echo', ['fast']),
    ]);
    expect(fast).toMatchObject({ code: 0, stdout: 'fast\n' });
    expect(slow).toMatchObject({ code: null, timedOut: true });
  });

  it('starts every tool from one helper process, not from the server: no fork of the server per tool', async () => {
    const parents = [];
    for (let i = 0; i < 3; i++) {
      const r = await runTool('/bin/sh', ['-c', 'cat /proc/$$/stat']);
      parents.push(Number(r.stdout.slice(r.stdout.lastIndexOf(')') + 2).split(' ')[1]));
    }
    expect(new Set(parents).size).toBe(1);
    expect(parents[0]).not.toBe(process.pid);
    expect(statOf(parents[0])?.parent).toBe(process.pid);
  });

  it("runs each tool in a session of its own, not the server's", async () => {
    const r = await runTool('/bin/sh', ['-c', 'cat /proc/$$/stat']);
    const f = r.stdout.slice(r.stdout.lastIndexOf(')') + 2).split(' ');
    const pid = Number(r.stdout.split(' ')[0]);
    expect(Number(f[3])).toBe(pid);
    expect(Number(f[3])).not.toBe(statOf(process.pid)?.session);
  });

  it('stops a tool that writes more than 8 MiB, and says so (not a timeout)', async () => {
    const r = await runTool('/bin/sh', ['-c', 'exec yes scorecast'], { timeoutMs: 20_000 });
    expect(r).toMatchObject({ code: null, timedOut: false });
    expect(r.stderr).toMatch(/wrote more than 8388608 bytes and was stopped/);
  });

  it('kills a tool past its wall time, in its own session too', async () => {
    const r = await runTool('/bin/sh', ['-c', 'echo $$; exec sleep 30'], { timeoutMs: 300 });
    expect(r).toMatchObject({ code: null, timedOut: true });
    expect(running(Number(r.stdout))).toBe(false);
  });

  it('fails a tool whose helper stops, rather than waiting for it, and the tool is killed', async () => {
    const pidFile = path.join(tmp, 'pid');
    const tool = runTool('/bin/sh', [
      '-c',
      `echo $$ > ${pidFile}.part && mv ${pidFile}.part ${pidFile}; exec sleep 30`,
    ]);
    await until(() => existsSync(pidFile));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(running(pid)).toBe(true);
    await closePdfHelper();
    expect(await tool).toMatchObject({ code: -1, timedOut: false });
    await until(() => !running(pid));
    expect(running(pid)).toBe(false);
    expect(helperThreadId()).toBeNull();
    expect(await runTool('/bin/echo', ['again'])).toMatchObject({ code: 0, stdout: 'again\n' });
  });
});
