import * as client from 'openid-client';
import type { OidcProviderConfig } from '../../providers-config.js';
import { optionalText } from './profile.js';
import { ForgeError, type ForgeUser } from './types.js';

/** What a verified OpenID Connect sign-in yields: the user keyed by `sub`, their groups, and the ID token for logout. */
export interface OidcSignInResult {
  user: ForgeUser;
  groups: string[];
  idToken: string;
}

export interface OidcSignIn {
  authorizeUrl(p: { state: string; nonce: string; codeChallenge: string; redirectUri: string }): Promise<string>;
  /** Redeems the code and verifies the ID token (signature by the JWKS, iss, aud, azp, exp, nonce); throws ForgeError when refused. */
  finish(p: { callbackUrl: URL; state: string; nonce: string; codeVerifier: string }): Promise<OidcSignInResult>;
  /** The IdP's end_session_endpoint with the ID token as hint, or null when it advertises none. */
  endSessionUrl(p: { idToken: string; postLogoutRedirectUri: string }): Promise<string | null>;
}

const TIMEOUT_SECONDS = 10;

export function oidcSignIn(config: OidcProviderConfig): OidcSignIn {
  // Discovered at the first sign-in, not at start: an IdP that is down must not stop the service.
  // One Configuration per provider keeps its JWKS cache (a key the cache lacks is fetched again once
  // the cache is 60 s old, so a new kid is accepted within 60 s).
  let discovered: Promise<client.Configuration> | null = null;
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= discover(config).catch((error: unknown) => {
      discovered = null;
      throw refused(config, 'reading its discovery document', error);
    });
    return discovered;
  };

  return {
    async authorizeUrl(p) {
      const url = client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: p.redirectUri,
        scope: config.scopes.join(' '),
        state: p.state,
        nonce: p.nonce,
        code_challenge: p.codeChallenge,
        code_challenge_method: 'S256',
      });
      return url.toString();
    },

    async finish(p) {
      const c = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(c, p.callbackUrl, {
          pkceCodeVerifier: p.codeVerifier,
          expectedState: p.state,
          expectedNonce: p.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw refused(config, 'verifying the sign-in', error);
      }
      const idClaims = tokens.claims();
      if (!idClaims || tokens.id_token === undefined) throw new ForgeError(`${config.name} answered without an ID token`, 'rejected');
      // Okta, Entra ID and oidc-provider put profile claims in the userinfo answer rather than the ID
      // token unless told otherwise; the ID token's own claims win, and userinfo must name the same sub.
      let info: Record<string, unknown> = {};
      if (c.serverMetadata().userinfo_endpoint !== undefined) {
        try {
          info = await client.fetchUserInfo(c, tokens.access_token, idClaims.sub);
        } catch (error) {
          throw refused(config, 'fetching the user profile', error);
        }
      }
      return { ...userFrom(config, { ...info, ...idClaims }), idToken: tokens.id_token };
    },

    async endSessionUrl(p) {
      const c = await configuration();
      if (c.serverMetadata().end_session_endpoint === undefined) return null;
      return client.buildEndSessionUrl(c, { id_token_hint: p.idToken, post_logout_redirect_uri: p.postLogoutRedirectUri }).toString();
    },
  };
}

async function discover(config: OidcProviderConfig): Promise<client.Configuration> {
  // An http issuer is the administrator's explicit choice (a lab or a test IdP); openid-client refuses it otherwise.
  const insecure = config.issuer.startsWith('http:');
  const c = await client.discovery(
    new URL(config.issuer), config.client_id, config.client_secret, client.ClientSecretPost(config.client_secret),
    { timeout: TIMEOUT_SECONDS, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
  );
  // openid-client trusts an ID token received over TLS from the token endpoint without checking its
  // signature (OIDC Core 3.1.3.7 allows that); we verify it against the JWKS anyway.
  client.enableNonRepudiationChecks(c);
  return c;
}

function userFrom(config: OidcProviderConfig, claims: Record<string, unknown>): { user: ForgeUser; groups: string[] } {
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub === '') throw new ForgeError(`${config.name} sent no subject`, 'malformed');
  const login = optionalText(claims[config.login_claim]);
  if (login === null) throw new ForgeError(`${config.name} sent no "${config.login_claim}" claim to use as the login`, 'malformed');
  const groups = claims[config.groups_claim];
  return {
    user: {
      forgeUserId: sub,
      login,
      name: optionalText(claims[config.name_claim]),
      email: optionalText(claims[config.email_claim]),
      avatarUrl: optionalText(claims.picture),
    },
    // A single group may come as a string (some ADFS and Keycloak mappers); anything else is ignored.
    groups: typeof groups === 'string' ? [groups] : Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
  };
}

/** A ForgeError whose message names what failed, never a token or the code (openid-client's messages hold neither). */
function refused(config: OidcProviderConfig, doing: string, error: unknown): ForgeError {
  if (error instanceof ForgeError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new ForgeError(`${config.name} did not sign the user in: ${error.error}`, 'rejected', { cause: error });
  }
  if (error instanceof client.ResponseBodyError) {
    return new ForgeError(`${config.name} refused ${doing}: ${error.error}`, 'rejected', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof client.ClientError) {
    // The code and the claim name what failed (nonce, aud, exp, the signature...); claim values stay out of the log.
    const claim = claimOf(error);
    const inner = error.cause instanceof Error ? error.cause.message.slice(0, 100) : null;
    const detail = [error.code, claim === null ? null : `claim ${claim}`, inner].filter((d) => d).join(', ');
    return new ForgeError(`${config.name}: failed ${doing}: ${message.slice(0, 200)}${detail ? ` (${detail})` : ''}`, 'rejected', { cause: error });
  }
  return new ForgeError(`${config.name}: failed ${doing}: ${message.slice(0, 200)}`, 'unreachable', { cause: error });
}

/** oauth4webapi names the failed claim in the cause of its error, which openid-client wraps in turn. */
function claimOf(error: unknown): string | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const claim = (e.cause as { claim?: unknown } | undefined)?.claim;
    if (typeof claim === 'string') return claim;
  }
  return null;
}
