import { describe, it, expect, vi, afterAll } from 'vitest';

// The calling thread's child_process refuses to start anything: a tool must be started from the
// tool thread, whose own module is not this mock.
vi.mock('node:child_process', () => {
  const refuse = () => {
    throw new Error('started from the calling thread');
  };
  return { execFile: refuse, spawn: refuse, default: { execFile: refuse, spawn: refuse } };
});

const { runTool } = await import('../../../../server/package/pdf/poppler.js');
const { closeToolThread, toolThreadId } = await import('../../../../server/package/pdf/tool-thread.js');

afterAll(() => closeToolThread());

describe("Poppler's tools, started off the calling thread", () => {
  it('runs a tool from the tool thread and gives its output and exit code', async () => {
    const r = await runTool('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3']);
    expect(r).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(toolThreadId()).not.toBeNull();
  });

  it('runs tools side by side, and a wall-time limit still ends one', async () => {
    const [slow, fast] = await Promise.all([
      runTool('/bin/sleep', ['5'], { timeoutMs: 300 }),
      runTool('/bin/echo', ['fast']),
    ]);
    expect(fast).toMatchObject({ code: 0, stdout: 'fast\n' });
    expect(slow).toMatchObject({ code: null, timedOut: true });
  });

  it('fails a tool whose thread stops, rather than waiting for it', async () => {
    const running = runTool('/bin/sleep', ['5']);
    await new Promise((r) => setTimeout(r, 100));
    await closeToolThread();
    expect(await running).toMatchObject({ code: -1, timedOut: false });
    expect(toolThreadId()).toBeNull();
    expect(await runTool('/bin/echo', ['again'])).toMatchObject({ code: 0, stdout: 'again\n' });
  });
});
