/**
 * GitHub's OSV records (OSV schema 1.6, as https://osv.dev/vulnerability/<id> serves them) of the
 * two prototype-pollution advisories of the npm package qs. Their ranges are the advisories': the
 * 2017 one was fixed in 6.2.3, which the 2022 one still affects (fixed there in 6.2.4).
 */
export const QS_2022 = {
  schema_version: '1.6.0', id: 'GHSA-hrpp-h998-j3pp', modified: '2024-02-16T08:17:36Z', published: '2022-11-27T00:30:50Z',
  aliases: ['CVE-2022-24999'],
  summary: 'qs vulnerable to Prototype Pollution',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' }],
  affected: [
    ['0', '6.2.4'], ['6.3.0', '6.3.3'], ['6.4.0', '6.4.1'], ['6.5.0', '6.5.3'], ['6.6.0', '6.6.1'],
    ['6.7.0', '6.7.3'], ['6.8.0', '6.8.3'], ['6.9.0', '6.9.7'], ['6.10.0', '6.10.3'],
  ].map(([introduced, fixed]) => ({
    package: { ecosystem: 'npm', name: 'qs', purl: 'pkg:npm/qs' },
    ranges: [{ type: 'ECOSYSTEM', events: [{ introduced }, { fixed }] }],
  })),
  database_specific: { severity: 'HIGH', cwe_ids: ['CWE-1321'], github_reviewed: true },
};

export const QS_2017 = {
  schema_version: '1.6.0', id: 'GHSA-gqgv-6jq5-jjj9', modified: '2023-09-11T16:22:04Z', published: '2018-10-09T00:27:43Z',
  aliases: ['CVE-2017-1000048'],
  summary: 'Prototype Pollution Protection Bypass in qs',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' }],
  affected: [['0', '6.0.4'], ['6.1.0', '6.1.2'], ['6.2.0', '6.2.3'], ['6.3.0', '6.3.2']].map(([introduced, fixed]) => ({
    package: { ecosystem: 'npm', name: 'qs', purl: 'pkg:npm/qs' },
    ranges: [{ type: 'ECOSYSTEM', events: [{ introduced }, { fixed }] }],
  })),
  database_specific: { severity: 'HIGH', cwe_ids: ['CWE-20'], github_reviewed: true },
};
