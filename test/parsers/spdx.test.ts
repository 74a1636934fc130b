import { describe, expect, it } from 'vitest';
import { parseScan } from '../../src/scans/parsers/index.js';
import { type NormalisedScan } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';

function tagValue(source: string): NormalisedScan {
  return parseScan(Buffer.from(source), 'spdx', 'tag-value');
}

function json(doc: unknown): NormalisedScan {
  return parseScan(Buffer.from(JSON.stringify(doc)), 'spdx', 'json');
}

function parseError(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as Error).message;
  }
  throw new Error('the document was accepted');
}

describe('SPDX tag-value', () => {
  const document = [
    'SPDXVersion: SPDX-2.3',
    'DataLicense: CC0-1.0',
    'Creator: Organization: Example Inc.',
    'Creator: Tool: syft-1.4.1',
    'DocumentComment: <text>A comment',
    'PackageName: looks like a tag but is inside text',
    '</text>',
    '',
    '## Package',
    'PackageName: left-pad',
    'SPDXID: SPDXRef-left-pad',
    'PackageVersion: 1.3.0',
    'PackageChecksum: SHA256: 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
    'PackageLicenseConcluded: NOASSERTION',
    'PackageLicenseDeclared: WTFPL',
    'PackageDescription: <text>Line one',
    'Line two: with a colon',
    '',
    'Line four</text>',
    'ExternalRef: SECURITY cpe23Type cpe:2.3:a:left-pad:left-pad:1.3.0:*:*:*:*:*:*:*',
    'ExternalRef: PACKAGE-MANAGER purl pkg:npm/left-pad@1.3.0',
    'PrimaryPackagePurpose: LIBRARY',
    '',
    'FileName: ./index.js',
    'SPDXID: SPDXRef-file',
    'FileChecksum: SHA1: da39a3ee5e6b4b0d3255bfef95601890afd80709',
    'LicenseConcluded: MIT',
    '',
    'PackageName: app',
    'SPDXID: SPDXRef-app',
    'PackageLicenseConcluded: (MIT OR Apache-2.0)',
    'Relationship: SPDXRef-app DEPENDS_ON SPDXRef-left-pad',
    'Relationship: SPDXRef-left-pad DEPENDENCY_OF SPDXRef-app',
    'Relationship: SPDXRef-app CONTAINS SPDXRef-file',
    'Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-app',
    '',
  ];

  it('reads packages, not files, with multi-line <text> values, checksums, purl and licences', () => {
    const [analysis] = tagValue(document.join('\n')).analyses;
    expect(analysis?.tool).toEqual({ name: 'syft', version: '1.4.1' });
    expect(analysis?.components).toEqual([
      {
        ref: 'SPDXRef-left-pad',
        name: 'left-pad',
        version: '1.3.0',
        purl: 'pkg:npm/left-pad@1.3.0',
        type: 'library',
        licenses: ['WTFPL'],
        hashes: [{ alg: 'SHA-256', value: '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae' }],
      },
    ]);
    // DEPENDS_ON and the inverted DEPENDENCY_OF are one edge; the file, the document and the app it
    // DESCRIBES are not components, the app is where the graph starts.
    expect(analysis?.roots).toEqual(['SPDXRef-app']);
    expect(analysis?.dependencies).toEqual([{ ref: 'SPDXRef-app', dependsOn: ['SPDXRef-left-pad'] }]);
  });

  it('reads CRLF line ends and a byte order mark the same way', () => {
    const crlf = tagValue(`\uFEFF${document.join('\r\n')}`);
    expect(crlf).toEqual(tagValue(document.join('\n')));
  });

  it('names the tool SPDX when no creator is a tool, and splits tool versions sensibly', () => {
    const tool = (creator: string) =>
      tagValue(`SPDXVersion: SPDX-2.2\nCreator: ${creator}\n`).analyses[0]?.tool;
    expect(tool('Organization:Amazon Web Services')).toEqual({ name: 'SPDX', version: null });
    expect(tool('Tool: trivy-dev')).toEqual({ name: 'Trivy', version: 'dev' });
    expect(tool('Tool: cyclonedx-npm')).toEqual({ name: 'cyclonedx-npm', version: null });
    expect(tool('Tool: spdx-sbom-generator-v0.0.15')).toEqual({ name: 'spdx-sbom-generator', version: 'v0.0.15' });
  });

  it('refuses an unclosed <text>, a line that is not a tag, and a missing SPDXVersion', () => {
    expect(parseError(() => tagValue('SPDXVersion: SPDX-2.3\nPackageName: x\nPackageDescription: <text>never\nclosed\n'))).toBe(
      'SPDX tag-value line 3: <text> is never closed by </text>',
    );
    expect(parseError(() => tagValue('SPDXVersion: SPDX-2.3\nPackageName: x\nthis is not a tag\n'))).toContain(
      'line 3 is not "Tag: value"',
    );
    expect(parseError(() => tagValue('PackageName: x\n'))).toContain('"spdxVersion" is missing');
  });
});

describe('SPDX JSON', () => {
  const doc = (more: Record<string, unknown>) => ({
    spdxVersion: 'SPDX-2.3',
    creationInfo: { creators: ['Organization: x', 'Tool: trivy-0.50.1'] },
    ...more,
  });

  it('reads packages and the DEPENDS_ON / CONTAINS / DEPENDENCY_OF graph', () => {
    const [analysis] = json(
      doc({
        packages: [
          {
            SPDXID: 'SPDXRef-a',
            name: 'a',
            versionInfo: '1.0',
            licenseConcluded: 'NONE',
            licenseDeclared: 'NOASSERTION',
            checksums: [{ algorithm: 'SHA1', checksumValue: 'abc' }, { algorithm: 'BLAKE2b-256', checksumValue: 'def' }],
            externalRefs: [{ referenceCategory: 'PACKAGE_MANAGER', referenceType: 'purl', referenceLocator: 'pkg:npm/a@1.0' }],
            primaryPackagePurpose: 'OPERATING-SYSTEM',
          },
          { SPDXID: 'SPDXRef-b', name: 'b' },
          { SPDXID: 'SPDXRef-c', name: 'c' },
          { SPDXID: 'SPDXRef-root', name: 'root' },
        ],
        files: [{ SPDXID: 'SPDXRef-f', fileName: 'f' }],
        relationships: [
          { spdxElementId: 'SPDXRef-a', relationshipType: 'DEPENDS_ON', relatedSpdxElement: 'SPDXRef-b' },
          { spdxElementId: 'SPDXRef-a', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-c' },
          { spdxElementId: 'SPDXRef-a', relationshipType: 'DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-c' },
          { spdxElementId: 'SPDXRef-a', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-f' },
          { spdxElementId: 'SPDXRef-b', relationshipType: 'DYNAMIC_LINK', relatedSpdxElement: 'SPDXRef-c' },
          { spdxElementId: 'SPDXRef-root', relationshipType: 'DEPENDS_ON', relatedSpdxElement: 'SPDXRef-a' },
          { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-root' },
        ],
      }),
    ).analyses;
    expect(analysis?.tool).toEqual({ name: 'Trivy', version: '0.50.1' });
    expect(analysis?.components[0]).toEqual({
      ref: 'SPDXRef-a',
      name: 'a',
      version: '1.0',
      purl: 'pkg:npm/a@1.0',
      type: 'operating-system',
      licenses: [],
      hashes: [
        { alg: 'SHA-1', value: 'abc' },
        { alg: 'BLAKE2b-256', value: 'def' },
      ],
    });
    expect(analysis?.components.map((c) => c.name)).toEqual(['a', 'b', 'c']);
    expect(analysis?.dependencies).toEqual([
      { ref: 'SPDXRef-a', dependsOn: ['SPDXRef-b', 'SPDXRef-c'] },
      { ref: 'SPDXRef-c', dependsOn: ['SPDXRef-a'] },
      { ref: 'SPDXRef-root', dependsOn: ['SPDXRef-a'] },
    ]);
  });

  it('takes the declared licence when none was concluded', () => {
    const [component] =
      json(doc({ packages: [{ name: 'x', licenseConcluded: 'NOASSERTION', licenseDeclared: 'MIT' }] })).analyses[0]
        ?.components ?? [];
    expect(component?.licenses).toEqual(['MIT']);
  });

  it('refuses SPDX 3 JSON-LD, other versions, and malformed packages', () => {
    const spdx3 = { '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [] };
    expect(parseError(() => json(spdx3))).toBe('SPDX 3 (JSON-LD) is not supported yet; upload SPDX 2.2 or 2.3');
    expect(parseError(() => json({ spdxVersion: 'SPDX-3.0' }))).toBe('SPDX-3.0 is not supported; upload SPDX 2.2 or 2.3');
    expect(parseError(() => json(doc({ packages: { name: 'x' } })))).toBe('"packages" must be an array, not an object');
    expect(parseError(() => json(doc({ packages: [{ SPDXID: 'x' }] })))).toBe('packages[0].name is missing');
    expect(parseError(() => json(doc({ packages: ['x'] })))).toBe('packages[0] must be an object, not a string');
  });

  it('refuses a document that is not a JSON object', () => {
    expect(parseError(() => json('SPDX-2.3'))).toContain('must be a JSON object');
  });
});

describe('SPDX roots (SPDX 2.3 §11: DESCRIBES, DESCRIBED_BY, documentDescribes) and CONTAINED_BY', () => {
  it('names the described packages as the graph\'s roots, in JSON and tag-value alike', () => {
    const [fromJson] = json({
      spdxVersion: 'SPDX-2.3', documentDescribes: ['SPDXRef-app'],
      packages: [{ SPDXID: 'SPDXRef-app', name: 'app' }, { SPDXID: 'SPDXRef-lib', name: 'lib' }, { SPDXID: 'SPDXRef-tool', name: 'tool' }],
      relationships: [
        { spdxElementId: 'SPDXRef-lib', relationshipType: 'CONTAINED_BY', relatedSpdxElement: 'SPDXRef-app' },
        { spdxElementId: 'SPDXRef-tool', relationshipType: 'DESCRIBED_BY', relatedSpdxElement: 'SPDXRef-DOCUMENT' },
      ],
    }).analyses;
    expect(fromJson?.roots).toEqual(['SPDXRef-app', 'SPDXRef-tool']);
    expect(fromJson?.dependencies).toEqual([{ ref: 'SPDXRef-app', dependsOn: ['SPDXRef-lib'] }]);
    // What the document describes is its subject, not a component (as CycloneDX's metadata.component).
    expect(fromJson?.components.map((c) => c.name)).toEqual(['lib']);

    const [fromTags] = tagValue([
      'SPDXVersion: SPDX-2.3', 'PackageName: app', 'SPDXID: SPDXRef-app', 'PackageName: lib', 'SPDXID: SPDXRef-lib',
      'Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-app', 'Relationship: SPDXRef-app DEPENDS_ON SPDXRef-lib', '',
    ].join('\n')).analyses;
    expect(fromTags?.roots).toEqual(['SPDXRef-app']);
    expect(fromTags?.dependencies).toEqual([{ ref: 'SPDXRef-app', dependsOn: ['SPDXRef-lib'] }]);
    expect(fromTags?.components.map((c) => c.name)).toEqual(['lib']);
  });
});
