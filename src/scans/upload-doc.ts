import { GENERIC_SCHEMA_ID } from './parsers/findings/generic.js';

/** The generic findings format's schema, published in components.schemas under this name. */
export const GENERIC_FINDINGS_COMPONENT = 'ScanyardFindings';

const binary = (description: string) => ({ schema: { type: 'string', format: 'binary', description } });
const document = (description: string) => ({ schema: { type: 'object', description } });
const ref = { $ref: `#/components/schemas/${GENERIC_FINDINGS_COMPONENT}` };

/**
 * The upload body as OpenAPI describes it. Fastify never parses this body (the route streams it),
 * so it cannot be a route schema; it is added to the document instead.
 */
export const uploadRequestBody = {
  required: true,
  description: 'The scan result document itself, optionally gzip-compressed (Content-Encoding: gzip, or a gzip file), '
    + 'or a multipart form with the document in a "file" part. The format is detected from the content '
    + 'unless named with ?format=. Findings reports: Trivy, Grype, Semgrep, Gitleaks, npm audit, OSV-Scanner JSON, '
    + `or the generic "${GENERIC_SCHEMA_ID}" format.`,
  content: {
    'application/sarif+json': document('A SARIF 2.1.0 log.'),
    'application/vnd.cyclonedx+json': document('A CycloneDX 1.2 to 1.6 BOM.'),
    'application/vnd.cyclonedx+xml': binary('A CycloneDX 1.2 to 1.6 BOM in XML.'),
    'application/spdx+json': document('An SPDX 2.2 or 2.3 document.'),
    'text/spdx': binary('An SPDX 2.2 or 2.3 tag-value document.'),
    'application/json': { schema: { oneOf: [ref, { type: 'object', description: 'Any of the JSON formats above, detected by shape.' }] } },
    'application/gzip': binary('Any of the formats, gzip-compressed.'),
    'application/octet-stream': binary('Any of the formats, detected from the content.'),
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          file: { type: 'string', format: 'binary', description: 'The document.' },
          category: { type: 'string', maxLength: 200 },
          commit_sha: { type: 'string', maxLength: 64 },
          ref: { type: 'string', maxLength: 300 },
          format: { type: 'string', enum: ['sarif', 'cyclonedx', 'spdx', 'findings'] },
        },
      },
    },
  },
};

export const UPLOAD_PATH = '/api/v1/repos/{id}/upload';
