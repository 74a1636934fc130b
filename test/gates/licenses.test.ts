import { describe, expect, it } from 'vitest';
import { licenseEntryProblem, licenseJudge, type LicenseLists, type LicenseVerdict } from '../../src/gates/licenses.js';

const DENY_GPL: LicenseLists = { deny: ['AGPL-3.0-only', 'GPL-3.0-or-later'], allow: null };
const ALLOW_PERMISSIVE: LicenseLists = { deny: [], allow: ['MIT', 'Apache-2.0', 'BSD-3-Clause'] };

const CASES: [string, LicenseLists, string[], LicenseVerdict][] = [
  ['a plain permitted licence', DENY_GPL, ['MIT'], 'allowed'],
  ['a denied licence', DENY_GPL, ['GPL-3.0-or-later'], 'denied'],
  ['OR: a choice without the denied licence exists', DENY_GPL, ['MIT OR GPL-3.0-or-later'], 'allowed'],
  ['AND: the denied licence applies too', DENY_GPL, ['MIT AND GPL-3.0-or-later'], 'denied'],
  ['a deny of -or-later covers the -only version', DENY_GPL, ['GPL-3.0-only'], 'denied'],
  ['the deprecated bare id of a denied version', DENY_GPL, ['GPL-3.0'], 'denied'],
  ['+: GPL-2.0+ may still be used as GPL-2.0', DENY_GPL, ['GPL-2.0+'], 'allowed'],
  ['+: every version it admits is denied', { deny: ['GPL-2.0-or-later'], allow: null }, ['GPL-3.0+'], 'denied'],
  ['WITH: an exception does not lift a deny', { deny: ['GPL-2.0-only'], allow: null }, ['GPL-2.0-only WITH Classpath-exception-2.0'], 'denied'],
  ['WITH: a deny of the exact pairing', { deny: ['GPL-2.0-only WITH Classpath-exception-2.0'], allow: null }, ['GPL-2.0-only WITH Classpath-exception-2.0'], 'denied'],
  ['WITH: a deny of the pairing leaves the plain licence', { deny: ['GPL-2.0-only WITH Classpath-exception-2.0'], allow: null }, ['GPL-2.0-only'], 'allowed'],
  ['nested: (MIT AND GPL) OR Apache-2.0', DENY_GPL, ['(MIT AND GPL-3.0-or-later) OR Apache-2.0'], 'allowed'],
  ['nested: MIT AND (GPL OR AGPL)', DENY_GPL, ['MIT AND (GPL-3.0-only OR AGPL-3.0-only)'], 'denied'],
  ['several entries all apply', DENY_GPL, ['MIT', 'GPL-3.0-only'], 'denied'],
  ['allow: a listed licence', ALLOW_PERMISSIVE, ['Apache-2.0'], 'allowed'],
  ['allow: an unlisted licence', ALLOW_PERMISSIVE, ['ISC'], 'not_allowed'],
  ['allow: satisfiable through one side of an OR', ALLOW_PERMISSIVE, ['ISC OR MIT'], 'allowed'],
  ['allow: AND needs both sides allowed', ALLOW_PERMISSIVE, ['MIT AND ISC'], 'not_allowed'],
  ['allow: Apache-2.0+ is satisfiable by Apache-2.0', ALLOW_PERMISSIVE, ['Apache-2.0+'], 'allowed'],
  ['allow: an allowed licence with an exception', { deny: [], allow: ['GPL-2.0-only'] }, ['GPL-2.0-only WITH Classpath-exception-2.0'], 'allowed'],
  ['allow and deny together: deny wins', { deny: ['MIT'], allow: ['MIT'] }, ['MIT'], 'denied'],
  ['NOASSERTION is unknown', DENY_GPL, ['NOASSERTION'], 'unknown'],
  ['no licence at all is unknown', DENY_GPL, [], 'unknown'],
  ['unparsable text is unknown', DENY_GPL, ['Apache License, Version 2.0'], 'unknown'],
  ['a LicenseRef no list names is unknown', DENY_GPL, ['LicenseRef-acme-proprietary'], 'unknown'],
  ['a LicenseRef no list names is unknown under an allow list too', ALLOW_PERMISSIVE, ['LicenseRef-acme-proprietary'], 'unknown'],
  ['a LicenseRef the allow list names', { deny: [], allow: ['LicenseRef-acme-proprietary'] }, ['LicenseRef-acme-proprietary'], 'allowed'],
  ['a LicenseRef the deny list names', { deny: ['LicenseRef-acme-proprietary'], allow: null }, ['LicenseRef-acme-proprietary'], 'denied'],
  ['OR with an unknown side and an allowed side', DENY_GPL, ['LicenseRef-x OR MIT'], 'allowed'],
  ['OR with an unknown side and a denied side', DENY_GPL, ['LicenseRef-x OR GPL-3.0-only'], 'unknown'],
  ['AND with an unknown side and a denied side', DENY_GPL, ['LicenseRef-x AND GPL-3.0-only'], 'denied'],
];

describe('licence verdicts', () => {
  it.each(CASES)('%s', (_name, lists, entries, verdict) => {
    expect(licenseJudge(lists).judge(entries)).toBe(verdict);
  });
});

describe('deny and allow entries', () => {
  it.each([
    ['MIT', null], ['GPL-2.0+', null], ['GPL-2.0-only WITH Classpath-exception-2.0', null], ['LicenseRef-acme', null],
  ])('accepts %s', (entry, problem) => {
    expect(licenseEntryProblem(entry)).toBe(problem);
  });

  it.each([
    ['GPL', 'not an SPDX licence identifier'], ['NOASSERTION', 'not an SPDX licence identifier'], ['mit', 'not an SPDX licence identifier'],
    ['MIT OR Apache-2.0', 'is an expression'], ['', 'not an SPDX licence identifier'],
  ])('refuses %j', (entry, problem) => {
    expect(licenseEntryProblem(entry)).toContain(problem);
  });
});

describe('expressions judged without spelling out their alternatives', () => {
  const clauses = (n: number, clause = '(MIT OR Apache-2.0)') => Array.from({ length: n }, () => clause).join(' AND ');

  it.each([
    ['twenty choices that each avoid the denied licences', DENY_GPL, clauses(20), 'allowed'],
    ['twenty choices, the last of denied licences only', DENY_GPL, `${clauses(19)} AND (GPL-3.0-only OR AGPL-3.0-only)`, 'denied'],
    ['twenty choices, one of unlisted licences only', ALLOW_PERMISSIVE, `${clauses(19)} AND (ISC OR Zlib)`, 'not_allowed'],
    ['64 operators', DENY_GPL, `${clauses(32)} AND GPL-3.0-only`, 'denied'],
    ['65 operators are more than any package needs: unknown', DENY_GPL, `${clauses(32)} AND GPL-3.0-only AND MIT`, 'unknown'],
    ['over 1,000 characters: unknown', DENY_GPL, `${'MIT AND '.repeat(125)}MIT`, 'unknown'],
  ] as const)('%s', (_name, lists, expression, verdict) => {
    expect(licenseJudge(lists).judge([expression])).toBe(verdict);
  });

  // The verdict an expression had when its alternatives were spelled out: the best alternative, each as bad as its worst licence.
  type Tree = string | { op: 'AND' | 'OR'; left: Tree; right: Tree };
  const ORDER: LicenseVerdict[] = ['allowed', 'unknown', 'not_allowed', 'denied'];
  const text = (tree: Tree): string => (typeof tree === 'string' ? tree : `(${text(tree.left)} ${tree.op} ${text(tree.right)})`);
  const alternatives = (tree: Tree): string[][] => {
    if (typeof tree === 'string') return [[tree]];
    const left = alternatives(tree.left);
    const right = alternatives(tree.right);
    return tree.op === 'OR' ? [...left, ...right] : left.flatMap((l) => right.map((r) => [...l, ...r]));
  };
  const spelledOut = (lists: LicenseLists, tree: Tree): LicenseVerdict => {
    const judge = licenseJudge(lists);
    const worst = alternatives(tree).map((leaves) => ORDER[Math.max(...leaves.map((leaf) => ORDER.indexOf(judge.judge([leaf]))))]!);
    return ORDER[Math.min(...worst.map((v) => ORDER.indexOf(v)))]!;
  };

  it('gives the verdict of every alternative spelled out, for a thousand random expressions', () => {
    const leaves = ['MIT', 'Apache-2.0', 'ISC', 'GPL-3.0-only', 'AGPL-3.0-only', 'LicenseRef-x', 'GPL-2.0+'];
    const lists: LicenseLists[] = [DENY_GPL, ALLOW_PERMISSIVE, { deny: ['GPL-3.0-only'], allow: ['MIT', 'GPL-2.0-only'] }];
    let seed = 1;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
    const tree = (depth: number): Tree => (depth === 0 || random(3) === 0
      ? leaves[random(leaves.length)]!
      : { op: random(2) ? 'AND' : 'OR', left: tree(depth - 1), right: tree(depth - 1) });
    for (let i = 0; i < 1_000; i += 1) {
      const expression = tree(4);
      const policy = lists[i % lists.length]!;
      expect([text(expression), licenseJudge(policy).judge([text(expression)])]).toEqual([text(expression), spelledOut(policy, expression)]);
    }
  });
});
