import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { SignedXml } from 'xml-crypto';

/**
 * A SAML 2.0 identity provider on 127.0.0.1 for the sign-in tests, following the OASIS SAML 2.0
 * specifications: it serves its metadata (saml-metadata-2.0-os 2.3, 2.4.3: an EntityDescriptor with
 * an IDPSSODescriptor), takes AuthnRequests by the HTTP-Redirect binding (saml-bindings-2.0-os 3.4:
 * DEFLATE, base64, SAMLRequest in the query) and answers with a Response (saml-core-2.0-os 3.3.3,
 * 2.3.3 Assertion) by the HTTP-POST binding (saml-bindings-2.0-os 3.5: an HTML form that posts
 * SAMLResponse to the ACS), shaped per the Web Browser SSO profile (saml-profiles-2.0-os 4.1.4.2:
 * bearer SubjectConfirmation with Recipient, InResponseTo, NotOnOrAfter; AudienceRestriction).
 * Signatures are enveloped XML signatures (RSA-SHA256, exclusive canonicalization) by xml-crypto,
 * with the fixed test key of test/fixtures/saml/.
 *
 * What a test can change for the next answer, each as an attacker or a misbehaving IdP could:
 * `next` (what is signed, with which key, and every checked value) and `nextUser`.
 */
export interface SamlIdp {
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  nextUser: SamlUser;
  next: ResponseOptions;
  /** While true, the metadata URL answers 503 (an IdP being upgraded). */
  metadataDown: boolean;
  /** What a browser does at the IdP: follows the redirect to the SSO URL and reads the auto-posting form. */
  authorize(url: string): Promise<PostedForm>;
  /** The AuthnRequest the IdP last received, as it read it. */
  lastRequest(): AuthnRequest | null;
  close(): Promise<void>;
}

export interface SamlUser {
  nameId: string;
  nameIdFormat?: string;
  attributes: Record<string, string | string[]>;
}

export interface ResponseOptions {
  /** Which elements carry a signature (default: the assertion, as Entra ID does). */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /** Sign with another key than the one in the metadata. */
  foreignKey?: boolean;
  audience?: string;
  recipient?: string;
  destination?: string;
  inResponseTo?: string;
  issuer?: string;
  /** Moves every instant (IssueInstant, NotBefore, NotOnOrAfter) by this much. */
  shiftMs?: number;
  /** Applied to the signed XML before it is sent (comments, wrapping). */
  tamper?: (xml: string) => string;
}

export interface PostedForm {
  action: string;
  SAMLResponse: string;
  RelayState: string | null;
  /** The decoded XML of the Response, for building attacks on it. */
  xml: string;
}

export interface AuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  destination: string;
}

const FIXTURES = new URL('../fixtures/saml/', import.meta.url);
const IDP_KEY = readFileSync(new URL('idp-key.pem', FIXTURES), 'utf8');
const IDP_CERT = readFileSync(new URL('idp-cert.pem', FIXTURES), 'utf8');
const OTHER_KEY = readFileSync(new URL('other-key.pem', FIXTURES), 'utf8');
const OTHER_CERT = readFileSync(new URL('other-cert.pem', FIXTURES), 'utf8');

const VALID_MS = 5 * 60_000;

export async function startSamlIdp(): Promise<SamlIdp> {
  let last: AuthnRequest | null = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/saml/metadata') {
      if (idp.metadataDown) {
        res.statusCode = 503;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/samlmetadata+xml');
      res.end(idpMetadata(idp.entityId, idp.ssoUrl, IDP_CERT));
      return;
    }
    if (url.pathname === '/saml/sso' && req.method === 'GET') {
      try {
        last = readAuthnRequest(url.searchParams.get('SAMLRequest') ?? '');
      } catch (error) {
        res.statusCode = 400;
        res.end(`not an AuthnRequest: ${String(error)}`);
        return;
      }
      const xml = buildResponse(idp, last, idp.nextUser, idp.next);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(postForm(last.acsUrl, Buffer.from(xml, 'utf8').toString('base64'), url.searchParams.get('RelayState')));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: SamlIdp = {
    entityId: `${origin}/saml/idp`,
    metadataUrl: `${origin}/saml/metadata`,
    ssoUrl: `${origin}/saml/sso`,
    nextUser: { nameId: 'ada@corp.example', attributes: { uid: 'ada' } },
    next: {},
    metadataDown: false,
    async authorize(url) {
      const res = await fetch(url, { redirect: 'manual' });
      const page = await res.text();
      if (res.status !== 200) throw new Error(`the IdP answered ${res.status}: ${page.slice(0, 300)}`);
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? null;
      const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
      const samlResponse = field('SAMLResponse');
      if (!action || !samlResponse) throw new Error('the IdP page has no SAMLResponse form');
      return { action: unescapeHtml(action), SAMLResponse: samlResponse, RelayState: field('RelayState'), xml: Buffer.from(samlResponse, 'base64').toString('utf8') };
    },
    lastRequest: () => last,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return idp;
}

/** saml-metadata-2.0-os: the IdP's EntityDescriptor, as Okta and Entra ID publish theirs. */
function idpMetadata(entityId: string, ssoUrl: string, cert: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeXml(entityId)}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data><ds:X509Certificate>${certBody(cert)}</ds:X509Certificate></ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(ssoUrl)}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escapeXml(ssoUrl)}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`;
}

/** saml-bindings-2.0-os 3.4.4.1: base64, then DEFLATE (raw) of the AuthnRequest. */
function readAuthnRequest(encoded: string): AuthnRequest {
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true }).parse(xml) as { AuthnRequest?: Record<string, unknown> };
  const request = doc.AuthnRequest;
  if (!request) throw new Error('no AuthnRequest element');
  const issuer = request.Issuer;
  return {
    id: String(request.ID),
    issuer: typeof issuer === 'string' ? issuer : String((issuer as Record<string, unknown>)['#text']),
    acsUrl: String(request.AssertionConsumerServiceURL),
    destination: String(request.Destination),
  };
}

function buildResponse(idp: SamlIdp, request: AuthnRequest, user: SamlUser, options: ResponseOptions): string {
  const at = Date.now() + (options.shiftMs ?? 0);
  const instant = (ms: number) => new Date(at + ms).toISOString();
  const inResponseTo = escapeXml(options.inResponseTo ?? request.id);
  const issuer = escapeXml(options.issuer ?? idp.entityId);
  const assertionId = `_a${randomBytes(16).toString('hex')}`;
  const attributes = Object.entries(user.attributes).map(([name, value]) =>
    `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${
      (Array.isArray(value) ? value : [value]).map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`).join('')
    }</saml:Attribute>`).join('');
  const assertion = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="${assertionId}" Version="2.0" IssueInstant="${instant(0)}">`
    + `<saml:Issuer>${issuer}</saml:Issuer>`
    + '<saml:Subject>'
    + `<saml:NameID Format="${escapeXml(user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress')}">${escapeXml(user.nameId)}</saml:NameID>`
    + '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">'
    + `<saml:SubjectConfirmationData InResponseTo="${inResponseTo}" NotOnOrAfter="${instant(VALID_MS)}" Recipient="${escapeXml(options.recipient ?? request.acsUrl)}"/>`
    + '</saml:SubjectConfirmation>'
    + '</saml:Subject>'
    + `<saml:Conditions NotBefore="${instant(-5_000)}" NotOnOrAfter="${instant(VALID_MS)}">`
    + `<saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience ?? request.issuer)}</saml:Audience></saml:AudienceRestriction>`
    + '</saml:Conditions>'
    + `<saml:AuthnStatement AuthnInstant="${instant(0)}" SessionIndex="_s${randomBytes(8).toString('hex')}">`
    + '<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>'
    + '</saml:AuthnStatement>'
    + (attributes === '' ? '' : `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`)
    + '</saml:Assertion>';
  let xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${instant(0)}" Destination="${escapeXml(options.destination ?? request.acsUrl)}" InResponseTo="${inResponseTo}">`
    + `<saml:Issuer>${issuer}</saml:Issuer>`
    + '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
    + assertion
    + '</samlp:Response>';
  const sign = options.sign ?? 'assertion';
  const key = options.foreignKey ? { key: OTHER_KEY, cert: OTHER_CERT } : { key: IDP_KEY, cert: IDP_CERT };
  // The assertion first: a signed Response then covers the signed assertion (saml-core 5.2).
  if (sign === 'assertion' || sign === 'both') xml = signElement(xml, 'Assertion', key);
  if (sign === 'response' || sign === 'both') xml = signElement(xml, 'Response', key);
  return options.tamper ? options.tamper(xml) : xml;
}

/** An enveloped signature placed right after the element's Issuer, where the schema puts it (saml-core 5.4.1). */
function signElement(xml: string, element: 'Assertion' | 'Response', { key, cert }: { key: string; cert: string }): string {
  const path = element === 'Response' ? "/*[local-name(.)='Response']" : "//*[local-name(.)='Assertion']";
  const sig = new SignedXml({
    privateKey: key,
    publicCert: cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: path,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `${path}/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/** saml-bindings-2.0-os 3.5.4: the form the user agent posts to the ACS. */
function postForm(action: string, samlResponse: string, relayState: string | null): string {
  return `<!DOCTYPE html><html><body onload="document.forms[0].submit()"><form method="post" action="${escapeXml(action)}">`
    + `<input type="hidden" name="SAMLResponse" value="${samlResponse}"/>`
    + (relayState ? `<input type="hidden" name="RelayState" value="${escapeXml(relayState)}"/>` : '')
    + '<noscript><button type="submit">Continue</button></noscript></form></body></html>';
}

function certBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function unescapeHtml(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}
