import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SAML, SamlStatusError, ValidateInResponseTo, generateServiceProviderMetadata, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GetError, guardedGet } from '../../net/get.js';
import type { SamlProviderConfig } from '../../providers-config.js';
import { IdpMetadataError, parseIdpMetadata, type IdpMetadata } from '../../saml-metadata.js';
import type { SamlStore } from '../saml-store.js';
import { now } from '../../db/time.js';
import { optionalText } from './profile.js';
import { ForgeError, type ForgeUser } from './types.js';

/** What an accepted SAML Response yields: the user keyed by the NameID, their groups, where the sign-in started. */
export interface SamlSignInResult {
  user: ForgeUser;
  groups: string[];
  returnTo: string;
}

type Log = { warn(obj: object, msg: string): void };

export interface SamlSignIn {
  /**
   * The IdP's SingleSignOnService with an AuthnRequest (HTTP-Redirect binding), remembered server-side
   * with the hash of `binding`: the value the starting browser keeps in a cookie.
   */
  loginUrl(p: { returnTo: string; log: Log }): Promise<{ url: string; binding: string }>;
  /**
   * Verifies a Response posted to the ACS and keeps what it says for the browser that started the
   * sign-in, under the one-time `ticket` returned; throws ForgeError (`rejected`, or `unreachable`
   * when the metadata cannot be read).
   */
  finish(p: { samlResponse: string; log: Log }): Promise<{ ticket: string }>;
  /** The answer a ticket names, once, and only to the browser holding the sign-in's binding value; throws ForgeError `rejected`. */
  complete(p: { ticket: string; binding: string | undefined }): Promise<SamlSignInResult>;
  /** This service provider's metadata (EntityDescriptor with the ACS), for the IdP. */
  spMetadata(): string;
}

/** How long an AuthnRequest waits for its answer: long enough for a password and a second factor. */
const PENDING_MS = 10 * 60_000;
/** How long a verified answer waits for the browser, which is redirected to it at once. */
const ANSWER_MS = 2 * 60_000;
/** The binding cookie lasts as long as its sign-in can: the request waiting, then its answer. */
export const BINDING_LIFETIME_MS = PENDING_MS + ANSWER_MS;
const CLOCK_SKEW_MS = 60_000;
const METADATA_TTL_MS = 60 * 60_000;
const METADATA_MAX_BYTES = 2 * 1024 * 1024;
const METADATA_TIMEOUT_MS = 10_000;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

export function samlSignIn(config: SamlProviderConfig, deps: { baseUrl: string; store: SamlStore; allowPrivate: boolean }): SamlSignIn {
  const entityId = `${deps.baseUrl}/auth/saml/${config.id}/metadata`;
  const acsUrl = `${deps.baseUrl}/auth/saml/${config.id}/acs`;
  const { store } = deps;
  const refuse = (reason: string, cause?: unknown): never => {
    throw new ForgeError(`${config.name}: SAML response refused: ${reason}`, 'rejected', cause === undefined ? undefined : { cause });
  };

  // Read at the first sign-in, not at start (an IdP that is down must not stop the service), then
  // again every hour; an IdP that cannot be reached then is answered from what was read before.
  let cached: { metadata: IdpMetadata; at: number } | null = null;
  let reading: Promise<IdpMetadata> | null = null;
  const metadata = (log: Log): Promise<IdpMetadata> => {
    if (config.idp_metadata !== null) return Promise.resolve(config.idp_metadata);
    if (cached !== null && Date.now() - cached.at < METADATA_TTL_MS) return Promise.resolve(cached.metadata);
    reading ??= fetchMetadata(config.idp_metadata_url!, deps.allowPrivate)
      .then((read) => {
        cached = { metadata: read, at: Date.now() };
        return read;
      })
      .catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (cached !== null) {
          log.warn({ provider: config.id, reason }, 'could not read the SAML IdP metadata again; using what was read before');
          return cached.metadata;
        }
        throw new ForgeError(`${config.name}: failed reading the IdP metadata: ${reason}`, 'unreachable', { cause: error });
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };

  /** node-saml's InResponseTo cache, kept in the database so every instance sees every pending request. */
  const pendingCache = (pending: { returnTo: string; bindingHash: string }): CacheProvider => ({
    async saveAsync(key, value) {
      await store.savePending({ providerId: config.id, requestId: key, ...pending, createdAt: value, expiresAt: new Date(Date.parse(value) + PENDING_MS).toISOString() });
      return { value, createdAt: Date.parse(value) };
    },
    async getAsync(key) {
      return (await store.pending(config.id, key))?.created_at ?? null;
    },
    async removeAsync(key) {
      if (key !== null) await store.removePending(config.id, key);
      return key;
    },
  });

  const saml = (idp: IdpMetadata, cache: CacheProvider, requestId?: string) => new SAML({
    issuer: entityId,
    audience: entityId,
    callbackUrl: acsUrl,
    entryPoint: idp.ssoUrl,
    idpCert: idp.certificates,
    idpIssuer: idp.entityId,
    // Neither alone is demanded, as Entra ID signs the assertion and some IdPs only the response;
    // node-saml then still requires one of the two (an unsigned response needs a signed assertion).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: PENDING_MS,
    cacheProvider: cache,
    // The IdP's configured NameID format; asking for one it is not set up for fails at Okta and Entra ID.
    identifierFormat: null,
    // Entra ID refuses an exact PasswordProtectedTransport request when the user signed in otherwise (MFA, passwordless).
    disableRequestedAuthnContext: true,
    ...(requestId === undefined ? {} : { generateUniqueId: () => requestId }),
  });

  return {
    async loginUrl({ returnTo, log }) {
      const idp = await metadata(log);
      // An NCName (SAML Core 1.3.4: xs:ID): a letter or underscore first.
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const binding = randomBytes(32).toString('base64url');
      const url = await saml(idp, pendingCache({ returnTo, bindingHash: sha256(binding) }), requestId).getAuthorizeUrlAsync('', undefined, {});
      return { url, binding };
    },

    async finish({ samlResponse, log }) {
      const idp = await metadata(log);
      const xml = decode(samlResponse) ?? refuse('SAMLResponse is not base64');
      // A comment splits a text node without touching the signature (exclusive canonicalization drops
      // it), the classic way to make a NameID read shorter than what the IdP signed. No IdP sends one.
      if (xml.includes('<!--')) refuse('it holds an XML comment');
      if (/<!DOCTYPE/i.test(xml)) refuse('it holds a DOCTYPE declaration');
      const raw = outline(xml) ?? refuse('it is not a well-formed SAML Response');
      if (await store.anyAssertionUsed(config.id, raw.assertionIds)) refuse('the assertion was replayed (its id was used before)');
      const inResponseTo = raw.inResponseTo ?? refuse('it answers no AuthnRequest (IdP-initiated sign-in is not accepted: start at Scanyard)');
      const pending = (await store.pending(config.id, inResponseTo))
        ?? refuse('InResponseTo names no pending AuthnRequest of this provider (expired, already answered, or never sent)');
      try {
        if (raw.destination !== null && raw.destination !== acsUrl) refuse(`Destination ${JSON.stringify(raw.destination)} is not this ACS`);
        let profile: Profile | null;
        try {
          ({ profile } = await saml(idp, pendingCache({ returnTo: pending.return_to, bindingHash: pending.binding_hash })).validatePostResponseAsync({ SAMLResponse: samlResponse }));
        } catch (error) {
          if (error instanceof SamlStatusError) refuse(`the IdP answered ${error.message.slice(0, 200)}`, error);
          return refuse((error instanceof Error ? error.message : String(error)).slice(0, 300), error);
        }
        if (profile === null) return refuse('it holds no assertion');
        const assertion = checkAssertion(profile, { idp, acsUrl, inResponseTo, refuse });
        if (!(await store.useAssertionOnce(config.id, assertion.id, assertion.keepUntil))) refuse('the assertion was replayed (its id was used before)');
        // Not signed in yet: the Response may have been posted by a page in another browser than the
        // one that started this sign-in (login CSRF). The completion asks for that browser's cookie.
        const ticket = randomBytes(32).toString('base64url');
        await store.saveAnswer({
          ticket_hash: sha256(ticket), provider_id: config.id, binding_hash: pending.binding_hash,
          answer: JSON.stringify(userFrom(config, profile, assertion.nameId)), return_to: pending.return_to,
          expires_at: new Date(Date.now() + ANSWER_MS).toISOString(),
        });
        return { ticket };
      } finally {
        // One answer per AuthnRequest, accepted or not.
        await store.removePending(config.id, inResponseTo);
      }
    },

    async complete({ ticket, binding }) {
      const answer = await store.takeAnswer(sha256(ticket));
      if (answer === undefined || answer.provider_id !== config.id) return refuse('the sign-in ticket is unknown or was used before');
      if (answer.expires_at <= now()) refuse('the sign-in ticket has expired');
      if (binding === undefined || !sameHash(sha256(binding), answer.binding_hash)) {
        refuse('this browser did not start the sign-in (its binding cookie is missing or another\'s): a page may have posted someone else\'s Response');
      }
      return { ...(JSON.parse(answer.answer) as { user: ForgeUser; groups: string[] }), returnTo: answer.return_to };
    },

    spMetadata() {
      return generateServiceProviderMetadata({ issuer: entityId, callbackUrl: acsUrl, identifierFormat: null, wantAssertionsSigned: false });
    },
  };
}

async function fetchMetadata(url: string, allowPrivate: boolean): Promise<IdpMetadata> {
  let res;
  try {
    res = await guardedGet({
      url, headers: { accept: 'application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8' },
      timeoutMs: METADATA_TIMEOUT_MS, maxBytes: METADATA_MAX_BYTES, allowPrivate,
    });
  } catch (error) {
    if (error instanceof GetError) throw new Error(error.message);
    throw error;
  }
  if (res.status !== 200) throw new Error(`the metadata URL answered HTTP ${res.status}`);
  try {
    return parseIdpMetadata(res.body.toString('utf8'));
  } catch (error) {
    if (error instanceof IdpMetadataError) throw new Error(error.message);
    throw error;
  }
}

function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

function sameHash(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

function decode(value: string): string | null {
  const compact = value.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64').toString('utf8');
}

/**
 * What is read of the Response before its signature is checked, to find the pending request and
 * refuse a replay early. Nothing here is trusted: node-saml verifies, and checkAssertion reads the
 * verified assertion.
 */
function outline(xml: string): { inResponseTo: string | null; destination: string | null; assertionIds: string[] } | null {
  if (XMLValidator.validate(xml) !== true) return null;
  const doc = new XMLParser({
    ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, parseTagValue: false, parseAttributeValue: false,
    processEntities: false, ignoreDeclaration: true, ignorePiTags: true, maxNestedTags: 64, jPath: false,
    isArray: (name) => name === 'Assertion',
  }).parse(xml) as Record<string, unknown>;
  const response = doc.Response as Record<string, unknown> | undefined;
  if (typeof response !== 'object' || response === null) return null;
  const attribute = (name: string) => (typeof response[`@_${name}`] === 'string' ? response[`@_${name}`] as string : null);
  const assertionIds = ((response.Assertion as unknown[] | undefined) ?? [])
    .map((a) => (a as Record<string, unknown> | null)?.['@_ID'])
    .filter((id): id is string => typeof id === 'string');
  return { inResponseTo: attribute('InResponseTo'), destination: attribute('Destination'), assertionIds };
}

type XmlJs = { $?: Record<string, string>; _?: string; [child: string]: unknown };

/**
 * What node-saml leaves to us, read from the assertion it verified (SAML 2.0 Profiles 4.1.4.2,
 * Web Browser SSO): the Issuer is the IdP of the metadata; a bearer SubjectConfirmation names this
 * ACS as Recipient and this AuthnRequest as InResponseTo, with a NotOnOrAfter; the NameID is a
 * lasting identifier (transient ones change at every sign-in).
 */
function checkAssertion(profile: Profile, p: { idp: IdpMetadata; acsUrl: string; inResponseTo: string; refuse: (reason: string) => never }) {
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlJs } | undefined)?.Assertion ?? p.refuse('no verified assertion');
  const id = assertion.$?.ID ?? p.refuse('the assertion has no ID');
  const issuer = child(assertion, 'Issuer')?._?.trim();
  if (issuer !== p.idp.entityId) p.refuse(`the assertion's Issuer ${JSON.stringify(issuer ?? null)} is not the IdP of the metadata (${p.idp.entityId})`);
  const subject = child(assertion, 'Subject') ?? p.refuse('the assertion has no Subject');
  const confirmations = children(subject, 'SubjectConfirmation').filter((c) => c.$?.Method === BEARER).map((c) => child(c, 'SubjectConfirmationData')?.$ ?? {});
  if (confirmations.length === 0) p.refuse('the assertion has no bearer SubjectConfirmation');
  const forUs = confirmations.filter((d) => d.Recipient === p.acsUrl);
  if (forUs.length === 0) p.refuse(`the SubjectConfirmationData Recipient ${JSON.stringify(confirmations[0]!.Recipient ?? null)} is not this ACS (${p.acsUrl})`);
  const answering = forUs.find((d) => d.InResponseTo === p.inResponseTo) ?? p.refuse('the SubjectConfirmationData InResponseTo is not the AuthnRequest this Response answers');
  const confirmedUntil = Date.parse(answering.NotOnOrAfter ?? '');
  if (Number.isNaN(confirmedUntil)) p.refuse('the bearer SubjectConfirmationData has no NotOnOrAfter');

  const nameIdNode = child(subject, 'NameID') ?? p.refuse('the assertion has no NameID (an encrypted one cannot be read: turn NameID encryption off)');
  if (nameIdNode.$?.Format === TRANSIENT) p.refuse('the NameID is transient, which changes at every sign-in; configure a persistent, email or unspecified NameID');
  // The whole text of the verified element (a comment, which could cut it short, was refused before).
  const nameId = typeof nameIdNode._ === 'string' ? nameIdNode._.trim() : '';
  if (nameId === '') p.refuse('the NameID is empty');

  // Kept until neither the assertion nor its confirmation can be accepted any more.
  const conditionsUntil = Date.parse(child(assertion, 'Conditions')?.$?.NotOnOrAfter ?? '');
  const keepUntil = new Date(Math.max(confirmedUntil, Number.isNaN(conditionsUntil) ? 0 : conditionsUntil) + CLOCK_SKEW_MS).toISOString();
  return { id, nameId, keepUntil };
}

function children(node: XmlJs, name: string): XmlJs[] {
  const value = node[name];
  return Array.isArray(value) ? value.filter((v): v is XmlJs => typeof v === 'object' && v !== null) : [];
}

function child(node: XmlJs, name: string): XmlJs | undefined {
  return children(node, name)[0];
}

function userFrom(config: SamlProviderConfig, profile: Profile, nameId: string): { user: ForgeUser; groups: string[] } {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const first = (name: string): string | null => optionalText(Array.isArray(attributes[name]) ? (attributes[name] as unknown[])[0] : attributes[name]);
  const login = first(config.login_attribute) ?? nameId;
  const groups = attributes[config.groups_attribute];
  return {
    user: { forgeUserId: nameId, login, name: first(config.name_attribute), email: first(config.email_attribute), avatarUrl: null },
    groups: (Array.isArray(groups) ? groups : [groups]).filter((g): g is string => typeof g === 'string' && g !== ''),
  };
}
