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
