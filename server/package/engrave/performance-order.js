// The order in which musicians play the written measures: repeats, endings (of any length, and
// numbered "1, 2"), D.C., D.S., Fine, To Coda and Coda from MusicXML's <sound> attributes.
// Conventions (Gould, "Behind Bars", repeats and endings; MusicXML 4.0 <sound>):
// - an end repeat returns to the start repeat before it; without one, to the start of its
//   section: the bar after the previous end repeat or the previous set of endings (a minuet's
//   second half, a binary form's B section), after a double bar since then (a trio; warned, as
//   the edition should have a start repeat there), or the start of the piece;
// - an ending is played on the passes its numbers name; the last pass leaves by the last ending;
// - after D.C. or D.S. repeats are not taken and the last ending is played (the usual reading
//   of "D.C. al Fine"), Fine ends the piece and To Coda jumps to the coda;
// - a <sound time-only="..."> jump or Fine applies on the times through its bar it names, and
//   then only (a "To Coda" on the second time, a D.C. after the last repeat), not by the rule above;
// - jumps written only as words are not performed and are warned about.
// Irregular sources get a warning naming the bar and what was assumed. Pure.

/** Endless loops in a malformed file stop here: no real score repeats a bar 50 times. */
const MAX_PLAYS_PER_BAR = 50;

/**
 * @typedef {object} Performance
 * @property {number[]} order    indices of written measures in the order they are played
 * @property {string[]} warnings
 */

/**
 * @param {import('./musicxml-form.js').FormMeasure[]} form
 * @returns {Performance}
 */
export function performanceOrder(form) {
  /** @type {string[]} */
  const warnings = [];
  const warn = (/** @type {string} */ text) => {
    if (!warnings.includes(text)) warnings.push(text);
  };
  const name = (/** @type {number} */ i) => `bar ${form[i].n || i + 1}`;
  const endings = readEndings(form, warn, name);
  const n = form.length;

  /** @type {number[]} */
  const order = [];
  const plays = new Array(n).fill(0);
  /** Jumps taken back from each end repeat (or assumed one) since the section began. */
  const jumps = new Map();
  let sectionStart = 0; // a start repeat, the bar after the previous repeat or endings, or 0
  let hasForward = false; // sectionStart is a start repeat
  let afterDouble = -1; // the bar after the latest double bar since sectionStart
  let pass = 1;
  let afterJump = false; // after D.C. / D.S.
  let arrivedByJump = false;
  const usedJumps = new Set();
  /** @param {number} at @param {boolean} [forward] */
  const newSection = (at, forward = false) => {
    sectionStart = at;
    hasForward = forward;
    afterDouble = -1;
  };

  /** @param {number} from end repeat at this bar @param {string} why */
  const goBack = (from, why) => {
    jumps.set(from, (jumps.get(from) ?? 0) + 1);
    pass++;
    if (hasForward || afterDouble <= sectionStart) return sectionStart;
    // No start repeat, and a double bar since the previous repeat: the section it ends begins
    // there (a trio after its minuet). The usual case, but the edition should say so.
    warn(
      `${name(from)}: ${why} has no start repeat; it is taken to go back to ${name(afterDouble)}, after the double bar at ${name(afterDouble - 1)}; add a start repeat where the repeat begins`,
    );
    return afterDouble;
  };

  let i = 0;
  while (i < n) {
    const m = form[i];
    const ending = endings.startingAt.get(i);
    if (ending) {
      const group = ending.group;
      const take = afterJump ? group.last : pass;
      if (!ending.numbers.includes(take)) {
        // Not this pass's ending: go on after it. No ending of the group for this pass ends
        // the section here too (a broken set of endings): go on after the group.
        i = group.members.some((e) => e.numbers.includes(take)) ? ending.end + 1 : group.end + 1;
        if (!group.members.some((e) => e.numbers.includes(take))) {
          warn(
            `${name(group.members[0].start)}: no ending is marked for pass ${take} of the repeat; it is taken to go on after the last ending (${name(group.end)})`,
          );
          pass = 1;
          newSection(i);
        }
        continue;
      }
    }
    if (m.forward && !arrivedByJump && !afterJump) {
      newSection(i, true);
      pass = 1;
    }
    arrivedByJump = false;
    if (++plays[i] > MAX_PLAYS_PER_BAR) {
      warn(
        `${name(i)} would be played more than ${MAX_PLAYS_PER_BAR} times; the repeats around it are taken to end there`,
      );
      break;
    }
    order.push(i);
    if (m.fine && (m.times?.fine ? m.times.fine.includes(plays[i]) : afterJump)) break;

    const inEnding = endings.containing[i];
    if (m.backward && !afterJump) {
      const done = jumps.get(i) ?? 0;
      const again = inEnding
        ? inEnding.group.members.some((e) => e.numbers.some((k) => k > pass)) && done < MAX_PLAYS_PER_BAR
        : done < m.backward - 1;
      if (again) {
        i = goBack(i, 'the end repeat');
        arrivedByJump = true;
        continue;
      }
      jumps.delete(i);
      if (!inEnding) {
        pass = 1;
        newSection(i + 1);
      }
    } else if (inEnding && inEnding.end === i && !afterJump && !m.backward) {
      // The end of an ending without an end repeat: if a later pass has its own ending, a
      // repeat is implied (a first ending always goes back).
      const later = inEnding.group.members.some((e) => e.numbers.some((k) => k > pass));
      if (later && inEnding !== inEnding.group.members[inEnding.group.members.length - 1] && inEnding.assumedRepeat) {
        warn(`${name(i)}: the ending "${inEnding.text}" has no end repeat; a repeat is assumed at its end`);
        i = goBack(i, 'the assumed repeat');
        arrivedByJump = true;
        continue;
      }
    }
    if (inEnding && inEnding.group.end === i) {
      pass = 1;
      newSection(i + 1);
      jumps.clear();
    } else if (m.doubleBar && !m.backward && !inEnding && !afterJump && i + 1 < n) afterDouble = i + 1;

    const jump = jumpFrom(form, i, plays[i], afterJump, usedJumps, warn, name);
    if (jump !== null) {
      afterJump = true;
      arrivedByJump = true;
      i = jump;
      continue;
    }
    i++;
  }

  // Jumps written only as words: a musician would perform them, we cannot know where to.
  form.forEach((m, k) => {
    const performed =
      m.dacapo || m.dalsegno !== null || m.fine || m.tocoda !== null || m.coda !== null || m.segno !== null;
    const said = [...new Set(m.words.filter((w) => w !== 'segno' && w !== 'coda'))];
    if (said.length && !performed) {
      warn(
        `${name(k)}: "${said.join('", "')}" is written as text only, not as a playback instruction; it is not performed (in your notation program, make it a real D.C./D.S./Fine/Coda mark and export again)`,
      );
    }
  });
  return { order, warnings };
}

/**
 * Where the music goes after measure i, if it holds a jump to take now.
 * @param {import('./musicxml-form.js').FormMeasure[]} form
 * @param {number} i
 * @param {number} time  how many times bar i has been played, this one included
 * @param {boolean} afterJump
 * @param {Set<string>} used
 * @param {(text: string) => void} warn
 * @param {(i: number) => string} name
 * @returns {number | null}
 */
function jumpFrom(form, i, time, afterJump, used, warn, name) {
  const m = form[i];
  /** Whether a jump applies now: on the times its time-only names, else by the usual rule. */
  const now = (/** @type {'dacapo' | 'dalsegno' | 'tocoda'} */ jump, /** @type {boolean} */ usual) => {
    const only = m.times?.[jump];
    return only ? only.includes(time) : usual;
  };
  if (m.tocoda !== null && now('tocoda', afterJump)) {
    const key = `tocoda:${i}`;
    if (!used.has(key)) {
      used.add(key);
      const target = findMark(form, 'coda', m.tocoda, i + 1);
      if (target !== null) return target;
      warn(`${name(i)}: "To Coda" has no coda after it; the music goes on`);
    }
  }
  if (m.dacapo && now('dacapo', !afterJump) && !used.has(`dc:${i}`)) {
    used.add(`dc:${i}`);
    return 0;
  }
  if (m.dalsegno !== null && now('dalsegno', !afterJump) && !used.has(`ds:${i}`)) {
    used.add(`ds:${i}`);
    const target = findMark(form, 'segno', m.dalsegno, 0);
    if (target !== null) return target;
    warn(`${name(i)}: "D.S." has no segno to go back to; it is not performed`);
  }
  return null;
}

/**
 * The first measure from `from` on with a segno or coda of this name (any, if unnamed).
 * @param {import('./musicxml-form.js').FormMeasure[]} form
 * @param {'segno' | 'coda'} kind
 * @param {string} wanted
 * @param {number} from
 */
function findMark(form, kind, wanted, from) {
  /** @type {number | null} */
  let any = null;
  for (let k = from; k < form.length; k++) {
    const v = form[k][kind];
    if (v === null) continue;
    if (v === wanted) return k;
    any ??= k;
  }
  return any;
}

/**
 * @typedef {object} EndingSpan
 * @property {number} start
 * @property {number} end
 * @property {number[]} numbers
 * @property {string} text
 * @property {boolean} assumedRepeat  a later ending follows at once, so the repeat is implied
 * @property {EndingGroup} group
 */

/**
 * @typedef {object} EndingGroup
 * @property {EndingSpan[]} members
 * @property {number} end   last measure of the last ending
 * @property {number} last  the highest pass it names
 */

/**
 * Endings as spans of measures, in groups of endings that follow one another. An ending runs
 * from its start to its stop or discontinue; a first ending that stops before the end repeat
 * that closes it (the next ending starting after the repeat) is taken to run to the repeat.
 * @param {import('./musicxml-form.js').FormMeasure[]} form
 * @param {(text: string) => void} warn
 * @param {(i: number) => string} name
 */
function readEndings(form, warn, name) {
  /** @type {EndingSpan[]} */
  const spans = [];
  for (let i = 0; i < form.length; i++) {
    let start = form[i].endingStart;
    if (!start && form[i].endingStop && form[i + 1]?.endingStart) {
      // An ending that stops without having started, just before the next ending: its bracket
      // lost its start; the bar is read as the ending before the next one.
      const next = form[i + 1].endingStart?.numbers ?? [];
      const k = Math.max(1, (next[0] ?? 2) - 1);
      warn(`${name(i)}: an ending stops here without having started; ${name(i)} is taken as ending ${k}`);
      start = { numbers: [k], text: String(k) };
    }
    if (!start) continue;
    let end = i;
    while (end < form.length - 1 && !form[end].endingStop && !form[end + 1].endingStart && !form[end].backward) end++;
    if (!form[end].endingStop && !form[end].backward && end < form.length - 1) {
      warn(`${name(i)}: the ending "${start.text}" is not closed; it is taken to end at ${name(end)}`);
    }
    let numbers = start.numbers;
    if (numbers.length === 0) {
      numbers = [
        spans.length && spans[spans.length - 1].end === i - 1 ? Math.max(...spans[spans.length - 1].numbers) + 1 : 1,
      ];
      warn(`${name(i)}: the ending "${start.text}" has no number; it is taken as ending ${numbers[0]}`);
    }
    spans.push({ start: i, end, numbers, text: start.text, assumedRepeat: false, group: /** @type {any} */ (null) });
    i = end;
  }
  // A first ending closed early: the end repeat comes a few bars later, outside any ending,
  // and the next ending starts just after it. Musicians read the bracket as running to the repeat.
  for (let s = 0; s < spans.length - 1; s++) {
    const a = spans[s];
    const b = spans[s + 1];
    if (form[a.end].backward || b.start === a.end + 1) continue;
    const repeat = form.findIndex((m, k) => k > a.end && k < b.start && m.backward > 0);
    if (repeat === b.start - 1) {
      warn(
        `${name(a.start)}: the ending "${a.text}" stops at ${name(a.end)}, but its end repeat is at ${name(repeat)} and the next ending starts after it; the ending is taken as bars ${form[a.start].n || a.start + 1}-${form[repeat].n || repeat + 1}`,
      );
      a.end = repeat;
    }
  }
  /** @type {EndingGroup[]} */
  const groups = [];
  for (const span of spans) {
    const prev = groups[groups.length - 1];
    if (prev && prev.end === span.start - 1) {
      prev.members.push(span);
      prev.end = span.end;
      prev.last = Math.max(prev.last, ...span.numbers);
    } else {
      groups.push({ members: [span], end: span.end, last: Math.max(...span.numbers) });
    }
    span.group = groups[groups.length - 1];
  }
  for (const g of groups) {
    g.members.forEach((e, k) => {
      e.assumedRepeat = k < g.members.length - 1;
    });
    if (g.members.length === 1 && !form[g.end].backward) {
      warn(
        `${name(g.members[0].start)}: the ending "${g.members[0].text}" has no other ending after it and no end repeat; it is played on the passes it names`,
      );
    }
  }
  /** @type {Map<number, EndingSpan>} */
  const startingAt = new Map(spans.map((s) => [s.start, s]));
  /** @type {(EndingSpan | undefined)[]} */
  const containing = new Array(form.length).fill(undefined);
  for (const s of spans) for (let k = s.start; k <= s.end; k++) containing[k] = s;
  return { startingAt, containing };
}
