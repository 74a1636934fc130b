import type { VersionScheme } from './types.js';

/**
 * Maven's ComparableVersion ordering, as its documentation specifies: items split at `.`, `-` and
 * digit/letter transitions, `-` opening a sub-list; trailing zeros and release qualifiers ("ga",
 * "final", "release") are insignificant; known qualifiers sort alpha < beta < milestone < rc
 * (= cr) < snapshot < release < sp, unknown ones after them alphabetically. No Maven ordering is
 * published on npm, so it is written here from that specification.
 */
type Item = { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(value: string, followedByDigit: boolean): Item {
  if (followedByDigit && value.length === 1) {
    const short: Record<string, string> = { a: 'alpha', b: 'beta', m: 'milestone' };
    value = short[value] ?? value;
  }
  return { kind: 'string', value: ALIASES[value] ?? value };
}

function parseItem(isDigit: boolean, text: string, followedByDigit = false): Item {
  return isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, followedByDigit);
}

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'string') return item.value === '';
  return item.items.length === 0;
}

function normalise(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i]!;
    if (isNull(last)) list.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

function parse(version: string): Item {
  const text = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  const push = () => {
    const next: Item[] = [];
    list.push({ kind: 'list', items: next });
    list = next;
    stack.push(next);
  };
  let isDigit = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '.' || c === '-') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, text.slice(start, i)));
      start = i + 1;
      if (c === '-') push();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        // "1.0.0.X1" orders as "1.0.0-X1": a qualifier followed by a number is its own sub-list.
        if (list.length > 0) push();
        list.push(stringItem(text.slice(start, i), true));
        start = i;
        push();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(parseItem(true, text.slice(start, i)));
        start = i;
        push();
      }
      isDigit = false;
    }
  }
  if (text.length > start) {
    if (!isDigit && list.length > 0) push();
    list.push(parseItem(isDigit, text.slice(start)));
  }
  while (stack.length > 0) normalise(stack.pop()!);
  return { kind: 'list', items: root };
}

function qualifierRank(value: string): string {
  const index = QUALIFIERS.indexOf(value);
  return index >= 0 ? String(index) : `${QUALIFIERS.length}-${value}`;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `b` undefined stands for the absent item a shorter version is padded with. */
function compareItems(a: Item, b: Item | undefined): number {
  if (a.kind === 'int') {
    if (!b) return a.value === 0n ? 0 : 1;
    if (b.kind === 'int') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
    return 1;
  }
  if (a.kind === 'string') {
    if (!b) return order(qualifierRank(a.value), RELEASE_INDEX);
    if (b.kind === 'string') return order(qualifierRank(a.value), qualifierRank(b.value));
    return -1;
  }
  if (!b) return a.items.length === 0 ? 0 : compareItems(a.items[0]!, undefined);
  if (b.kind !== 'list') return -1;
  const length = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < length; i++) {
    const left = a.items[i];
    const right = b.items[i];
    const result = left === undefined ? (right === undefined ? 0 : -compareItems(right, undefined)) : compareItems(left, right);
    if (result !== 0) return result;
  }
  return 0;
}

export const mavenScheme: VersionScheme = {
  valid: (version) => /^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version),
  compare: (a, b) => compareItems(parse(a), parse(b)),
};
