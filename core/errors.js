// The error catalogue: every error scorecast reports has a stable code from this table.
// doc/errors.md documents each code; test/core/errors.test.js checks that it does.

/**
 * @typedef {object} ErrorDef
 * @property {string} code    Stable code, e.g. SC_ERR_BAD_JSON.
 * @property {number} status  HTTP status when the error answers a request.
 * @property {string} message What was wrong and what to do.
 */

/** @type {Readonly<Record<string, ErrorDef>>} */
export const ERRORS = Object.freeze({
  SC_ERR_BAD_JSON: {
    code: 'SC_ERR_BAD_JSON',
    status: 400,
    message: 'The message is not valid JSON; send one JSON object per frame.',
  },
  SC_ERR_BAD_MESSAGE: {
    code: 'SC_ERR_BAD_MESSAGE',
    status: 400,
    message: 'The message has a missing field or a field of the wrong type; see doc/protocol.md.',
  },
  SC_ERR_UNKNOWN_TYPE: {
    code: 'SC_ERR_UNKNOWN_TYPE',
    status: 400,
    message: 'Unknown message type; client messages are hello, ping, tap, thumb and report.',
  },
  SC_ERR_TOO_BIG: {
    code: 'SC_ERR_TOO_BIG',
    status: 413,
    message: 'The message is larger than the server accepts (4096 bytes).',
  },
  SC_ERR_RATE_LIMITED: {
    code: 'SC_ERR_RATE_LIMITED',
    status: 429,
    message: 'Too many messages; the message was dropped. Send at most 20 per second.',
  },
  SC_ERR_NO_VOTE_WINDOW: {
    code: 'SC_ERR_NO_VOTE_WINDOW',
    status: 409,
    message: 'No vote window is open; taps count only while the score asks for a vote.',
  },
  SC_ERR_UNKNOWN_TILE: {
    code: 'SC_ERR_UNKNOWN_TILE',
    status: 400,
    message: 'That tile is not part of the open vote.',
  },
  SC_ERR_ALREADY_VOTED: {
    code: 'SC_ERR_ALREADY_VOTED',
    status: 409,
    message: 'This device has already voted in this window; one vote per device.',
  },
  SC_ERR_BAD_QUERY: {
    code: 'SC_ERR_BAD_QUERY',
    status: 400,
    message:
      "Bad query parameter; epoch is a string, since is an integer >= 0, wait is milliseconds >= 0, a view's width is CSS px from 1 to 10000.",
  },
  SC_ERR_UNAUTHORIZED: {
    code: 'SC_ERR_UNAUTHORIZED',
    status: 401,
    message: 'Missing or wrong conductor token; send Authorization: Bearer <token>.',
  },
  SC_ERR_UNKNOWN_ACTION: {
    code: 'SC_ERR_UNKNOWN_ACTION',
    status: 404,
    message: 'Unknown control action; use play, pause, stop, seek, loop, tempo, vote, preset or next.',
  },
  SC_ERR_THUMBS_CLOSED: {
    code: 'SC_ERR_THUMBS_CLOSED',
    status: 409,
    message: 'The score is not asking for thumbs now; they count only while the page shows them.',
  },
  SC_ERR_SECTION_REFUSED: {
    code: 'SC_ERR_SECTION_REFUSED',
    status: 409,
    message:
      'That choice of the next section is not yours to make now; the offer says who chooses and what may follow.',
  },
  SC_ERR_BAD_CONTROL: {
    code: 'SC_ERR_BAD_CONTROL',
    status: 400,
    message: 'Bad control arguments; see doc/protocol.md, "Control".',
  },
  SC_ERR_NO_MARK: {
    code: 'SC_ERR_NO_MARK',
    status: 404,
    message: 'The score has no rehearsal mark of that name.',
  },
  SC_ERR_BAD_LOOP: {
    code: 'SC_ERR_BAD_LOOP',
    status: 422,
    message:
      'That loop cannot be played: it must run forward (from a bar or mark to the same or a later one) within the piece, and not in an open-form piece.',
  },
  SC_ERR_SCORE_INVALID: {
    code: 'SC_ERR_SCORE_INVALID',
    status: 422,
    message: 'The score package is invalid; fix the listed problems and try again.',
  },
  SC_ERR_SCORE_OUT_OF_MEMORY: {
    code: 'SC_ERR_SCORE_OUT_OF_MEMORY',
    status: 422,
    message:
      'Reading a file of the score package took more memory than the server allows; the file was refused and the current performance plays on. Make the file smaller (split the piece into movements) or check that it is the right file.',
  },
  SC_ERR_SCORE_PDF: {
    code: 'SC_ERR_SCORE_PDF',
    status: 422,
    message:
      'A PDF of the score package cannot be used: it is encrypted, damaged, or past a bound (file size, page count or page size, each named in the problem). Save an unencrypted copy from the program that made it, or split it, and try again.',
  },
  SC_ERR_PDF_RENDERER_MISSING: {
    code: 'SC_ERR_PDF_RENDERER_MISSING',
    status: 500,
    message:
      "The score package has PDF pages but this server cannot render them: Poppler's pdfinfo and pdftoppm are not installed. Install them (Debian and Ubuntu: apt-get install poppler-utils) and load the score again.",
  },
  SC_ERR_SCORE_VIDEO: {
    code: 'SC_ERR_SCORE_VIDEO',
    status: 422,
    message:
      'A video of the score package cannot be played by every browser, or is past a bound (file size or frame size, named in the problem). Make an MP4 with H.264 and AAC, or a WebM with VP9 and Opus, and try again.',
  },
  SC_ERR_SCORE_NOT_FOUND: {
    code: 'SC_ERR_SCORE_NOT_FOUND',
    status: 404,
    message: 'No score package at that path; check the scores folder and the score id.',
  },
  SC_ERR_EXPORT_NOT_FOUND: {
    code: 'SC_ERR_EXPORT_NOT_FOUND',
    status: 404,
    message: 'No ZScore export at that path; give the folder ZScore exported the score to.',
  },
  SC_ERR_TOO_SLOW: {
    code: 'SC_ERR_TOO_SLOW',
    status: 503,
    message: 'The connection stayed too far behind the live stream and was closed; reconnect.',
  },
  SC_ERR_FLOOD: {
    code: 'SC_ERR_FLOOD',
    status: 429,
    message: 'The connection kept sending after being rate-limited and was closed.',
  },
  SC_ERR_BAD_REQUEST: {
    code: 'SC_ERR_BAD_REQUEST',
    status: 400,
    message: 'The request could not be read (malformed body or headers).',
  },
  SC_ERR_EDIT_REFUSED: {
    code: 'SC_ERR_EDIT_REFUSED',
    status: 400,
    message: 'The edit was read but refused, and nothing was written; the problem says what to change.',
  },
  SC_ERR_INTERNAL: {
    code: 'SC_ERR_INTERNAL',
    status: 500,
    message: 'The server failed to handle the request; it is logged. Other clients are not affected.',
  },
  SC_ERR_NOT_FOUND: {
    code: 'SC_ERR_NOT_FOUND',
    status: 404,
    message: 'Nothing is served at this path.',
  },
  SC_ERR_SAVE_UNREADABLE: {
    code: 'SC_ERR_SAVE_UNREADABLE',
    status: 422,
    message:
      'The saved performance cannot be read (not JSON, truncated, edited, or a newer format); the server started fresh and kept the file aside for you to look at.',
  },
  SC_ERR_SAVE_MISMATCH: {
    code: 'SC_ERR_SAVE_MISMATCH',
    status: 409,
    message:
      'The saved performance is for another score, or for another version of this one; the server started fresh and kept the file aside.',
  },
  SC_ERR_SAVE_OTHER_START: {
    code: 'SC_ERR_SAVE_OTHER_START',
    status: 409,
    message:
      'The saved performance belongs to a server started with another --score; the score named on the command line plays, and the save is kept aside.',
  },
  SC_ERR_SAVE_NOT_UNDER_WAY: {
    code: 'SC_ERR_SAVE_NOT_UNDER_WAY',
    status: 409,
    message:
      'The console had switched to another score, but it never played (stopped at its first beat); the score named on the command line plays, and the save is kept aside.',
  },
  SC_ERR_STATE_FILE_IN_USE: {
    code: 'SC_ERR_STATE_FILE_IN_USE',
    status: 409,
    message:
      'Another running server holds this state file; give this server one of its own with --state-file PATH (or SCORECAST_STATE_FILE).',
  },
  SC_ERR_BAD_DEVICE: {
    code: 'SC_ERR_BAD_DEVICE',
    status: 403,
    message:
      'The tap has no device credential, or one this server did not issue; get one with POST /api/device and send it as `device`.',
  },
  SC_ERR_ADDRESS_LIMIT: {
    code: 'SC_ERR_ADDRESS_LIMIT',
    status: 429,
    message:
      'Too many devices, votes, connections or clients from this network address; a venue whose phones share one address raises the limits (doc/security.md).',
  },
  SC_ERR_TIMEOUT: {
    code: 'SC_ERR_TIMEOUT',
    status: 408,
    message: 'The request (headers or body) did not arrive in time; the connection was closed.',
  },
  SC_ERR_HEADERS_TOO_BIG: {
    code: 'SC_ERR_HEADERS_TOO_BIG',
    status: 431,
    message:
      'The request headers are larger than the server accepts (16 KB); send fewer or smaller cookies and headers.',
  },
  SC_ERR_URL_TOO_LONG: {
    code: 'SC_ERR_URL_TOO_LONG',
    status: 414,
    message: 'A part of the path is longer than the server accepts (100 characters); check the URL.',
  },
  SC_ERR_METHOD_NOT_ALLOWED: {
    code: 'SC_ERR_METHOD_NOT_ALLOWED',
    status: 405,
    message: 'This path does not answer that method; the Allow header lists the ones it does.',
  },
  SC_ERR_NO_CONDUCTOR: {
    code: 'SC_ERR_NO_CONDUCTOR',
    status: 503,
    message:
      'No active conductor answered in time (a failover under way, or no conductor node running); try again in a few seconds.',
  },
  SC_ERR_CLUSTER_UNSIGNED: {
    code: 'SC_ERR_CLUSTER_UNSIGNED',
    status: 403,
    message:
      'Something in Redis was not written by a node of this cluster (no valid MAC under this conductor token), or is an old entry added again; it was refused.',
  },
  SC_ERR_SAVE_OUTSIDE: {
    code: 'SC_ERR_SAVE_OUTSIDE',
    status: 409,
    message:
      'The saved performance names a score outside the scores folder; it was not taken up, and the score named at start plays.',
  },
  SC_ERR_TLS_UNREADABLE: {
    code: 'SC_ERR_TLS_UNREADABLE',
    status: 500,
    message:
      'The HTTPS certificate or key file cannot be read; check the path given with --cert/--key (SCORECAST_CERT, SCORECAST_KEY) and that this user may read it.',
  },
  SC_ERR_TLS_NOT_PEM: {
    code: 'SC_ERR_TLS_NOT_PEM',
    status: 500,
    message:
      'The HTTPS certificate or key is not PEM (or the key is encrypted); give --cert a PEM certificate (fullchain.pem) and --key its unencrypted PEM key (privkey.pem).',
  },
  SC_ERR_TLS_KEY_MISMATCH: {
    code: 'SC_ERR_TLS_KEY_MISMATCH',
    status: 500,
    message: 'The HTTPS key does not belong to the certificate; give --key the key the certificate was issued for.',
  },
  SC_ERR_BAD_NAME: {
    code: 'SC_ERR_BAD_NAME',
    status: 400,
    message:
      'The device name was refused: a name is at most 40 characters, with no control characters (line breaks, tabs, direction overrides); choose a shorter plain name.',
  },
  SC_ERR_NO_DEVICE: {
    code: 'SC_ERR_NO_DEVICE',
    status: 404,
    message:
      'No such device in the roster: it has gone (its page closed or its link was lost) or was never there; check GET /api/roster.',
  },
  SC_ERR_NOT_READY: {
    code: 'SC_ERR_NOT_READY',
    status: 409,
    message:
      'Play when ready did not play: not every part was ready in time (live, clock synced, audio unlocked, assets cached), or the wait was cancelled; the parts not ready are listed.',
  },
  SC_ERR_TLS_EXPIRED: {
    code: 'SC_ERR_TLS_EXPIRED',
    status: 500,
    message:
      'The HTTPS certificate has expired; phones would refuse it. Renew it (doc/venue-https.md) and start again.',
  },
});

/**
 * An error value carried through decoders and answered to clients.
 * @typedef {object} ErrorValue
 * @property {string} code
 * @property {string} message
 */

/**
 * Build an error value for a catalogue code, with optional detail appended to the message
 * (a detail starting with a newline is a list of problems, one per line).
 * @param {keyof typeof ERRORS} code
 * @param {string} [detail]
 * @returns {ErrorValue}
 */
export function errorValue(code, detail) {
  const def = ERRORS[code];
  if (!def) throw new Error(`errorValue: ${code} is not in the error catalogue`);
  if (!detail) return { code: def.code, message: def.message };
  // A list of problems (one per line) follows the message; a short detail goes in brackets.
  return {
    code: def.code,
    message: detail.startsWith('\n') ? `${def.message}${detail}` : `${def.message} (${detail})`,
  };
}

/** An Error thrown by public APIs, carrying a catalogue code. */
export class ScorecastError extends Error {
  /**
   * @param {keyof typeof ERRORS} code
   * @param {string | string[]} [detail]  a short detail, or every problem (file, line, field, fix),
   *   which the message lists one per line and `problems` keeps as they are, for tools
   */
  constructor(code, detail) {
    const problems = Array.isArray(detail) ? detail : [];
    super(errorValue(code, Array.isArray(detail) ? `\n${detail.join('\n')}` : detail).message);
    this.name = 'ScorecastError';
    this.code = code;
    this.statusCode = ERRORS[code].status;
    /** @type {string[]} */
    this.problems = problems;
  }
}
