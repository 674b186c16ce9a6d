// nginx in front of the edges (infra/nginx/scorecast.conf.template): the edges believe its
// X-Forwarded-For (--trust-proxy), so every location must send the one nginx writes. nginx
// inherits proxy_set_header all or nothing: a location with a header of its own sends none of the
// server's, which is how the audit found no X-Forwarded-For and no Host reaching the edges.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nginxConfig } from '../../infra/cluster/run.js';

const HAVE_NGINX = spawnSync('sh', ['-c', 'command -v nginx || test -x /usr/sbin/nginx']).status === 0;
/** The configuration `npm run cluster` writes, without its comments. */
const conf = nginxConfig({
  ports: [8081, 8082],
  listen: '127.0.0.1:18080',
  prefix: '/tmp/scorecast-nginx-test',
}).replace(/#.*$/gm, '');

/**
 * The text of every `location` block (nginx's blocks here do not nest).
 * @param {string} text
 */
function locations(text) {
  return [...text.matchAll(/location\s+[^{]*\{([^}]*)\}/g)].map((m) => m[1]);
}

describe('the nginx template', () => {
  it('sets the proxy headers once for every location, X-Forwarded-For overwritten with the address nginx sees', () => {
    const blocks = locations(conf);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const block of blocks) expect(block).not.toMatch(/proxy_set_header/);
    expect(conf).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;/m);
    expect(conf).not.toMatch(/proxy_add_x_forwarded_for/);
    expect(conf).toMatch(/^\s*proxy_set_header Host \$host;/m);
    expect(conf).toMatch(/^\s*proxy_set_header X-Forwarded-Proto \$scheme;/m);
  });

  it("limits each client address and answers 429; its timeouts are the edges'", () => {
    expect(conf).toMatch(/limit_conn_zone \$binary_remote_addr zone=scorecast_conn:/);
    expect(conf).toMatch(/^\s*limit_conn scorecast_conn \d+;/m);
    expect(conf).toMatch(/limit_req_zone \$binary_remote_addr zone=scorecast_req:/);
    expect(conf).toMatch(/limit_conn_status 429;/);
    expect(conf).toMatch(/limit_req_status 429;/);
    expect(conf).toMatch(/client_header_timeout 10s;/);
    expect(conf).toMatch(/client_body_timeout 10s;/);
    expect(conf).toMatch(/server_tokens off;/);
    expect(conf).toMatch(/worker_processes auto;/);
  });

  it("moves a WebSocket's pushed changes through a 16k buffer (4k read and wrote one in five pieces)", () => {
    const block = /location = \/live \{([^}]*)\}/.exec(conf);
    expect(block?.[1]).toMatch(/proxy_buffer_size 16k;/);
  });

  it("keeps the nodes' /metrics off the audience's side", () => {
    const block = /location = \/metrics \{([^}]*)\}/.exec(conf);
    expect(block?.[1]).toMatch(/return 404;/);
    expect(block?.[1]).not.toMatch(/proxy_pass/);
  });

  it.skipIf(!HAVE_NGINX)('is a configuration nginx accepts', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-nginx-'));
    try {
      for (const d of ['tmp', 'cache']) mkdirSync(path.join(dir, d));
      const file = path.join(dir, 'nginx.conf');
      writeFileSync(file, nginxConfig({ ports: [8081], listen: '127.0.0.1:18080', prefix: dir }));
      const r = spawnSync('sh', ['-c', `$(command -v nginx || echo /usr/sbin/nginx) -t -c "${file}" -p "${dir}"`], {
        encoding: 'utf8',
      });
      expect(r.stderr).toMatch(/test is successful/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
