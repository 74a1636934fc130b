import type { IncomingHttpHeaders } from 'node:http';
import type { Actor } from '../domain/actor.js';
import type { Policy } from '../policy.js';
import type { AuditStore } from '../audit/store.js';
import type { ProviderConfig } from '../providers-config.js';
import { badRequest, conflict, forbidden, HttpProblem, notFound, unauthorized } from '../problem.js';
import { ForgeSyncError, SYNC_PARTS, type ForgeSyncClient } from './clients/index.js';
import type { ForgeLink, ForgeStore, LinkCounts } from './store.js';

const ORG = 'The organization';
const LINK = 'The forge link of this organization';

export interface LinkStatus {
  link: ForgeLink;
  counts: LinkCounts;
}

export interface ForgeServiceDeps {
  store: ForgeStore;
  policy: Policy;
  audit: AuditStore;
  providers: ProviderConfig[];
  clients: Map<string, ForgeSyncClient>;
  /** The sign-in token kept (sealed) with a session, opened; null when there is none. */
  forgeTokenOf: (sessionId: string) => Promise<string | null>;
  /** A pass or an event was queued here: wake this instance's forge workers. */
  wake: () => void;
}

/** Linking an org to a forge owner, its status, asking for a pass, and receiving the forge's webhooks. */
export function forgeService(deps: ForgeServiceDeps) {
  const { store, policy, audit, clients } = deps;

  async function status(orgId: string): Promise<LinkStatus> {
    const link = await store.linkOf(orgId);
    if (!link) throw notFound(LINK);
    return { link, counts: await store.counts(orgId) };
  }

  return {
    async get(actor: Actor, orgId: string): Promise<LinkStatus> {
      await policy.require(actor, 'forge.read', { orgId, what: ORG });
      return status(orgId);
    },

    async link(actor: Actor, orgId: string, input: { provider: string; owner: string }, ip: string): Promise<LinkStatus> {
      await policy.require(actor, 'forge.manage', { orgId, what: ORG });
      const provider = deps.providers.find((p) => p.id === input.provider);
      if (!provider) throw badRequest(`There is no sign-in provider "${input.provider}".`, [{ path: '/provider', message: 'must be the id of a configured provider' }]);
      const client = clients.get(provider.id);
      if (!client) {
        throw badRequest(`The provider "${provider.id}" has no sync credentials; see the README, "Organisations that follow the forge".`, [{ path: '/provider', message: 'has no sync credentials' }]);
      }
      // Only someone who administers the owner on the forge may make this org follow it; the forge says so, asked with their own token.
      if (actor.user.provider_id !== provider.id || actor.user.forge_user_id === null || actor.sessionId === null) {
        throw forbidden(`Linking to ${provider.name} needs a browser session signed in with ${provider.name}, as an owner of ${input.owner} there.`);
      }
      const token = await deps.forgeTokenOf(actor.sessionId);
      if (token === null) throw forbidden(`Sign in with ${provider.name} again: this session holds no ${provider.name} token to check that you administer ${input.owner}.`);
      let admin: boolean;
      try {
        admin = await client.isAdmin(input.owner, token, actor.user.forge_user_id);
      } catch (error) {
        if (error instanceof ForgeSyncError) throw new HttpProblem(502, `Could not check your role on ${input.owner}: ${error.message}`);
        throw error;
      }
      if (!admin) throw forbidden(`${provider.name} does not list you as an owner/administrator of ${input.owner}; only they may link it.`);
      const other = await store.linkedTo(provider.id, input.owner);
      if (other && other.org_id !== orgId) throw conflict(`${input.owner} on ${provider.name} is already linked to another organization.`);
      await store.link(orgId, provider.id, input.owner, actor.user.id);
      await audit.record({ action: 'forge.linked', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId }, details: { provider: provider.id, owner: input.owner } });
      deps.wake();
      return status(orgId);
    },

    /** Unlinks; what was synced stays as local data. */
    async unlink(actor: Actor, orgId: string, ip: string): Promise<void> {
      await policy.require(actor, 'forge.manage', { orgId, what: ORG });
      if (!(await store.unlink(orgId))) throw notFound(LINK);
      await audit.record({ action: 'forge.unlinked', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId }, details: {} });
    },

    async requestSync(actor: Actor, orgId: string): Promise<LinkStatus> {
      await policy.require(actor, 'forge.manage', { orgId, what: ORG });
      if (!(await store.linkOf(orgId))) throw notFound(LINK);
      await store.requestPass(orgId, SYNC_PARTS);
      deps.wake();
      return status(orgId);
    },

    /**
     * The repository an upload names: in a linked org by its forge full name, looked up on the forge
     * (and created) when no pass brought it yet; in any other org by its name here. A name nobody
     * knows is a 404 naming it, and nothing is created.
     */
    async repoIdForUpload(actor: Actor, orgId: string, name: string): Promise<string> {
      // The org first; the upload itself is then judged on the repository (scan.upload, with the caller's role on it).
      await policy.require(actor, 'org.read', { orgId, what: ORG });
      const link = await store.linkOf(orgId);
      const known = await store.repoByName(orgId, name);
      if (known) return known.id;
      const client = link ? clients.get(link.provider_id) : undefined;
      if (!link || !client) throw notFound(`The repository "${name}"`);
      let found;
      try {
        found = await client.findRepo(link.owner, name);
      } catch (error) {
        if (error instanceof ForgeSyncError) throw new HttpProblem(502, `Could not look up ${name} on the forge: ${error.message}`);
        throw error;
      }
      if (!found) throw notFound(`The repository "${name}" (not on the forge under ${link.owner})`);
      return store.adoptRepo(link, found);
    },

    /**
     * A webhook delivery: verified as the forge documents it (nothing is read before), queued
     * durably, and acknowledged. A delivery id seen before is acknowledged and not queued again.
     */
    async receiveHook(providerId: string, headers: IncomingHttpHeaders, raw: Buffer): Promise<{ queued: boolean }> {
      const client = clients.get(providerId);
      if (!client || !client.verifyHook({ headers, raw })) throw unauthorized('The webhook delivery is not signed with this provider\'s webhook secret.');
      const { deliveryId, event } = client.describeHook({ headers, raw });
      if (deliveryId === '' || deliveryId.length > 200) throw badRequest('The delivery carries no delivery id.');
      let payload: unknown;
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('The delivery body is not JSON.');
      }
      const queued = await store.queueEvent(providerId, deliveryId, event.slice(0, 100), JSON.stringify(payload));
      if (queued) deps.wake();
      return { queued };
    },
  };
}
