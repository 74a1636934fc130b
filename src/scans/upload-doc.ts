import { GenericFindingsSchema } from './parsers/findings/generic.js';
import { acceptedFormats, FORMATS } from './parsers/index.js';
import { SCAN_FORMATS } from '../domain/scan.js';

/** The generic findings format's schema, published in components.schemas under this name. */
const GENERIC_FINDINGS_COMPONENT = 'ScanyardFindings';

const binary = (description: string) => ({ schema: { type: 'string', format: 'binary', description } });
const document = (description: string) => ({ schema: { type: 'object', description } });
const ref = { $ref: `#/components/schemas/${GENERIC_FINDINGS_COMPONENT}` };

/** Each format that a media type names outright, from the registry. */
const namedTypes = Object.fromEntries(FORMATS.flatMap((format) => format.contentTypes.map((type) => [
  type, format.syntax === 'json' ? document(`The document, as ${format.title}.`) : binary(`The document, as ${format.title}.`),
])));

/**
 * The upload body as OpenAPI describes it. Fastify never parses this body (the route streams it),
 * so it cannot be a route schema; it is added to the document instead.
 */
const uploadRequestBody = {
  required: true,
  description: 'The scan result document itself, optionally gzip-compressed (Content-Encoding: gzip, or a gzip file), '
    + 'or a multipart form with the document in a "file" part. The format is detected from the content '
    + `unless named with ?format=. Accepted: ${acceptedFormats()}.`,
  content: {
    ...namedTypes,
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
          head_sha: { type: 'string', maxLength: 64 },
          base_sha: { type: 'string', maxLength: 64 },
          ref: { type: 'string', maxLength: 300 },
          base_ref: { type: 'string', maxLength: 300 },
          format: { type: 'string', enum: SCAN_FORMATS },
        },
      },
    },
  },
};

const UPLOAD_PATH = '/api/v1/repos/{id}/upload';

/** What the OpenAPI document says of uploads beyond the route's own schemas. */
export const uploadDocumentation = {
  schemas: [
    { ...GenericFindingsSchema, $id: GENERIC_FINDINGS_COMPONENT, title: 'Scanyard generic findings format' },
  ],
  requestBodies: { [UPLOAD_PATH]: uploadRequestBody },
};
