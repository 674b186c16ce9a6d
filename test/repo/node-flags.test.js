import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { SERVER_NODE_FLAGS } from '../../server/commands/node-flags.js';

const read = (/** @type {string} */ f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
const flags = SERVER_NODE_FLAGS.join(' ');

describe('the server starts with its Node flags wherever it is started', () => {
  it('has flags to hold equal', () => {
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
  });

  it('in the first line of the scorecast command and of start.js', () => {
    for (const f of ['server/commands/cli.js', 'server/commands/start.js'])
      expect(read(f).split('\n')[0], f).toBe(`#!/usr/bin/env -S node ${flags}`);
  });

  it('in npm start', () => {
    expect(JSON.parse(read('package.json')).scripts.start).toBe(`node ${flags} server/commands/start.js --autoplay`);
  });

  it('in the systemd unit', () => {
    expect(read('infra/systemd/scorecast@.service')).toContain(
      `ExecStart=/usr/bin/node ${flags} /opt/scorecast/server/commands/start.js\n`,
    );
  });
});
