import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import { exportJWK, SignJWT, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';

/**
 * A real OpenID Provider (panva's oidc-provider, OpenID Certified) on 127.0.0.1, for the sign-in
 * tests. What a test can change, each as an attacker or a misbehaving IdP could:
 * - `nextUser`: who signs in at the next authorization (the login step answers at once, no form);
 * - `tamperIdToken`: rewrites the id_token of the next token endpoint answer (re-signing with the
 *   IdP's own key via `sign`, or not);
 * - `rotateKeys`: a new signing key with a new kid, the old one withdrawn from the JWKS.
 */
export interface OidcIdp {
  issuer: string;
  nextUser: Claims;
  tamperIdToken: ((idToken: string) => Promise<string>) | null;
  /** Signs claims with the IdP's current key and kid (RS256), as it signs its own ID tokens. */
  sign(claims: Record<string, unknown>): Promise<string>;
  rotateKeys(): Promise<string>;
  kid(): string;
  /** Follows the redirects a browser would, from an authorization URL to the redirect back; returns that URL. */
  authorize(url: string): Promise<URL>;
  /** Redeems a code as a client the test controls (the attacker's own registered app). */
  redeemAs(client: { client_id: string; client_secret: string; redirect_uri: string }, code: string, verifier: string): Promise<{ id_token: string }>;
  close(): Promise<void>;
}

export interface Claims { sub: string; preferred_username?: string; name?: string; email?: string; groups?: string[] }

interface ClientRegistration { client_id: string; client_secret: string; redirect_uris: string[]; post_logout_redirect_uris?: string[] }

export async function startOidcIdp(clients: ClientRegistration[]): Promise<OidcIdp> {
  let handler: http.RequestListener = (_req, res) => res.end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cookieKeys = [randomBytes(32).toString('hex')];

  let key = await newKey();
  build();
  const cookies = new Map<string, string>();

  const idp: OidcIdp = {
    issuer,
    nextUser: { sub: 'user-1', preferred_username: 'ada', name: 'Ada Lovelace', email: 'ada@corp.example', groups: [] },
    tamperIdToken: null,
    async sign(claims) {
      const privateKey = await importJWK(key.private, 'RS256');
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(privateKey);
    },
    async rotateKeys() {
      key = await newKey();
      build();
      return key.kid;
    },
    kid: () => key.kid,
    async authorize(url) {
      // A fresh browser each time: no IdP session left from an earlier sign-in decides who signs in.
      cookies.clear();
      let next = new URL(url);
      for (let hop = 0; hop < 10; hop++) {
        if (next.origin !== issuer) return next;
        const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const location = res.headers.get('location');
        if (location === null) throw new Error(`the IdP answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
        next = new URL(location, next);
      }
      throw new Error('too many redirects at the IdP');
    },
    async redeemAs(client, code, verifier) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirect_uri, code_verifier: verifier, client_id: client.client_id, client_secret: client.client_secret }),
      });
      if (!res.ok) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<{ id_token: string }>;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  /** A provider with the current key; it takes over the server's requests. */
  function build(): void {
    const p = new Provider(issuer, {
      clients: clients.map((c) => ({ ...c, token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code'], response_types: ['code'] })),
      jwks: { keys: [key.private] },
      cookies: { keys: cookieKeys },
      // The claims each scope releases (OpenID Connect Core 5.4), plus "groups" as Keycloak's and Okta's group claims are released.
      claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'], groups: ['groups'] },
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ ...idp.nextUser, sub }) }),
      features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      // A first-party client: consent is given without asking (the pattern oidc-provider documents for loadExistingGrant).
      async loadExistingGrant(ctx) {
        const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid profile email groups');
        await grant.save();
        return grant;
      },
      ttl: { AuthorizationCode: 600, IdToken: 3600, AccessToken: 3600, Session: 3600, Interaction: 3600, Grant: 3600 },
    });
    const callback = p.callback();
    handler = (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        // The login step: the user of `nextUser` signs in, fresh each time.
        void p.interactionFinished(req, res, { login: { accountId: idp.nextUser.sub } }, { mergeWithLastSubmission: false })
          .catch((error: unknown) => { res.statusCode = 500; res.end(String(error)); });
        return;
      }
      if (req.url?.startsWith('/token') && idp.tamperIdToken !== null) tamperOnce(res, idp.tamperIdToken, () => { idp.tamperIdToken = null; });
      callback(req, res);
    };
  }

  return idp;
}

/** Rewrites the id_token in the JSON body the token endpoint writes, before it leaves. */
function tamperOnce(res: http.ServerResponse, tamper: (idToken: string) => Promise<string>, done: () => void): void {
  const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
  (res as unknown as { end: (chunk?: unknown) => void }).end = (chunk?: unknown) => {
    const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      end(chunk);
      return;
    }
    if (typeof body.id_token !== 'string') {
      end(chunk);
      return;
    }
    done();
    void tamper(body.id_token).then((idToken) => {
      const out = JSON.stringify({ ...body, id_token: idToken });
      res.setHeader('content-length', Buffer.byteLength(out));
      end(out);
    });
  };
}

async function newKey(): Promise<{ kid: string; private: JWK }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  return { kid, private: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** The claims and header of a JWS, unverified: for building the tampered variants. */
export function peek(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  return { header: decodeProtectedHeader(jwt) as Record<string, unknown>, claims: decodeJwt(jwt) as Record<string, unknown> };
}
