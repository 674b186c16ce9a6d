#!/usr/bin/env node
// `node infra/cluster/redis-users.js DIR`: the Redis users of a cluster (server/cluster/redis-acl.js)
// for a venue's Redis (infra/systemd/README.md). Writes a random password per role to
// DIR/redis-edge.password and DIR/redis-conductor.password, and Redis's ACL file DIR/users.acl
// (the default user off; the passwords only as SHA-256), all readable by their owner only.
// Never overwrites: to change the passwords, remove the files first.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { aclConfig } from '../../server/cluster/redis-acl.js';

/**
 * @param {string[]} argv
 */
export function main(argv) {
  const dir = argv[0];
  if (!dir || dir.startsWith('-')) {
    process.stdout.write('usage: node infra/cluster/redis-users.js DIR\n');
    process.exit(dir === '-h' || dir === '--help' ? 0 : 2);
  }
  const files = {
    edge: path.join(dir, 'redis-edge.password'),
    conductor: path.join(dir, 'redis-conductor.password'),
    acl: path.join(dir, 'users.acl'),
  };
  const there = Object.values(files).filter((f) => existsSync(f));
  if (there.length > 0) {
    process.stderr.write(`redis-users: ${there.join(', ')} exist already; remove them to make new passwords\n`);
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const passwords = { edge: randomBytes(24).toString('base64url'), conductor: randomBytes(24).toString('base64url') };
  writeFileSync(files.edge, `${passwords.edge}\n`, { mode: 0o600 });
  writeFileSync(files.conductor, `${passwords.conductor}\n`, { mode: 0o600 });
  writeFileSync(files.acl, `${aclConfig(passwords)}\n`, { mode: 0o600 });
  process.stdout.write(
    `wrote ${files.acl} (for Redis: aclfile), ${files.edge} and ${files.conductor} (for the nodes)\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
