import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
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
      return db.transaction().execute(async (trx) => (await upsertRepos(trx, link, [repo], now())).get(repo.forgeId)!);
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

/** Rows per statement: far below either database's limit on bound values (PostgreSQL 65,535). */
const CHUNK = 500;

function chunked<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Writes forge repositories into the org in one statement per 500: the org's repositories are read
 * once, each forge repository is matched in memory as one at a time would be (by forge id, a rename
 * or transfer keeping the row; else a repository made here before the link, by the same name; else a
 * new one), and all of them are upserted by id in the order matched, so every name a row takes is
 * free when it takes it (a rename onto a name another repository holds gets the forge id added).
 * Returns the local id of each forge id.
 */
async function upsertRepos(trx: Trx, link: ForgeLink, repos: readonly ForgeRepo[], at: string): Promise<Map<string, string>> {
  const existing = await trx.selectFrom('repos').select(['id', 'name', 'name_key', 'forge_id', 'created_at']).where('org_id', '=', link.org_id).execute();
  const byForgeId = new Map(existing.filter((r) => r.forge_id !== null).map((r) => [r.forge_id!, r]));
  const byKey = new Map(existing.map((r) => [r.name_key, r]));
  const free = (wanted: string, forgeId: string, ownId: string | null) => {
    const holder = byKey.get(nameKey(wanted));
    return !holder || holder.id === ownId ? wanted : `${wanted} (${forgeId})`;
  };
  const ids = new Map<string, string>();
  const rows: Insertable<Database['repos']>[] = [];
  for (const repo of repos) {
    if (ids.has(repo.forgeId)) continue;
    const wanted = localName(link, repo);
    let row = byForgeId.get(repo.forgeId);
    let name: string;
    if (row) {
      name = row.name.toLowerCase() === wanted.toLowerCase() ? wanted : free(wanted, repo.forgeId, row.id);
    } else {
      const local = byKey.get(nameKey(wanted));
      if (local && local.forge_id === null) {
        row = local;
        name = local.name;
      } else {
        name = free(wanted, repo.forgeId, null);
        row = { id: newId(), name, name_key: nameKey(name), forge_id: null, created_at: at };
      }
    }
    if (byKey.get(row.name_key)?.id === row.id) byKey.delete(row.name_key);
    Object.assign(row, { name, name_key: nameKey(name), forge_id: repo.forgeId });
    byKey.set(row.name_key, row);
    byForgeId.set(repo.forgeId, row);
    ids.set(repo.forgeId, row.id);
    rows.push({
      id: row.id, org_id: link.org_id, name, name_key: row.name_key, forge_id: repo.forgeId, created_at: row.created_at, updated_at: at,
      full_name: repo.fullName, visibility: repo.visibility, archived: repo.archived ? 1 : 0, gone: 0, default_branch: repo.defaultBranch, url: repo.url,
    });
  }
  for (const chunk of chunked(rows)) {
    await trx.insertInto('repos').values(chunk).onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
      name: eb.ref('excluded.name'), name_key: eb.ref('excluded.name_key'), forge_id: eb.ref('excluded.forge_id'), full_name: eb.ref('excluded.full_name'),
      visibility: eb.ref('excluded.visibility'), archived: eb.ref('excluded.archived'), gone: eb.ref('excluded.gone'),
      default_branch: eb.ref('excluded.default_branch'), url: eb.ref('excluded.url'), updated_at: eb.ref('excluded.updated_at'),
    }))).execute();
  }
  return ids;
}

async function applyRepos(trx: Trx, link: ForgeLink, repos: ForgeRepo[]): Promise<void> {
  const at = now();
  const seen = [...(await upsertRepos(trx, link, repos, at)).keys()];
  // Deleted (or moved out) on the forge: marked gone, results kept until an owner deletes it.
  let gone = trx.updateTable('repos').set({ gone: 1, updated_at: at }).where('org_id', '=', link.org_id).where('forge_id', 'is not', null).where('gone', '=', 0);
  if (seen.length > 0) gone = gone.where('forge_id', 'not in', seen);
  await gone.execute();
}

/**
 * The users of forge accounts, by forge user id: found by (provider, forge user id), the others
 * created pending (never signed in), a statement per 500 either way.
 */
async function usersFor(trx: Trx, providerId: string, persons: readonly ForgePerson[], at: string): Promise<Map<string, string>> {
  const wanted = new Map(persons.map((p) => [p.forgeUserId, p]));
  const found = new Map<string, string>();
  const look = async (forgeIds: string[]) => {
    for (const chunk of chunked(forgeIds)) {
      const rows = await trx.selectFrom('users').select(['id', 'forge_user_id']).where('provider_id', '=', providerId).where('forge_user_id', 'in', chunk).execute();
      for (const row of rows) found.set(row.forge_user_id!, row.id);
    }
  };
  await look([...wanted.keys()]);
  const missing = [...wanted.values()].filter((p) => !found.has(p.forgeUserId));
  for (const chunk of chunked(missing)) {
    // Someone signing in meanwhile made theirs: that one is found below.
    await trx.insertInto('users').values(chunk.map((person) => ({
      id: newId(), login: person.login || person.forgeUserId, name: null, email: null, avatar_url: null, is_admin: 0, provider_id: providerId,
      forge_user_id: person.forgeUserId, created_at: at, updated_at: at, last_login_at: null,
    }))).onConflict((oc) => oc.columns(['provider_id', 'forge_user_id']).doNothing()).execute();
  }
  if (missing.length > 0) await look(missing.map((p) => p.forgeUserId));
  return found;
}

async function applyMembers(trx: Trx, link: ForgeLink, members: ForgeMember[]): Promise<void> {
  const at = now();
  const userIds = await usersFor(trx, link.provider_id, members, at);
  const roles = new Map<string, OrgRole>();
  for (const member of members) roles.set(userIds.get(member.forgeUserId)!, member.role);
  const kept = [...roles.keys()];
  for (const chunk of chunked([...roles])) {
    await trx.insertInto('memberships').values(chunk.map(([user_id, role]) => ({ org_id: link.org_id, user_id, role, source: 'forge' as const, created_at: at })))
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet((eb) => ({ role: eb.ref('excluded.role'), source: eb.ref('excluded.source') }))).execute();
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
  const userIds = await usersFor(trx, link.provider_id, teams.flatMap((team) => team.members), at);
  const repoRows = await trx.selectFrom('repos').select(['id', 'forge_id']).where('org_id', '=', link.org_id).where('forge_id', 'is not', null).execute();
  const repoIds = new Map(repoRows.map((r) => [r.forge_id!, r.id]));
  for (const team of teams) {
    const teamId = await upsertTeam(trx, link.org_id, team, at);
    kept.push(teamId);
    await trx.deleteFrom('team_members').where('team_id', '=', teamId).execute();
    const memberIds = new Set(team.members.map((person) => userIds.get(person.forgeUserId)!));
    for (const chunk of chunked([...memberIds])) await trx.insertInto('team_members').values(chunk.map((user_id) => ({ team_id: teamId, user_id }))).execute();

    await trx.deleteFrom('team_repositories').where('team_id', '=', teamId).execute();
    const grants = new Map<string, RepoRole>();
    for (const grant of team.repos) {
      const repoId = repoIds.get(grant.forgeId);
      if (repoId !== undefined) grants.set(repoId, grant.role);
    }
    for (const chunk of chunked([...grants])) {
      await trx.insertInto('team_repositories').values(chunk.map(([repository_id, role]) => ({ team_id: teamId, repository_id, role }))).execute();
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
