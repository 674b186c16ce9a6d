// The audio lab's CPU reading of each page's browser (infra/audio-lab/proc-cpu.js): what /proc says,
// parsed, and what the lab reports from two readings.

import { describe, expect, it } from 'vitest';
import { cpuBetween, parseStat, processKind } from '../../infra/audio-lab/proc-cpu.js';

describe('processKind', () => {
  it("names Chromium's processes by type, a utility by its service, others by program", () => {
    expect(processKind('/usr/lib/chromium/chromium\0--no-sandbox\0')).toBe('browser');
    expect(processKind('/usr/lib/chromium/chromium\0--type=renderer\0--lang=en-US\0')).toBe('renderer');
    expect(processKind('/usr/lib/chromium/chromium\0--type=gpu-process\0')).toBe('gpu-process');
    expect(
      processKind('/usr/lib/chromium/chromium\0--type=utility\0--utility-sub-type=audio.mojom.AudioService\0'),
    ).toBe('audio');
    // A zygote's child: its title rewritten, one string with spaces.
    expect(
      processKind('/usr/lib/chromium/chromium --type=renderer --user-data-dir=/tmp/playwright_x --lang=en-US\0\0'),
    ).toBe('renderer');
    expect(processKind('/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitWebProcess\u00007\0')).toBe('WebKitWebProcess');
  });
});

describe('parseStat', () => {
  it('reads the parent and user + system ticks after a command name holding spaces and parentheses', () => {
    const stat = '4242 (Web Content (x)) S 4200 4242 4242 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 12 0 1 2 3';
    expect(parseStat(stat)).toEqual({ ppid: '4200', ticks: 287 });
  });
});

describe('cpuBetween', () => {
  it("sums each sink's processes by kind as percent of a core, a new process from its start", () => {
    const before = new Map([
      ['1', { sink: 'ch0', kind: 'renderer', ticks: 100 }],
      ['2', { sink: 'ch0', kind: 'audio', ticks: 50 }],
      ['3', { sink: 'ch1', kind: 'renderer', ticks: 10 }],
    ]);
    const after = new Map([
      ['1', { sink: 'ch0', kind: 'renderer', ticks: 300 }],
      ['2', { sink: 'ch0', kind: 'audio', ticks: 150 }],
      ['4', { sink: 'ch1', kind: 'renderer', ticks: 50 }],
    ]);
    expect(cpuBetween(before, after, 10)).toEqual({
      ch0: { total: 30, renderer: 20, audio: 10 },
      ch1: { total: 5, renderer: 5 },
    });
  });
});
