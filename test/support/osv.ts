/** GitHub's OSV record for Log4Shell: a GHSA id with the CVE as alias. */
export const LOG4SHELL = {
  schema_version: '1.6.0', id: 'GHSA-jfh8-c2jp-5v3q', modified: '2024-03-15T00:00:00Z', published: '2021-12-10T00:00:00Z',
  aliases: ['CVE-2021-44228'],
  summary: 'Remote code injection in Log4j',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
  affected: [{
    package: { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core' },
    ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }] }],
  }],
  database_specific: { severity: 'CRITICAL', cwe_ids: ['CWE-20', 'CWE-502'], github_reviewed: true },
};
