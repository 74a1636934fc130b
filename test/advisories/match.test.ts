import { describe, expect, it } from 'vitest';
import { matchVersion } from '../../src/advisories/match.js';
import { parseOsv, OsvError } from '../../src/advisories/osv.js';

const range = (type: 'SEMVER' | 'ECOSYSTEM' | 'GIT', ...events: Record<string, string>[]) => ({ type, events });

describe('matching a version against an OSV affected entry', () => {
  it('introduced/fixed: affected from introduced up to (not including) fixed, with the nearest fix', () => {
    const entry = { versions: [], ranges: [range('SEMVER', { introduced: '2.0.0' }, { fixed: '2.15.0' }, { introduced: '2.16.0' }, { fixed: '2.17.1' })] };
    expect(matchVersion('npm', '1.9.9', entry)).toEqual({ affected: false });
    expect(matchVersion('npm', '2.0.0', entry)).toEqual({ affected: true, fixedVersions: ['2.15.0'] });
    expect(matchVersion('npm', '2.15.0', entry)).toEqual({ affected: false });
    expect(matchVersion('npm', '2.16.5', entry)).toEqual({ affected: true, fixedVersions: ['2.17.1'] });
    expect(matchVersion('npm', '2.17.1', entry)).toEqual({ affected: false });
  });

  it('introduced 0 means every earlier version', () => {
    const entry = { versions: [], ranges: [range('ECOSYSTEM', { introduced: '0' }, { fixed: '1.0a1' })] };
    expect(matchVersion('PyPI', '0.0.1', entry)).toEqual({ affected: true, fixedVersions: ['1.0a1'] });
    expect(matchVersion('PyPI', '1.0.dev1', entry)).toEqual({ affected: true, fixedVersions: ['1.0a1'] });
    expect(matchVersion('PyPI', '1.0', entry)).toEqual({ affected: false });
  });

  it('last_affected includes that version and nothing after it; there is no fixed version', () => {
    const entry = { versions: [], ranges: [range('ECOSYSTEM', { introduced: '1.0' }, { last_affected: '1:2.0-1' })] };
    expect(matchVersion('Debian:12', '1:2.0-1', entry)).toEqual({ affected: true, fixedVersions: [] });
    expect(matchVersion('Debian:12', '1:2.0-1+deb12u1', entry)).toEqual({ affected: false });
    // Without its epoch 2.0-1 is epoch 0, far below 1:2.0-1.
    expect(matchVersion('Debian:12', '2.0-1', entry)).toEqual({ affected: true, fixedVersions: [] });
  });

  it('limit ends a range like fixed, without naming a fix', () => {
    const entry = { versions: [], ranges: [range('SEMVER', { introduced: '1.0.0' }, { limit: '1.5.0' })] };
    expect(matchVersion('npm', '1.4.0', entry)).toEqual({ affected: true, fixedVersions: [] });
    expect(matchVersion('npm', '1.5.0', entry)).toEqual({ affected: false });
  });

  it('an exact versions[] entry matches whatever the ranges say; GIT ranges count only through it', () => {
    const entry = { versions: ['1.2.3'], ranges: [range('GIT', { introduced: 'abc' }, { fixed: 'def' }), range('SEMVER', { introduced: '2.0.0' })] };
    expect(matchVersion('npm', '1.2.3', entry)).toEqual({ affected: true, fixedVersions: [] });
    expect(matchVersion('npm', '1.2.4', entry)).toEqual({ affected: false });
  });

  it('a version the ecosystem cannot order is unchecked, never guessed', () => {
    const entry = { versions: [], ranges: [range('SEMVER', { introduced: '0' })] };
    expect(matchVersion('npm', 'latest', entry)).toBeNull();
    expect(matchVersion('Hackage', '1.0', entry)).toBeNull();
  });

  it('Maven ranges follow Maven ordering (a release candidate is below the release)', () => {
    const entry = { versions: [], ranges: [range('ECOSYSTEM', { introduced: '2.0-beta9' }, { fixed: '2.15.0' })] };
    expect(matchVersion('Maven', '2.0-rc1', entry)).toMatchObject({ affected: true });
    expect(matchVersion('Maven', '2.0-alpha1', entry)).toEqual({ affected: false });
    expect(matchVersion('Maven', '2.14.1', entry)).toEqual({ affected: true, fixedVersions: ['2.15.0'] });
  });
});

describe('reading an OSV record', () => {
  const log4shell = {
    schema_version: '1.6.0',
    id: 'GHSA-jfh8-c2jp-5v3q',
    modified: '2024-03-15T12:00:00Z',
    published: '2021-12-10T00:00:00Z',
    aliases: ['CVE-2021-44228'],
    summary: 'Remote code injection in Log4j',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
    affected: [{
      package: { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }] }],
    }],
    database_specific: { severity: 'CRITICAL' },
  };

  it('computes severity from the CVSS vector, else the record\'s word, else medium', () => {
    const advisory = parseOsv(log4shell);
    expect(advisory).toMatchObject({ id: 'GHSA-jfh8-c2jp-5v3q', aliases: ['CVE-2021-44228'], severity: 'critical', cvssScore: 10, modified: '2024-03-15T12:00:00.000Z' });
    expect(advisory.affected[0]).toMatchObject({ key: 'Maven|org.apache.logging.log4j:log4j-core' });
    expect(parseOsv({ ...log4shell, severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N' }] }).severity).toBe('low');
    expect(parseOsv({ ...log4shell, severity: [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' }] }).severity).toBe('critical');
    expect(parseOsv({ ...log4shell, severity: undefined, database_specific: { severity: 'MODERATE' } }).severity).toBe('medium');
    expect(parseOsv({ ...log4shell, severity: [{ type: 'CVSS_V3', score: 'garbage' }], database_specific: { severity: 'HIGH' } }).severity).toBe('high');
    // A metric given twice is no vector (the specifications allow each once): its later value does not rate the record.
    expect(parseOsv({ ...log4shell, severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H/AV:L' }], database_specific: { severity: 'LOW' } }))
      .toMatchObject({ severity: 'low', cvssScore: null });
    expect(parseOsv({ ...log4shell, severity: [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/VC:L' }], database_specific: undefined }).cvssScore).toBeNull();
    expect(parseOsv({ ...log4shell, severity: undefined, database_specific: undefined }).severity).toBe('medium');
  });

  it('refuses a record without id or modified with the reason', () => {
    expect(() => parseOsv({ ...log4shell, id: undefined })).toThrow(new OsvError('"id" is missing'));
    expect(() => parseOsv({ ...log4shell, modified: 'yesterday' })).toThrow(/"modified" is not an RFC 3339 timestamp/);
    expect(() => parseOsv([1])).toThrow(/must be a JSON object/);
  });
});
