import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import { badRequest, notFound, unauthorized } from '../problem.js';
import { NoContent, problems } from '../http/responses.js';
import { CurrentUserSchema } from '../users/schema.js';
import { presentCurrentUser } from '../users/presenter.js';
import { createForge, ForgeError, pkcePair, randomState, type Forge } from './forges/index.js';
import { oidcSignIn, type OidcSignIn } from './forges/oidc.js';
import { BINDING_LIFETIME_MS } from './forges/saml.js';
import type { UserRow } from '../db/schema.js';
import type { GroupMapping, OidcProviderConfig } from '../providers-config.js';
import type { ForgeUser } from './forges/types.js';
import { SIGN_IN_ERRORS, type SignInError } from './sign-in-errors.js';

const ProviderSchema = Type.Object({ id: Type.String(), type: Type.String(), name: Type.String() });
const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncTypebox<{ config: Config; services: Services }> = async (app, { config, services }) => {
  const forges = new Map<string, Forge>(config.providers.map((p) => [p.id, createForge(p)]));
  const redirectUri = `${config.baseUrl}/auth/callback`;
  const oidc = new Map<string, { config: OidcProviderConfig; signIn: OidcSignIn }>(
    config.oidcProviders.map((p) => [p.id, { config: p, signIn: oidcSignIn(p) }]));
  const listed = [...config.providers, ...config.oidcProviders, ...config.samlProviders];

  app.get('/auth/providers', {
    schema: { tags, summary: 'Configured sign-in providers', security: [], response: { 200: Type.Array(ProviderSchema) } },
  }, async () => listed.map(({ id, type, name }) => ({ id, type, name })));

  app.get('/auth/login/:provider', {
    schema: {
      tags,
      summary: 'Start signing in with a forge, an OpenID Connect or a SAML provider (redirects to its authorization or sign-on page)',
      security: [],
      params: Type.Object({ provider: Type.String() }),
      querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 2000 })) }),
      response: {
        302: { description: 'Redirect to the forge or IdP; for SAML with a short-lived cookie binding the sign-in to this browser.', type: 'null' },
        ...problems(404),
      },
    },
  }, async (request, reply) => {
    const saml = services.saml.provider(request.params.provider);
    if (saml) {
      try {
        // SP-initiated, HTTP-Redirect binding; the AuthnRequest is remembered in the database, as the answer comes back cross-site.
        const { url, binding } = await saml.signIn.loginUrl({ returnTo: safeReturnTo(request.query.return_to), log: request.log });
        // Lax: absent from the IdP's cross-site POST, present at the same-origin GET the ACS redirects to.
        reply.setCookie(SAML_BINDING_COOKIE, binding, { ...bindingCookie(saml.config.id), maxAge: BINDING_LIFETIME_MS / 1000 });
        return reply.redirect(url);
      } catch (caught) {
        if (!(caught instanceof ForgeError)) throw caught;
        request.log.warn({ provider: saml.config.id, reason: caught.message }, 'SAML sign-in could not start');
        return toLogin(reply, 'forge_failed');
      }
    }
    const idp = oidc.get(request.params.provider);
    if (idp) {
      const state = randomState();
      const nonce = randomState();
      const { verifier, challenge } = pkcePair();
      let url: string;
      try {
        url = await idp.signIn.authorizeUrl({ state, nonce, codeChallenge: challenge, redirectUri });
      } catch (caught) {
        if (!(caught instanceof ForgeError)) throw caught;
        request.log.warn({ provider: idp.config.id, reason: caught.message }, 'OpenID Connect sign-in could not start');
        return toLogin(reply, 'forge_failed');
      }
      request.session.set('oauth', { provider: idp.config.id, state, verifier, nonce, returnTo: safeReturnTo(request.query.return_to) });
      return reply.redirect(url);
    }
    const forge = forges.get(request.params.provider);
    if (!forge) throw notFound(`The sign-in provider "${request.params.provider}"`);
    const state = randomState();
    const { verifier, challenge } = pkcePair();
    request.session.set('oauth', {
      provider: request.params.provider, state, verifier, returnTo: safeReturnTo(request.query.return_to),
    });
    return reply.redirect(forge.authorizeUrl({ state, codeChallenge: challenge, redirectUri }));
  });

  app.get('/auth/callback', {
    schema: {
      tags,
      summary: 'OAuth 2.0 callback: the forge sends the user back here with a code',
      security: [],
      querystring: Type.Object({
        code: Type.Optional(Type.String()),
        state: Type.Optional(Type.String()),
        error: Type.Optional(Type.String()),
        error_description: Type.Optional(Type.String()),
      }),
      response: { 302: { description: 'Signed in (to the app) or sent back to the login screen with a message.', type: 'null' }, ...problems(400) },
    },
  }, async (request, reply) => {
    const pending = request.session.get('oauth');
    const { code, state, error } = request.query;
    if (!pending || !state || state !== pending.state) {
      throw badRequest('The sign-in state is missing or does not match; start signing in again.');
    }
    // One attempt per state: a replayed callback finds nothing to match.
    request.session.set('oauth', undefined);
    const idp = oidc.get(pending.provider);
    const forge = forges.get(pending.provider);
    if (!forge && !idp) return toLogin(reply, 'provider_gone');
    if (error || !code) {
      request.log.info({ provider: pending.provider, error: error ?? 'no code' }, 'the forge did not sign the user in');
      return toLogin(reply, error === 'access_denied' ? 'cancelled' : 'refused');
    }
    if (idp) {
      if (pending.nonce === undefined) return toLogin(reply, 'refused');
      return finishOidc(request, reply, idp, { ...pending, nonce: pending.nonce });
    }
    if (!forge) return toLogin(reply, 'provider_gone');
    try {
      const accessToken = await forge.exchangeCode({ code, codeVerifier: pending.verifier, redirectUri });
      const forgeUser = await forge.fetchUser(accessToken);
      const user = await services.users.upsertForgeUser({ providerId: pending.provider, ...forgeUser });
      await services.scimService.signedIn(user);
      await services.admins.signedIn(user, request.log);
      await startSession(request, user, 'signed_in', { provider: pending.provider }, services.forgeTokens.seal(accessToken));
      return reply.redirect(pending.returnTo);
    } catch (caught) {
      if (caught instanceof ForgeError) {
        request.log.warn({ provider: pending.provider, reason: caught.message }, 'forge sign-in failed');
        return toLogin(reply, 'forge_failed');
      }
      throw caught;
    }
  });

  app.get('/auth/saml/:provider/metadata', {
    schema: {
      tags,
      summary: "This service's SAML 2.0 service provider metadata for a SAML provider (entity id, ACS), to register it at the IdP",
      security: [],
      params: Type.Object({ provider: Type.String() }),
      response: { 200: { description: 'An EntityDescriptor (SAML 2.0 Metadata).', content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } } }, ...problems(404) },
    },
  }, async (request, reply) => {
    const saml = services.saml.provider(request.params.provider);
    if (!saml) throw notFound(`The SAML provider "${request.params.provider}"`);
    return reply.type('application/samlmetadata+xml').send(saml.signIn.spMetadata());
  });

  // The IdP's page posts the Response here (HTTP-POST binding) as a form: a parser for this route alone.
  await app.register(async (scope) => {
    const acs = scope.withTypeProvider<TypeBoxTypeProvider>();
    acs.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [key, value] of new URLSearchParams(body as string)) {
        if (Object.hasOwn(fields, key)) return done(badRequest(`The form field ${key} is given more than once.`), undefined);
        fields[key] = value;
      }
      done(null, fields);
    });
    acs.post('/auth/saml/:provider/acs', {
      schema: {
        tags,
        summary: 'SAML 2.0 assertion consumer service: the IdP posts its Response here (HTTP-POST binding)',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        params: Type.Object({ provider: Type.String() }),
        body: Type.Object({ SAMLResponse: Type.String({ minLength: 1 }), RelayState: Type.Optional(Type.String({ maxLength: 80 })) }),
        response: {
          303: { description: 'Verified: on to the completion, which signs in the browser that started the sign-in; or to the login screen when the IdP cannot be reached, or (for a browser, which asks for HTML) when the Response is refused.', type: 'null' },
          ...problems(400, 401, 404),
        },
      },
      // Cross-site by design: the Response's signature, not the origin, says who sent it.
      config: { signedPost: true },
    }, async (request, reply) => {
      const saml = services.saml.provider(request.params.provider);
      if (!saml) throw notFound(`The SAML provider "${request.params.provider}"`);
      let ticket;
      try {
        ({ ticket } = await saml.signIn.finish({ samlResponse: request.body.SAMLResponse, log: request.log }));
      } catch (caught) {
        if (!(caught instanceof ForgeError)) throw caught;
        if (caught.kind === 'unreachable') {
          request.log.warn({ provider: saml.config.id, reason: caught.message }, 'SAML sign-in could not be checked');
          return toLogin(reply, 'forge_failed', 303);
        }
        return refusedSaml(request, reply, saml.config.id, caught);
      }
      // This POST carries none of our cookies, so it cannot tell whose browser posted it; the GET it
      // is redirected to is a top-level navigation, which carries the Lax binding cookie.
      return reply.redirect(`/auth/saml/${encodeURIComponent(saml.config.id)}/complete?ticket=${ticket}`, 303);
    });
  });

  app.get('/auth/saml/:provider/complete', {
    schema: {
      tags,
      summary: 'SAML 2.0 sign-in completion: signs in the browser that started the sign-in (the ACS redirects here with a one-time ticket)',
      security: [],
      params: Type.Object({ provider: Type.String() }),
      querystring: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 100 }) }),
      response: {
        302: { description: 'Signed in, to where the sign-in started (the session cookie is set, the binding cookie cleared).', type: 'null' },
        303: { description: 'Refused, for a browser (it asks for HTML): to the login screen with ?error=not_verified. Others get the 401 problem.', type: 'null' },
        ...problems(400, 401, 404),
      },
    },
  }, async (request, reply) => {
    const saml = services.saml.provider(request.params.provider);
    if (!saml) throw notFound(`The SAML provider "${request.params.provider}"`);
    let result;
    try {
      result = await saml.signIn.complete({ ticket: request.query.ticket, binding: request.cookies[SAML_BINDING_COOKIE] });
    } catch (caught) {
      if (!(caught instanceof ForgeError)) throw caught;
      return refusedSaml(request, reply, saml.config.id, caught);
    }
    await completeSignIn(request, saml.config.id, result, saml.config.group_mappings);
    reply.clearCookie(SAML_BINDING_COOKIE, bindingCookie(saml.config.id));
    return reply.redirect(result.returnTo);
  });

  app.post('/auth/logout', {
    schema: {
      tags,
      summary: 'End the session (and, for an OpenID Connect provider with end_session, answer where to sign out at the IdP)',
      response: {
        200: Type.Object({ redirect: Type.String({ description: "The IdP's end_session_endpoint: send the browser there to sign out at the IdP too." }) }),
        204: NoContent,
      },
    },
  }, async (request, reply) => {
    const sessionId = request.session.get('sid');
    const signedInWith = request.session.get('idp');
    if (sessionId) await services.sessions.destroy(sessionId);
    request.session.delete();
    const idp = signedInWith && oidc.get(signedInWith.provider);
    if (sessionId && idp?.config.end_session) {
      try {
        const redirect = await idp.signIn.endSessionUrl({ idToken: signedInWith!.idToken, postLogoutRedirectUri: `${config.baseUrl}/login` });
        if (redirect !== null) return reply.code(200).send({ redirect });
      } catch (caught) {
        if (!(caught instanceof ForgeError)) throw caught;
        // Signed out here all the same; the IdP session stays, which the log says.
        request.log.warn({ provider: idp.config.id, reason: caught.message }, 'could not build the sign-out address at the IdP');
      }
    }
    return reply.code(204).send(null);
  });

  app.post('/auth/dev-login', {
    schema: {
      tags,
      summary: 'Development sign-in as the local administrator "dev" (only when no provider is configured)',
      security: [],
      response: { 200: CurrentUserSchema, ...problems(403, 404) },
    },
    // It sets a session cookie without needing one: a cross-site page must not be able to sign in.
    config: { sameOriginOnly: true },
  }, async (request) => {
    if (!config.devLogin) throw notFound('Development login');
    const user = await services.users.upsertDevUser();
    const sessionId = await startSession(request, user, 'dev_login', {});
    return presentCurrentUser(await services.userService.current({ user, isAdmin: true, via: 'session', sessionId, key: null }));
  });

  /** The ID token is verified before anything is written: a refused one creates no user and no session. */
  async function finishOidc(
    request: FastifyRequest, reply: FastifyReply, idp: { config: OidcProviderConfig; signIn: OidcSignIn },
    pending: { state: string; verifier: string; nonce: string; returnTo: string },
  ) {
    const provider = idp.config.id;
    // openid-client checks the whole answer (state, and iss when the IdP sends it, RFC 9207): give it the query as received.
    const query = request.raw.url?.split('?')[1] ?? '';
    let result;
    try {
      result = await idp.signIn.finish({ callbackUrl: new URL(`${redirectUri}?${query}`), state: pending.state, nonce: pending.nonce, codeVerifier: pending.verifier });
    } catch (caught) {
      if (!(caught instanceof ForgeError)) throw caught;
      request.log.warn({ provider, reason: caught.message }, 'OpenID Connect sign-in refused');
      return toLogin(reply, 'forge_failed');
    }
    await completeSignIn(request, provider, result, idp.config.group_mappings);
    if (idp.config.end_session) request.session.set('idp', { provider, idToken: result.idToken });
    return reply.redirect(pending.returnTo);
  }

  /** An identity provider's verified user: keyed by (provider, subject), its group mappings applied, a new session. */
  async function completeSignIn(request: FastifyRequest, provider: string, result: { user: ForgeUser; groups: string[] }, mappings: GroupMapping[]) {
    const user = await services.users.upsertForgeUser({ providerId: provider, ...result.user });
    await services.scimService.signedIn(user);
    await services.groupGrants.apply({ providerId: provider, user, mappings, groups: result.groups, log: request.log });
    await services.admins.signedIn(user, request.log);
    await startSession(request, user, 'signed_in', { provider });
  }

  /**
   * Nothing was written: the user, their memberships and the session come only after every check.
   * A browser (it asks for HTML, as a form post or a redirect it follows does) goes back to the login
   * screen, which says so in its own words; anything else gets the problem.
   */
  function refusedSaml(request: FastifyRequest, reply: FastifyReply, provider: string, caught: ForgeError) {
    request.log.warn({ provider, reason: caught.message }, 'SAML sign-in refused');
    if (/\btext\/html\b/.test(request.headers.accept ?? '')) return toLogin(reply, 'not_verified', 303);
    throw unauthorized('The SAML sign-in was refused; start signing in again. The reason is in the service log.');
  }

  /** Sent only to the completion of its provider; Secure when the service is served over https. */
  function bindingCookie(provider: string) {
    return { path: `/auth/saml/${encodeURIComponent(provider)}/complete`, httpOnly: true, sameSite: 'lax' as const, secure: config.baseUrl.startsWith('https:') };
  }

  async function startSession(request: FastifyRequest, user: UserRow, action: string, details: Record<string, unknown>, forgeToken: string | null = null): Promise<string> {
    const old = request.session.get('sid');
    if (old) await services.sessions.destroy(old);
    // The forge token stays sealed with the session only to check, when linking an org, who administers it there.
    const sessionId = await services.sessions.create(user.id, forgeToken);
    request.session.set('sid', sessionId);
    request.session.set('idp', undefined);
    await services.audit.record({ action, actor: { id: user.id, login: user.login }, ip: request.ip, target: { type: 'user', id: user.id }, details: { ...details, is_admin: await services.admins.isAdmin(user) } });
    return sessionId;
  }
};

/** Holds the random value that binds a SAML sign-in to the browser that started it (login CSRF). */
const SAML_BINDING_COOKIE = 'scanyard_saml_binding';

/** Only a code from a fixed list travels in the URL: the login screen has its own words for each. */
function toLogin(reply: FastifyReply, code: SignInError, status: 302 | 303 = 302) {
  return reply.redirect(`/login?error=${SIGN_IN_ERRORS[code]}`, status);
}

/** Only a path on this service: no scheme, no host, no protocol-relative `//evil`. */
function safeReturnTo(value: string | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  return /^[\x21-\x7e]+$/.test(value) ? value : '/';
}
