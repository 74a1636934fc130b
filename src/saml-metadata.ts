import { X509Certificate } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** What a SAML sign-in needs of an identity provider, read from its metadata. */
export interface IdpMetadata {
  entityId: string;
  /** The SingleSignOnService location for the HTTP-Redirect binding: where AuthnRequests go. */
  ssoUrl: string;
  /** Its signing certificates as PEM (several while it rolls its key over). */
  certificates: string[];
}

export class IdpMetadataError extends Error {
  override readonly name = 'IdpMetadataError';
}

const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const ARRAYS = new Set(['EntityDescriptor', 'EntitiesDescriptor', 'IDPSSODescriptor', 'SingleSignOnService', 'KeyDescriptor', 'X509Certificate', 'X509Data']);

type Node = Record<string, unknown>;

/**
 * The IdP of a metadata document (OASIS SAML 2.0 Metadata, saml-metadata-2.0-os: an
 * EntityDescriptor, or an EntitiesDescriptor holding exactly one identity provider). Pure. A
 * DOCTYPE is refused: metadata needs none, and it is where entity expansion attacks live.
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (/<!DOCTYPE/i.test(xml)) throw new IdpMetadataError('the metadata has a DOCTYPE declaration, which is not accepted');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new IdpMetadataError(`the metadata is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const root = new XMLParser({
    ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, parseTagValue: false, parseAttributeValue: false,
    processEntities: true, htmlEntities: false, ignoreDeclaration: true, ignorePiTags: true, maxNestedTags: 64, jPath: false,
    isArray: (name) => ARRAYS.has(name),
  }).parse(xml) as Node;

  const idps = entities(root).filter((e) => list(e.IDPSSODescriptor).some(speaksSaml2));
  if (idps.length === 0) throw new IdpMetadataError('the metadata describes no SAML 2.0 identity provider (no IDPSSODescriptor)');
  if (idps.length > 1) throw new IdpMetadataError(`the metadata describes ${idps.length} identity providers; give the metadata of one`);
  const entity = idps[0]!;
  const entityId = text(entity['@_entityID']);
  if (entityId === null) throw new IdpMetadataError('the EntityDescriptor has no entityID');
  const descriptor = list(entity.IDPSSODescriptor).find(speaksSaml2)!;

  const redirect = list(descriptor.SingleSignOnService).find((s) => s['@_Binding'] === REDIRECT_BINDING);
  const ssoUrl = text(redirect?.['@_Location']);
  if (ssoUrl === null) throw new IdpMetadataError('the identity provider offers no SingleSignOnService with the HTTP-Redirect binding');
  if (!/^https?:\/\//.test(ssoUrl)) throw new IdpMetadataError('the SingleSignOnService location is not an http(s) URL');

  // A KeyDescriptor without `use` serves for both signing and encryption (Metadata 2.4.1.1).
  const certificates = list(descriptor.KeyDescriptor)
    .filter((k) => k['@_use'] === undefined || k['@_use'] === 'signing')
    .flatMap((k) => list((k.KeyInfo as Node | undefined)?.X509Data).flatMap((d) => (d.X509Certificate as unknown[] | undefined) ?? []))
    .map((c) => pem(typeof c === 'string' ? c : text((c as Node)['#text'])));
  if (certificates.length === 0) throw new IdpMetadataError('the identity provider has no signing certificate (KeyDescriptor with X509Certificate)');
  return { entityId, ssoUrl, certificates: [...new Set(certificates)] };
}

function entities(root: Node): Node[] {
  const direct = list(root.EntityDescriptor);
  const nested = list(root.EntitiesDescriptor).flatMap((group) => entities(group));
  return [...direct, ...nested];
}

function speaksSaml2(descriptor: Node): boolean {
  return (text(descriptor['@_protocolSupportEnumeration']) ?? '').split(/\s+/).includes(SAML2_PROTOCOL);
}

function pem(base64: string | null): string {
  const body = (base64 ?? '').replace(/\s+/g, '');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw new IdpMetadataError('a signing certificate of the metadata is not a valid X.509 certificate');
  }
  return certificate.toString();
}

function list(value: unknown): Node[] {
  const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return items.filter((v): v is Node => typeof v === 'object' && v !== null);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
