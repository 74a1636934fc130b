import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { CiIssuerConfig } from '../ci-issuers-config.js';
import { IssuerUnreachable, type IssuerKeyCache } from './issuer-keys.js';
import { ClaimsError, identityOf, type CiIdentity } from './claims.js';

export type RefusalReason = 'issuer' | 'signature' | 'algorithm' | 'expired' | 'not_yet_valid' | 'audience' | 'replayed' | 'no_rule';

/** Why an exchange is refused: the reason is told, never which rules exist or what was near. */
export class CiRefusal extends Error {
  constructor(readonly reason: RefusalReason, message: string) {
    super(message);
  }
}

/** At most this much clock difference between the issuer and us, for exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 60;

export interface VerifiedJobToken {
  issuer: CiIssuerConfig;
  identity: CiIdentity;
  /** Unique per token: issuer and jti, or (a token without jti, as Bitbucket's) the token's hash. */
  useKey: string;
  /** When the job token itself expires (ms since the epoch). */
  expiresAt: number;
}

function unverifiedIssuer(token: string): string | null {
  try {
    decodeProtectedHeader(token);
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

/**
 * Verifies a job token as RFC 7519 and OpenID Connect Core §3.1.3.7 say: the issuer must be a
 * configured one (looked up by the unverified iss, then checked again by jose), signed with a key
 * of that issuer's JWKS in an algorithm it publishes, for our audience, and within its times.
 */
export async function verifyJobToken(token: string, issuers: readonly CiIssuerConfig[], keys: IssuerKeyCache, nowMs = Date.now()): Promise<VerifiedJobToken> {
  const iss = unverifiedIssuer(token);
  if (iss === null) throw new CiRefusal('signature', 'The token is not a signed JWT.');
  const issuer = issuers.find((i) => i.issuer === iss);
  if (!issuer) throw new CiRefusal('issuer', 'The token\'s issuer is not one this service trusts.');
  let algorithms: string[];
  try {
    algorithms = await keys.algorithms(issuer);
  } catch (error) {
    if (error instanceof IssuerUnreachable) throw new CiRefusal('issuer', 'The token\'s issuer could not be reached to verify it; try again.');
    throw error;
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys.keyFor(issuer), {
      issuer: issuer.issuer, audience: issuer.audience, algorithms, clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat'], currentDate: new Date(nowMs),
    }));
  } catch (error) {
    throw refusalOf(error);
  }
  if (payload.iat! > nowMs / 1000 + CLOCK_SKEW_SECONDS) throw new CiRefusal('not_yet_valid', 'The token was issued in the future.');
  let identity: CiIdentity;
  try {
    identity = identityOf(issuer, payload as Record<string, unknown>);
  } catch (error) {
    if (error instanceof ClaimsError) throw new CiRefusal('no_rule', 'No trust rule allows this token.');
    throw error;
  }
  const jti = typeof payload.jti === 'string' && payload.jti !== '' ? payload.jti : null;
  const useKey = jti !== null ? `${issuer.id}:jti:${jti}` : `${issuer.id}:sha256:${createHash('sha256').update(token).digest('hex')}`;
  return { issuer, identity, useKey, expiresAt: payload.exp! * 1000 };
}

/** The refusal a verification error means; anything else (a bug, the database) is passed on as it is. */
function refusalOf(error: unknown): unknown {
  if (error instanceof errors.JWTExpired) return new CiRefusal('expired', 'The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return new CiRefusal('audience', 'The token was issued for another audience.');
    if (error.claim === 'nbf') return new CiRefusal('not_yet_valid', 'The token is not valid yet.');
    if (error.claim === 'iss') return new CiRefusal('issuer', 'The token\'s issuer is not one this service trusts.');
    if (error.claim === 'iat' && error.reason === 'check_failed') return new CiRefusal('not_yet_valid', 'The token was issued in the future.');
    return new CiRefusal('signature', `The token is not valid: ${error.claim} is missing or malformed.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return new CiRefusal('algorithm', 'The token is signed with an algorithm its issuer does not publish.');
  if (error instanceof IssuerUnreachable) return new CiRefusal('issuer', 'The token\'s issuer could not be reached to verify it; try again.');
  if (error instanceof errors.JOSEError) return new CiRefusal('signature', 'The token\'s signature does not verify.');
  return error;
}
