// A Redis URL as logs, banners and errors may show it. Apart from redis.js so that a server that is
// not a cluster node (the start command checks its flags with this) never loads ioredis.

/**
 * The URL with its password replaced by `***`: what logs, banners and errors may show.
 * @param {string} url
 */
export function redactUrl(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
