import { describe, expect, it } from 'vitest';
import { DetectError, detectFormat } from '../../src/scans/detect.js';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const sarif = json({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [] }] });
const cyclonedx = json({ bomFormat: 'CycloneDX', specVersion: '1.5', components: [] });

function rejection(body: Buffer, hint: { format?: string; contentType?: string } = {}): DetectError {
  try {
    detectFormat(body, hint);
  } catch (error) {
    if (error instanceof DetectError) return error;
    throw error;
  }
  throw new Error('detectFormat accepted the upload');
}

describe('detectFormat: what cannot be read at all', () => {
  it('refuses an empty body with 400', () => {
    const error = rejection(Buffer.alloc(0));
    expect(error.status).toBe(400);
    expect(error.message).toBe('The upload is empty');
  });

  it('refuses whitespace (and a lone BOM) with 400', () => {
    expect(rejection(Buffer.from(' \r\n\t \n')).status).toBe(400);
    expect(rejection(Buffer.from('\uFEFF\n')).status).toBe(400);
  });

  it('says a PDF is a PDF, with 415', () => {
    const error = rejection(Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'));
    expect(error.status).toBe(415);
    expect(error.message).toContain('starts with %PDF');
  });

  it('says binary data, a ZIP, gzip and UTF-16 are what they are', () => {
    expect(rejection(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0x10, 0x00])).message).toContain('binary data');
    expect(rejection(Buffer.from('PK\u0003\u0004\u0014\u0000\u0000\u0000', 'latin1')).message).toContain('ZIP');
    expect(rejection(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00])).message).toContain('gzip');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"runs": []}', 'utf16le')]);
    expect(rejection(utf16).message).toContain('UTF-16');
  });

  it('quotes the start of text that is no known syntax', () => {
    const error = rejection(Buffer.from('name,severity\nfoo,high\n'));
    expect(error.status).toBe(415);
    expect(error.message).toContain('"name,severity"');
  });

  it('says an HTML page is an HTML page', () => {
    const error = rejection(Buffer.from('<!DOCTYPE html>\n<html><body>Sign in</body></html>'));
    expect(error.status).toBe(415);
    expect(error.message).toContain('HTML');
  });

  it('refuses JSON of no known format with 415 listing what is accepted', () => {
    const error = rejection(json({ hello: 'world' }));
    expect(error.status).toBe(415);
    expect(error.message).toContain('SARIF 2.1.0');
    expect(error.message).toContain('CycloneDX');
    expect(error.message).toContain('SPDX');
    expect(error.message).toContain('scanyard-findings/1');
  });

  it('refuses XML that is not a CycloneDX BOM, naming its root', () => {
    const error = rejection(Buffer.from('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>'));
    expect(error.status).toBe(415);
    expect(error.message).toContain('<rdf:RDF>');
  });
});

describe('detectFormat: hints', () => {
  it('follows an explicit format over everything else, in any case', () => {
    expect(detectFormat(cyclonedx, { format: 'SARIF', contentType: 'application/vnd.cyclonedx+json' })).toEqual({
      format: 'sarif',
      syntax: 'json',
    });
  });

  it('refuses an unknown explicit format with 400, even on good content', () => {
    const error = rejection(sarif, { format: 'sbom' });
    expect(error.status).toBe(400);
    expect(error.message).toContain('sarif, cyclonedx, spdx, findings');
  });

  it.each([
    ['application/sarif+json', 'sarif'],
    ['application/vnd.cyclonedx+json', 'cyclonedx'],
    ['application/vnd.cyclonedx+json; version=1.5', 'cyclonedx'],
    ['Application/SPDX+JSON; charset=utf-8', 'spdx'],
  ])('follows the content type %s', (contentType, format) => {
    // The body is a findings report: only the content type can make it anything else.
    const findings = json({ schema: 'scanyard-findings/1', tool: { name: 't' }, findings: [] });
    expect(detectFormat(findings, { contentType }).format).toBe(format);
  });

  it('follows application/vnd.cyclonedx+xml and text/spdx', () => {
    expect(detectFormat(Buffer.from('<bom/>'), { contentType: 'application/vnd.cyclonedx+xml' })).toEqual({
      format: 'cyclonedx',
      syntax: 'xml',
    });
    expect(detectFormat(Buffer.from('SPDXVersion: SPDX-2.3\n'), { contentType: 'text/spdx' })).toEqual({
      format: 'spdx',
      syntax: 'tag-value',
    });
  });

  it.each(['application/json', 'application/octet-stream', 'text/plain', 'application/xml', 'text/xml', ''])(
    'takes %j as no hint',
    (contentType) => {
      expect(detectFormat(cyclonedx, { contentType }).format).toBe('cyclonedx');
      expect(detectFormat(sarif, { contentType }).format).toBe('sarif');
    },
  );

  it('refuses a hinted format in a syntax it is never written in, with 415', () => {
    const error = rejection(Buffer.from('<bom xmlns="http://cyclonedx.org/schema/bom/1.5"/>'), { format: 'sarif' });
    expect(error.status).toBe(415);
    expect(error.message).toBe('The upload is XML, but SARIF must be JSON');
    const mismatch = rejection(Buffer.from('<bom/>'), { contentType: 'text/spdx' });
    expect(mismatch.status).toBe(415);
    expect(mismatch.message).toBe('The upload is XML, but SPDX must be JSON or SPDX tag-value');
  });
});

describe('detectFormat: sniffing', () => {
  it('recognises SARIF with any key order, and SARIF 1.0 too (the parser refuses it later)', () => {
    expect(detectFormat(json({ runs: [], $schema: 'x', version: '2.1.0' }), {}).format).toBe('sarif');
    expect(detectFormat(json({ version: '1.0.0', runs: [] }), {}).format).toBe('sarif');
  });

  it('recognises CycloneDX JSON with bomFormat after megabytes of components', () => {
    const components = Array.from({ length: 20_000 }, (_, i) => ({ name: `package-${i}`, version: '1.0.0' }));
    const body = json({ components, bomFormat: 'CycloneDX', specVersion: '1.2' });
    expect(body.length).toBeGreaterThan(512 * 1024);
    expect(detectFormat(body, {})).toEqual({ format: 'cyclonedx', syntax: 'json' });
  });

  it('recognises SPDX JSON whose spdxVersion is the last key, SPDX 3 JSON-LD, and tag-value after comments', () => {
    expect(detectFormat(json({ packages: [], spdxVersion: 'SPDX-2.2' }), {}).format).toBe('spdx');
    const spdx3 = json({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [] });
    expect(detectFormat(spdx3, {}).format).toBe('spdx');
    expect(detectFormat(Buffer.from('## made by hand\r\nSPDXVersion: SPDX-2.2\r\n'), {})).toEqual({
      format: 'spdx',
      syntax: 'tag-value',
    });
  });

  it('recognises CycloneDX XML behind a declaration, comments, a BOM and a namespace prefix', () => {
    const xml = '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated -->\n<cdx:bom xmlns:cdx="http://cyclonedx.org/schema/bom/1.4"/>';
    expect(detectFormat(Buffer.from(xml), {})).toEqual({ format: 'cyclonedx', syntax: 'xml' });
  });

  it('finds the <bom> root behind a DOCTYPE with an internal subset', () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "b>">]><bom/>';
    expect(detectFormat(Buffer.from(xml), {}).format).toBe('cyclonedx');
  });

  it.each([
    ['Trivy', { SchemaVersion: 2, ArtifactName: 'alpine', Results: [] }],
    ['Grype', { matches: [], descriptor: { name: 'grype' } }],
    ['Semgrep', { results: [{ check_id: 'x' }], errors: [] }],
    ['Semgrep without results', { errors: [], paths: { scanned: [] }, results: [], version: '1.50.0' }],
    ['Gitleaks', [{ RuleID: 'aws-access-token' }]],
    ['Gitleaks without leaks', []],
    ['npm audit v2', { auditReportVersion: 2, vulnerabilities: {} }],
    ['npm audit v1', { actions: [], advisories: {}, muted: [] }],
    ['OSV-Scanner', { results: [{ source: {}, packages: [] }] }],
    ['scanyard-findings', { tool: { name: 'x' }, findings: [], schema: 'scanyard-findings/1' }],
  ])('recognises %s as findings', (_name, doc) => {
    expect(detectFormat(json(doc), {})).toEqual({ format: 'findings', syntax: 'json' });
  });

  it('does not take a key that only appears inside a string for a marker', () => {
    const error = rejection(json({ note: '"bomFormat": "CycloneDX"' }));
    expect(error.status).toBe(415);
  });

  it('skips a UTF-8 BOM and leading whitespace', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\r\n  \t'), sarif]);
    expect(detectFormat(body, {})).toEqual({ format: 'sarif', syntax: 'json' });
  });

  it('refuses a large body it cannot recognise', () => {
    const body = Buffer.alloc(16 * 1024 * 1024, '{"key": "value", "list": [1, 2, 3]}, ');
    body[0] = 0x7b;
    expect(rejection(body).status).toBe(415);
  });
});
