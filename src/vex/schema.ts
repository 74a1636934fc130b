import { Type } from 'typebox';
import { RefQueryField } from '../refs/schema.js';

export const VexQuery = Type.Object({
  format: Type.Enum(['openvex', 'cyclonedx'], { description: 'OpenVEX 0.2.0 or CycloneDX 1.6 (JSON).' }),
  ref: Type.Optional(RefQueryField),
}, { additionalProperties: false });

/** The document is the published format's, not ours: described, not restated. */
export const VexDocumentSchema = Type.Object({}, {
  additionalProperties: true, title: 'VexDocument',
  description: 'An OpenVEX 0.2.0 document or a CycloneDX 1.6 BOM with vulnerabilities: one statement per vulnerability and package (purl).',
});
