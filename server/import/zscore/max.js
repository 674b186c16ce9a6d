// ZScore's `max:` script rows as OSC cues (core/osc-cues.js). szcore's ScoreLoader
// (processMaxMspScoreElement) reads `max:[beat=N:][reset=only|both:]cmd|target|arg|...` into an
// OSC message to `/zs/<target>` whose arguments are the command then the other arguments, numbers
// converted: `max:beat=1:play|b1` is `/zs/b1 play`, `send|mcGroove.mcgHarmonics|int|3` is
// `/zs/mcGroove.mcgHarmonics send int 3`. A `reset=only` line is sent by ZScore only when it jumps
// to a position, so it is not a cue.

import { isOscAddress } from '../../../core/osc-cues.js';

/** ZScore's OSC address root (Consts.OSC_ADDRESS_ZSCORE in szcore). */
export const ZSCORE_OSC_ROOT = '/zs/';

/**
 * @typedef {object} MaxLine
 * @property {number | null} beat   the beat=N prefix
 * @property {'only' | 'both' | null} reset
 * @property {string} address
 * @property {(string | number)[]} args
 */

/**
 * An argument as ZScore's ParseUtil.convertToType reads it: whole numbers and decimals become
 * numbers, anything else stays text (with "@C@" as a comma).
 * @param {string} s
 */
function typed(s) {
  const t = s.trim().replaceAll('@C@', ',');
  if (/^-?\d{1,9}$/.test(t)) return Number(t);
  if (/^-?\d+\.\d+$/.test(t)) return Number(t);
  return t;
}

/**
 * @param {string} resource  a `max:` resource as in the BeatInfo row
 * @returns {{ ok: true, value: MaxLine } | { ok: false, message: string }}
 */
export function readMaxLine(resource) {
  const m = /^max:(?:beat=?(-?\d+):)?(?:reset=?(only|both):)?([\s\S]*)$/.exec(resource);
  if (!m) return { ok: false, message: 'not a max: line' };
  const parts = m[3].replace(/[\u2018\u2019]/g, "'").split(/[|,]/);
  const cmd = parts[0]?.trim() ?? '';
  if (cmd === '') return { ok: false, message: 'a max: line needs a command, e.g. max:play|b1' };
  const address = ZSCORE_OSC_ROOT + (parts[1]?.trim() ?? '');
  if (!isOscAddress(address))
    return { ok: false, message: `"${address}" is not an OSC address scorecast can send (spaces or wildcards)` };
  return {
    ok: true,
    value: {
      beat: m[1] === undefined ? null : Number(m[1]),
      reset: /** @type {'only' | 'both' | null} */ (m[2] ?? null),
      address,
      args: [cmd, ...parts.slice(2).map(typed)],
    },
  };
}
