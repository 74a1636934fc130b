import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, ForgeLinksTable, OrgRole, RepoRole } from '../db/schema.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { nameKey } from '../orgs/names.js';
import type { ForgeMember, ForgePerson, ForgeRepo, ForgeTeam, Snapshot, SyncPart } from './clients/types.js';

export type ForgeLink = ForgeLinksTable;

export interface LinkCounts {
  repositories: number;
  members: number;
  teams: number;
}

/** SQL of forge links, their queued webhook events, and applying what a pass read. */
export function forgeStore(db: Kysely<Database>, dialect: 'sqlite' | 'postgres') {
  return {
    linkOf(orgId: string): Promise<ForgeLink | undefined> {
      return db.selectFrom('forge_links').selectAll().where('org_id', '=', orgId).executeTakeFirst();
    },

    linkedTo(providerId: string, owner: string): Promise<ForgeLink | undefined> {
      return db.selectFrom('forge_links').selectAll().where('provider_id', '=', providerId).where('owner_key', '=', owner.toLowerCase()).executeTakeFirst();
    },

    /** Links of the provider whose owner is `path` or contains it (GitLab: a project inside the group). */
    async linksAround(providerId: string, path: string, prefix: boolean): Promise<ForgeLink[]> {
      const key = path.toLowerCase();
      if (!prefix) return db.selectFrom('forge_links').selectAll().where('provider_id', '=', providerId).where('owner_key', '=', key).execute();
      const owners = key.split('/').map((_, i, all) => all.slice(0, i + 1).join('/'));
      return db.selectFrom('forge_links').selectAll().where('provider_id', '=', providerId).where('owner_key', 'in', owners).execute();
    },

    /** Links or re-links; a new pass of everything is due at once. */
    async link(orgId: string, providerId: string, owner: string, userId: string): Promise<void> {
      const at = now();
      await db.deleteFrom('forge_links').where('org_id', '=', orgId).execute();
      await db.insertInto('forge_links').values({
        org_id: orgId, provider_id: providerId, owner, owner_key: owner.toLowerCase(), linked_by: userId, created_at: at,
        last_synced_at: null, last_error: null, sync_due_at: at, sync_parts: 'repos,members,teams', lease_until: null,
      }).execute();
    },

    async unlink(orgId: string): Promise<boolean> {
      const result = await db.deleteFrom('forge_links').where('org_id', '=', orgId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Asks for a pass of `parts` (added to any already asked for) from `at` on. */
    async requestPass(orgId: string, parts: readonly SyncPart[], at = now()): Promise<void> {
      const link = await db.selectFrom('forge_links').select(['sync_parts', 'sync_due_at']).where('org_id', '=', orgId).executeTakeFirst();
      if (!link) return;
      const merged = new Set([...(link.sync_parts ? link.sync_parts.split(',') : []), ...parts]);
      const due = link.sync_due_at !== null && link.sync_due_at < at ? link.sync_due_at : at;
      await db.updateTable('forge_links').set({ sync_parts: [...merged].join(','), sync_due_at: due }).where('org_id', '=', orgId).execute();
    },

    async counts(orgId: string): Promise<LinkCounts> {
      const [repos, members, teams] = await Promise.all([
        db.selectFrom('repos').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('forge_id', 'is not', null).executeTakeFirstOrThrow(),
        db.selectFrom('memberships').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('source', '=', 'forge').executeTakeFirstOrThrow(),
        db.selectFrom('teams').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('source', '=', 'forge').executeTakeFirstOrThrow(),
      ]);
      return { repositories: Number(repos.n), members: Number(members.n), teams: Number(teams.n) };
    },

    /**
     * Claims one link whose pass is due (asked for, or the reconcile interval since the last one has
     * passed) and not held by another worker; the claim takes what was asked and clears it.
     */
    async claimPass(at: string, leaseUntil: string, staleBefore: string): Promise<{ link: ForgeLink; parts: SyncPart[]; held: string } | undefined> {
      return db.transaction().execute(async (trx) => {
        const link = await trx.selectFrom('forge_links').selectAll()
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', at)]))
          .where((eb) => eb.or([
            eb('sync_due_at', '<=', at),
            eb('last_synced_at', 'is', null),
            eb('last_synced_at', '<', staleBefore),
          ]))
          // Asked-for passes first (SQLite sorts nulls first, PostgreSQL last: said explicitly), oldest ask first.
          .orderBy(sql`case when sync_due_at is null then 1 else 0 end`).orderBy('sync_due_at').limit(1)
          .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked())
          .executeTakeFirst();
        if (!link) return undefined;
        const claimed = await trx.updateTable('forge_links').set({ lease_until: leaseUntil, sync_due_at: null, sync_parts: null })
          .where('org_id', '=', link.org_id)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', at)]))
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return undefined;
        const asked = link.sync_due_at !== null && link.sync_due_at <= at && link.sync_parts ? link.sync_parts.split(',') as SyncPart[] : null;
        return { link, parts: asked ?? ['repos', 'members', 'teams'], held: leaseUntil };
      });
    },

    /**
     * Extends a pass's lease, only while it still holds the one it was given (`held`): false when the
     * lease ran out and another worker took the link.
     */
    async renewPass(orgId: string, held: string, leaseUntil: string): Promise<boolean> {
      const result = await db.updateTable('forge_links').set({ lease_until: leaseUntil })
        .where('org_id', '=', orgId).where('lease_until', '=', held).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Ends a pass: its outcome on the link, the lease released; nothing when the lease `held` was lost. */
    async finishPass(orgId: string, held: string, outcome: { syncedAt: string } | { error: string }): Promise<void> {
      await db.updateTable('forge_links').set('syncedAt' in outcome
        ? { last_synced_at: outcome.syncedAt, last_error: null, lease_until: null }
        : { last_error: outcome.error, lease_until: null })
        .where('org_id', '=', orgId).where('lease_until', '=', held).execute();
    },

    /**
     * Applies what a pass read, all of it or nothing, while the pass still holds its lease `held`
     * (the link's row locked meanwhile); false, and nothing applied, when it lost it.
     */
    async apply(link: ForgeLink, held: string, snapshot: Snapshot): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const holds = await trx.selectFrom('forge_links').select('org_id').where('org_id', '=', link.org_id).where('lease_until', '=', held)
          .$if(dialect === 'postgres', (q) => q.forUpdate()).executeTakeFirst();
        if (!holds) return false;
        if (snapshot.repos) await applyRepos(trx, link, snapshot.repos);
        if (snapshot.members) await applyMembers(trx, link, snapshot.members);
        if (snapshot.teams) await applyTeams(trx, link, snapshot.teams);
        return true;
      });
    },

    /** A repository found by full name at upload time, before any pass saw it. */
    async adoptRepo(link: ForgeLink, repo: ForgeRepo): Promise<string> {
      return db.transaction().execute(async (trx) => upsertRepo(trx, link, repo, now()));
    },

    /** By forge full name (compared ignoring case), else by the name here. */
    async repoByName(orgId: string, name: string): Promise<{ id: string } | undefined> {
      const key = name.toLowerCase();
      const rows = await db.selectFrom('repos').select(['id', 'full_name', 'name_key']).where('org_id', '=', orgId)
        .where((eb) => eb.or([eb('name_key', '=', nameKey(name)), eb('full_name', '=', name), eb(sql`lower(full_name)`, '=', key)])).execute();
      return rows.find((r) => r.full_name?.toLowerCase() === key) ?? rows.find((r) => r.name_key === nameKey(name));
    },

    // ---- webhook events ------------------------------------------------------------------

    /** Queues a delivery; false when this delivery id was received before (a redelivery). */
    async queueEvent(providerId: string, deliveryId: string, event: string, payload: string): Promise<boolean> {
      const result = await db.insertInto('forge_events').values({
        id: newId(), provider_id: providerId, delivery_id: deliveryId, event, payload, status: 'pending', lease_until: null, received_at: now(), applied_at: null, error: null,
      }).onConflict((oc) => oc.columns(['provider_id', 'delivery_id']).doNothing()).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async claimEvent(at: string, leaseUntil: string) {
      return db.transaction().execute(async (trx) => {
        const event = await trx.selectFrom('forge_events').selectAll()
          .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'applying'), eb('lease_until', '<', at)])]))
          .orderBy('received_at').limit(1)
          .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked())
          .executeTakeFirst();
        if (!event) return undefined;
        const claimed = await trx.updateTable('forge_events').set({ status: 'applying', lease_until: leaseUntil, attempts: sql`attempts + 1` })
          .where('id', '=', event.id).where('status', '=', event.status).executeTakeFirst();
        return Number(claimed.numUpdatedRows) > 0 ? event : undefined;
      });
    },

    async finishEvent(id: string, error: string | null): Promise<void> {
      await db.updateTable('forge_events').set({ status: error === null ? 'applied' : 'failed', lease_until: null, applied_at: now(), error })
        .where('id', '=', id).execute();
    },

    async pruneEvents(before: string): Promise<void> {
      await db.deleteFrom('forge_events').where('status', 'in', ['applied', 'failed']).where('received_at', '<', before).execute();
    },
  };
}
export type ForgeStore = ReturnType<typeof forgeStore>;

type Trx = Transaction<Database>;

/** The local name of a forge repository: its path below the linked owner (GitHub: the repository name). */
function localName(link: ForgeLink, repo: ForgeRepo): string {
  const prefix = `${link.owner_key}/`;
  return repo.fullName.toLowerCase().startsWith(prefix) ? repo.fullName.slice(prefix.length) : repo.name || repo.fullName;
}

/** A name free in the org for this repository (a rename onto a name another repository holds gets the forge id added). */
async function freeRepoName(trx: Trx, orgId: string, wanted: string, forgeId: string, ownId: string | null): Promise<string> {
  const holder = await trx.selectFrom('repos').select('id').where('org_id', '=', orgId).where('name_key', '=', nameKey(wanted)).executeTakeFirst();
  return !holder || holder.id === ownId ? wanted : `${wanted} (${forgeId})`;
}

async function upsertRepo(trx: Trx, link: ForgeLink, repo: ForgeRepo, at: string): Promise<string> {
  const fields = {
    full_name: repo.fullName, visibility: repo.visibility, archived: repo.archived ? 1 : 0, gone: 0,
    default_branch: repo.defaultBranch, url: repo.url, updated_at: at,
  };
  const known = await trx.selectFrom('repos').select(['id', 'name']).where('org_id', '=', link.org_id).where('forge_id', '=', repo.forgeId).executeTakeFirst();
  const wanted = localName(link, repo);
  if (known) {
    // A rename or transfer keeps the forge id: the same row, its results with it.
    const name = known.name.toLowerCase() === wanted.toLowerCase() ? wanted : await freeRepoName(trx, link.org_id, wanted, repo.forgeId, known.id);
    await trx.updateTable('repos').set({ ...fields, name, name_key: nameKey(name) }).where('id', '=', known.id).execute();
    return known.id;
  }
  // A repository made here before the link, by the same name: it is that one.
  const local = await trx.selectFrom('repos').select('id').where('org_id', '=', link.org_id).where('name_key', '=', nameKey(wanted)).where('forge_id', 'is', null).executeTakeFirst();
  if (local) {
    await trx.updateTable('repos').set({ ...fields, forge_id: repo.forgeId }).where('id', '=', local.id).execute();
    return local.id;
  }
  const id = newId();
  const name = await freeRepoName(trx, link.org_id, wanted, repo.forgeId, null);
  await trx.insertInto('repos').values({ id, org_id: link.org_id, name, name_key: nameKey(name), forge_id: repo.forgeId, created_at: at, ...fields }).execute();
  return id;
}

async function applyRepos(trx: Trx, link: ForgeLink, repos: ForgeRepo[]): Promise<void> {
  const at = now();
  const seen: string[] = [];
  for (const repo of repos) {
    await upsertRepo(trx, link, repo, at);
    seen.push(repo.forgeId);
  }
  // Deleted (or moved out) on the forge: marked gone, results kept until an owner deletes it.
  let gone = trx.updateTable('repos').set({ gone: 1, updated_at: at }).where('org_id', '=', link.org_id).where('forge_id', 'is not', null).where('gone', '=', 0);
  if (seen.length > 0) gone = gone.where('forge_id', 'not in', seen);
  await gone.execute();
}

/** The user of a forge account: found by (provider, forge user id), else created pending (never signed in). */
async function userFor(trx: Trx, providerId: string, person: ForgePerson, at: string): Promise<string> {
  const found = await trx.selectFrom('users').select('id').where('provider_id', '=', providerId).where('forge_user_id', '=', person.forgeUserId).executeTakeFirst();
  if (found) return found.id;
  const id = newId();
  await trx.insertInto('users').values({
    id, login: person.login || person.forgeUserId, name: null, email: null, avatar_url: null, is_admin: 0, provider_id: providerId,
    forge_user_id: person.forgeUserId, created_at: at, updated_at: at, last_login_at: null,
  }).execute();
  return id;
}

async function applyMembers(trx: Trx, link: ForgeLink, members: ForgeMember[]): Promise<void> {
  const at = now();
  const kept: string[] = [];
  for (const member of members) {
    const userId = await userFor(trx, link.provider_id, member, at);
    kept.push(userId);
    const role: OrgRole = member.role;
    const existing = await trx.selectFrom('memberships').select('role').where('org_id', '=', link.org_id).where('user_id', '=', userId).executeTakeFirst();
    if (existing) {
      await trx.updateTable('memberships').set({ role, source: 'forge' }).where('org_id', '=', link.org_id).where('user_id', '=', userId).execute();
    } else {
      await trx.insertInto('memberships').values({ org_id: link.org_id, user_id: userId, role, source: 'forge', created_at: at }).execute();
    }
  }
  // Removed on the forge: out of the org and its teams (sessions and keys lose it at their next request).
  let gone = trx.selectFrom('memberships').select('user_id').where('org_id', '=', link.org_id).where('source', '=', 'forge');
  if (kept.length > 0) gone = gone.where('user_id', 'not in', kept);
  const leaving = (await gone.execute()).map((m) => m.user_id);
  if (leaving.length === 0) return;
  await trx.deleteFrom('team_members').where('user_id', 'in', leaving)
    .where('team_id', 'in', trx.selectFrom('teams').select('id').where('org_id', '=', link.org_id)).execute();
  await trx.deleteFrom('memberships').where('org_id', '=', link.org_id).where('user_id', 'in', leaving).execute();
}

async function applyTeams(trx: Trx, link: ForgeLink, teams: ForgeTeam[]): Promise<void> {
  const at = now();
  const kept: string[] = [];
  for (const team of teams) {
    const teamId = await upsertTeam(trx, link.org_id, team, at);
    kept.push(teamId);
    await trx.deleteFrom('team_members').where('team_id', '=', teamId).execute();
    const memberIds = new Set<string>();
    for (const person of team.members) memberIds.add(await userFor(trx, link.provider_id, person, at));
    if (memberIds.size > 0) await trx.insertInto('team_members').values([...memberIds].map((user_id) => ({ team_id: teamId, user_id }))).execute();

    await trx.deleteFrom('team_repositories').where('team_id', '=', teamId).execute();
    const grants = new Map<string, RepoRole>();
    const forgeIds = team.repos.map((r) => r.forgeId);
    const local = forgeIds.length === 0 ? [] : await trx.selectFrom('repos').select(['id', 'forge_id']).where('org_id', '=', link.org_id).where('forge_id', 'in', forgeIds).execute();
    const byForgeId = new Map(local.map((r) => [r.forge_id!, r.id]));
    for (const grant of team.repos) {
      const repoId = byForgeId.get(grant.forgeId);
      if (repoId !== undefined) grants.set(repoId, grant.role);
    }
    if (grants.size > 0) {
      await trx.insertInto('team_repositories').values([...grants].map(([repository_id, role]) => ({ team_id: teamId, repository_id, role }))).execute();
    }
  }
  let gone = trx.deleteFrom('teams').where('org_id', '=', link.org_id).where('source', '=', 'forge');
  if (kept.length > 0) gone = gone.where('id', 'not in', kept);
  await gone.execute();
}

async function upsertTeam(trx: Trx, orgId: string, team: ForgeTeam, at: string): Promise<string> {
  const known = await trx.selectFrom('teams').select(['id', 'name']).where('org_id', '=', orgId).where('forge_id', '=', team.forgeId).executeTakeFirst();
  const holder = await trx.selectFrom('teams').select(['id', 'source']).where('org_id', '=', orgId).where('name_key', '=', nameKey(team.name)).executeTakeFirst();
  // A local team by the same name stays local: the forge's is told apart by its id.
  const name = !holder || holder.id === known?.id ? team.name : `${team.name} (${team.forgeId})`;
  if (known) {
    await trx.updateTable('teams').set({ name, name_key: nameKey(name), description: team.description, source: 'forge', updated_at: at }).where('id', '=', known.id).execute();
    return known.id;
  }
  const id = newId();
  await trx.insertInto('teams').values({ id, org_id: orgId, name, name_key: nameKey(name), description: team.description, source: 'forge', forge_id: team.forgeId, created_at: at, updated_at: at }).execute();
  return id;
}
