import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/scans/detect.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import { type NormalisedScan } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';

function json(bom: unknown): NormalisedScan {
  return parseScan(Buffer.from(JSON.stringify(bom)), 'cyclonedx', 'json');
}

function xml(source: string): NormalisedScan {
  return parseScan(Buffer.from(source), 'cyclonedx', 'xml');
}

function parseError(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as Error).message;
  }
  throw new Error('the BOM was accepted');
}

const bom = (more: Record<string, unknown>) => ({ bomFormat: 'CycloneDX', specVersion: '1.5', ...more });

describe('CycloneDX JSON', () => {
  it('walks nested components depth first, leaving metadata.component out', () => {
    const scan = json(
      bom({
        metadata: { component: { name: 'my-app', 'bom-ref': 'app' } },
        components: [
          { name: 'a', 'bom-ref': 'a', components: [{ name: 'a1', components: [{ name: 'a1x' }] }, { name: 'a2' }] },
          { name: 'b' },
        ],
      }),
    );
    expect(scan.analyses[0]?.components.map((c) => c.name)).toEqual(['a', 'a1', 'a1x', 'a2', 'b']);
  });

  it('reads licences by id, name and expression, and hashes', () => {
    const [component] =
      json(
        bom({
          components: [
            {
              name: 'x',
              version: '1.0.0',
              purl: 'pkg:npm/x@1.0.0',
              type: 'library',
              licenses: [{ license: { id: 'MIT' } }, { license: { name: 'Custom licence' } }, { expression: 'Apache-2.0 OR BSD-3-Clause' }],
              hashes: [{ alg: 'SHA-256', content: 'abc' }, { alg: 'MD5' }],
            },
          ],
        }),
      ).analyses[0]?.components ?? [];
    expect(component).toEqual({
      ref: null,
      name: 'x',
      version: '1.0.0',
      purl: 'pkg:npm/x@1.0.0',
      type: 'library',
      licenses: ['MIT', 'Custom licence', 'Apache-2.0 OR BSD-3-Clause'],
      hashes: [{ alg: 'SHA-256', value: 'abc' }],
    });
  });

  it('names the tool from the legacy array, the 1.5 object, or falls back to CycloneDX', () => {
    const tool = (tools: unknown) => json(bom({ metadata: { tools } })).analyses[0]?.tool;
    expect(tool([{ vendor: 'anchore', name: 'syft', version: '1.0.0' }])).toEqual({ name: 'syft', version: '1.0.0' });
    expect(tool({ components: [{ type: 'application', name: 'trivy', version: '0.50.0' }] })).toEqual({
      name: 'Trivy',
      version: '0.50.0',
    });
    expect(tool({ services: [{ name: 'scanner-service' }] })).toEqual({ name: 'scanner-service', version: null });
    expect(tool(undefined)).toEqual({ name: 'CycloneDX', version: null });
  });

  it('turns vulnerabilities into one finding per affected component', () => {
    const scan = json(
      bom({
        metadata: { component: { name: 'app', 'bom-ref': 'root' } },
        components: [
          { name: 'lib', version: '1.0', 'bom-ref': 'lib-ref', purl: 'pkg:npm/lib@1.0' },
          { name: 'nopurl', version: '2.0', 'bom-ref': 'np' },
        ],
        vulnerabilities: [
          {
            id: 'CVE-2024-0001',
            description: 'Bad thing',
            ratings: [{ severity: 'low' }, { severity: 'high', score: 8.1 }, { severity: 'medium', score: 5 }],
            advisories: [{ url: 'https://example.com/advisory' }],
            affects: [{ ref: 'lib-ref' }, { ref: 'np' }, { ref: 'pkg:pypi/other@3.1' }, { ref: 'root' }],
          },
          { id: 'GHSA-xxxx', detail: 'Detail only', ratings: [{ severity: 'unknown', score: 9.5 }], affects: [] },
          { id: 'CVE-2024-0002', ratings: [{ severity: 'none' }] },
          { id: 'CVE-2024-0003', ratings: [{ severity: 'unknown' }] },
        ],
      }),
    );
    const findings = scan.analyses[0]?.findings ?? [];
    expect(findings.map((f) => [f.ruleId, f.severity, f.packageName, f.packageVersion, f.purl, f.fingerprint])).toEqual([
      ['CVE-2024-0001', 'high', 'lib', '1.0', 'pkg:npm/lib@1.0', 'pkg:npm/lib@1.0'],
      ['CVE-2024-0001', 'high', 'nopurl', '2.0', null, 'nopurl@2.0'],
      ['CVE-2024-0001', 'high', 'other', '3.1', 'pkg:pypi/other@3.1', 'pkg:pypi/other@3.1'],
      ['CVE-2024-0001', 'high', 'app', null, null, 'app'],
      ['GHSA-xxxx', 'critical', null, null, null, null],
      ['CVE-2024-0002', 'info', null, null, null, null],
      ['CVE-2024-0003', 'medium', null, null, null, null],
    ]);
    expect(findings[0]).toMatchObject({
      message: 'Bad thing',
      level: 'high',
      securitySeverity: 8.1,
      helpUri: 'https://example.com/advisory',
      filePath: null,
    });
    expect(findings[4]?.message).toBe('Detail only');
    expect(findings[5]?.message).toBe('CVE-2024-0002');
  });

  it('keeps the dependency graph, merging repeated refs', () => {
    const scan = json(
      bom({
        dependencies: [
          { ref: 'a', dependsOn: ['b', 'c'] },
          { ref: 'b' },
          { ref: 'a', dependsOn: ['c', 'd'] },
        ],
      }),
    );
    expect(scan.analyses[0]?.dependencies).toEqual([
      { ref: 'a', dependsOn: ['b', 'c', 'd'] },
      { ref: 'b', dependsOn: [] },
    ]);
  });

  it('refuses what is not a CycloneDX 1.x BOM, naming the fault', () => {
    expect(parseError(() => json({ components: [] }))).toContain('"bomFormat" is missing');
    expect(parseError(() => json({ bomFormat: 'SPDX', specVersion: '1.5' }))).toContain('"bomFormat" is "SPDX"');
    expect(parseError(() => json(bom({ specVersion: '2.0' })))).toContain('CycloneDX 2.0 is not supported');
    expect(parseError(() => json(bom({ components: {} })))).toBe('components must be an array, not an object');
    expect(parseError(() => json(bom({ components: [{ version: '1' }] })))).toBe('components[0].name is missing');
    expect(parseError(() => json(bom({ components: [{ name: 'a', components: [7] }] })))).toBe(
      'components[0].components[0] must be an object, not a number',
    );
    expect(parseError(() => json(bom({ vulnerabilities: [{ description: 'no id' }] })))).toBe(
      'vulnerabilities[0].id is missing',
    );
  });

  it('survives components nested 10,000 deep without overflowing the stack', () => {
    // Written by hand: JSON.stringify itself would overflow on this.
    const depth = 10_000;
    const nested = '{"name":"n","components":['.repeat(depth) + '{"name":"leaf"}' + ']}'.repeat(depth);
    const body = Buffer.from(`{"bomFormat":"CycloneDX","specVersion":"1.6","components":[${nested}]}`);
    expect(parseScan(body, 'cyclonedx', 'json').analyses[0]?.components).toHaveLength(depth + 1);
  });
});

describe('CycloneDX XML', () => {
  it('reads a single component (not an array) with a single licence and hash', () => {
    const scan = xml(`<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.4" version="1">
  <metadata>
    <tools><tool><vendor>acme</vendor><name>scanner</name><version>2.1</version></tool></tools>
    <component type="application" bom-ref="root"><name>root-app</name></component>
  </metadata>
  <components>
    <component type="library" bom-ref="pkg:maven/g/a@1.10">
      <group>g</group>
      <name>a</name>
      <version>1.10</version>
      <hashes><hash alg="SHA-1">da39a3ee5e6b4b0d3255bfef95601890afd80709</hash></hashes>
      <licenses><license><id>Apache-2.0</id></license></licenses>
      <purl>pkg:maven/g/a@1.10?type=jar&amp;classifier=sources</purl>
    </component>
  </components>
  <dependencies><dependency ref="root"><dependency ref="pkg:maven/g/a@1.10"/></dependency></dependencies>
</bom>`);
    const [analysis] = scan.analyses;
    expect(analysis?.tool).toEqual({ name: 'scanner', version: '2.1' });
    expect(analysis?.components).toEqual([
      {
        ref: 'pkg:maven/g/a@1.10',
        name: 'a',
        version: '1.10',
        purl: 'pkg:maven/g/a@1.10?type=jar&classifier=sources',
        type: 'library',
        licenses: ['Apache-2.0'],
        hashes: [{ alg: 'SHA-1', value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' }],
      },
    ]);
    expect(analysis?.dependencies).toEqual([{ ref: 'root', dependsOn: ['pkg:maven/g/a@1.10'] }]);
  });

  it('ignores namespace prefixes and reads the 1.5 tools, vulnerabilities and CDATA', () => {
    const scan = xml(`<cdx:bom xmlns:cdx="http://cyclonedx.org/schema/bom/1.5">
  <cdx:metadata><cdx:tools><cdx:components><cdx:component type="application"><cdx:name>cdxgen</cdx:name><cdx:version>10.0.0</cdx:version></cdx:component></cdx:components></cdx:tools></cdx:metadata>
  <cdx:components>
    <cdx:component bom-ref="c1"><cdx:name><![CDATA[lib<1>]]></cdx:name><cdx:version>&#49;.0</cdx:version></cdx:component>
    <cdx:component bom-ref="c2"><cdx:name>two</cdx:name></cdx:component>
  </cdx:components>
  <cdx:vulnerabilities>
    <cdx:vulnerability bom-ref="v1">
      <cdx:id>CVE-2024-1</cdx:id>
      <cdx:ratings><cdx:rating><cdx:score>9.1</cdx:score><cdx:method>CVSSv31</cdx:method></cdx:rating></cdx:ratings>
      <cdx:affects><cdx:target><cdx:ref>c1</cdx:ref></cdx:target></cdx:affects>
    </cdx:vulnerability>
  </cdx:vulnerabilities>
</cdx:bom>`);
    const [analysis] = scan.analyses;
    expect(analysis?.tool).toEqual({ name: 'cdxgen', version: '10.0.0' });
    expect(analysis?.components.map((c) => [c.name, c.version])).toEqual([
      ['lib<1>', '1.0'],
      ['two', null],
    ]);
    expect(analysis?.findings).toHaveLength(1);
    expect(analysis?.findings[0]).toMatchObject({ ruleId: 'CVE-2024-1', severity: 'critical', packageName: 'lib<1>' });
  });

  it('refuses malformed XML with where it breaks, and a root that is not <bom>', () => {
    expect(parseError(() => xml('<bom><components><component><name>x</components></bom>'))).toMatch(
      /^The XML is malformed: .*\(line 1, column \d+\)$/,
    );
    expect(parseError(() => xml('<sbom><components/></sbom>'))).toContain('root element is not <bom>');
    expect(parseError(() => xml('<bom><components><component><__proto__>x</__proto__></component></components></bom>'))).toContain(
      'could not be read',
    );
  });

  it('refuses XML nested absurdly deep', () => {
    const deep = `<bom>${'<x>'.repeat(50_000)}${'</x>'.repeat(50_000)}</bom>`;
    expect(parseError(() => xml(deep))).toContain('nested more than');
  });
});

describe('CycloneDX XML attacks', () => {
  const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE bom [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components><component type="library"><name>&lol9;</name></component></components></bom>`;

  it('refuses a billion-laughs entity bomb with a ParseError', () => {
    const body = Buffer.from(billionLaughs);
    const { format, syntax } = detectFormat(body, {});
    expect([format, syntax]).toEqual(['cyclonedx', 'xml']);
    expect(parseError(() => parseScan(body, format, syntax))).toContain('DOCTYPE');
  });

  it('never reads a file through an external entity', () => {
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const firstLine = passwd.split('\n')[0] ?? 'root:x:0:0';
    const attacks = [
      `<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><bom><components><component><name>&xxe;</name></component></components></bom>`,
      `<?xml version="1.0"?><!DOCTYPE bom SYSTEM "file:///etc/passwd"><bom><components><component><name>x</name></component></components></bom>`,
      // A DOCTYPE hidden after the root element is still a DOCTYPE.
      `<bom><components><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><component><name>&xxe;</name></component></components></bom>`,
    ];
    for (const attack of attacks) {
      let outcome: string;
      try {
        outcome = JSON.stringify(xml(attack));
      } catch (error) {
        expect(error).toBeInstanceOf(ParseError);
        outcome = (error as Error).message;
      }
      expect(outcome).not.toContain(firstLine);
      expect(outcome).not.toContain('/bin/');
    }
  });

  it('leaves an undeclared entity reference alone', () => {
    const scan = xml('<bom><components><component><name>a &unknown; b</name></component></components></bom>');
    expect(scan.analyses[0]?.components[0]?.name).toBe('a &unknown; b');
  });
});

describe('CycloneDX generator tool', () => {
  const toolOf = (tools: unknown) => json(bom({ metadata: { tools } })).analyses[0]!.tool;

  it('names the generator, not the package manager or library it lists beside itself', () => {
    const components = [{ name: 'npm', version: '10.2.0' }, { name: 'cyclonedx-library', version: '6.0.0' }, { name: 'cyclonedx-npm', version: '1.19.0' }];
    expect(toolOf({ components })).toEqual({ name: 'cyclonedx-npm', version: '1.19.0' });
    expect(toolOf([{ name: 'cyclonedx-bom', version: '3.1' }, { name: 'cyclonedx-python-lib', version: '2.0' }])).toEqual({ name: 'cyclonedx-bom', version: '3.1' });
  });

  it('takes the first tool otherwise, a library when it is all there is, and "CycloneDX" when none is named', () => {
    expect(toolOf([{ vendor: 'anchore', name: 'syft', version: '1.0' }, { name: 'grype' }])).toEqual({ name: 'syft', version: '1.0' });
    expect(toolOf({ components: [{ name: 'cyclonedx-core-java-lib' }] })).toEqual({ name: 'cyclonedx-core-java-lib', version: null });
    expect(toolOf(undefined)).toEqual({ name: 'CycloneDX', version: null });
  });
});
