import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { RepoRole, TeamRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import type { InTransaction } from '../db/transaction.js';
import { conflict, notFound, refuseIds } from '../problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { Policy } from '../policy.js';
import type { OrgStore } from '../orgs/store.js';
import type { MemberStore } from '../orgs/members-store.js';
import { nameKey } from '../orgs/names.js';
import type { TeamStore, TeamWithMembers } from './store.js';

export interface NewTeam {
  name: string;
  description?: string;
  /** User ids; each must be a member of the org. */
  members?: string[];
}
/** Fields left out keep their value; `members` replaces the whole list. */
export type TeamChanges = Partial<NewTeam>;

/** A team and its members are written together, with the org locked. */
export type TeamTx = { orgs: OrgStore; members: MemberStore; teams: TeamStore };

const TEAM = 'The team';
const REPO = 'The repository';

/** A team synced from the forge is the forge's: changed here, the next sync would undo it. */
function refuseForgeTeam(team: TeamRow): void {
  if (team.source === 'forge') {
    throw conflict(`The team "${team.name}" follows the forge: change its members, name and repositories there, and they follow here.`);
  }
}

/**
 * A team provisioned by SCIM is its identity provider's group: its name and members are the IdP's
 * to change. Its repositories are not (a SCIM group has none), so owners grant them here.
 */
function refuseProvisionedTeam(team: TeamRow): void {
  refuseForgeTeam(team);
  if (team.source === 'scim') {
    throw conflict(`The team "${team.name}" is provisioned by SCIM: change its name and members in your identity provider, and they follow here.`);
  }
}
const duplicate = (name: string) => `This organization already has a team named "${name}" (names are compared ignoring case).`;

export function teamService(teams: TeamStore, policy: Policy, inTransaction: InTransaction<TeamTx>, audit: AuditStore) {
  /**
   * Inside the transaction, with the org row locked, so that a member removed from the org at the
   * same moment cannot be written into one of its teams.
   */
  async function checkMembers(tx: TeamTx, orgId: string, userIds: string[]): Promise<string[]> {
    if (!(await tx.orgs.lock(orgId))) throw notFound('The organization');
    const inOrg = await tx.members.membersAmong(orgId, userIds);
    refuseIds('Team members must be members of the organization.', 'members', userIds, inOrg, 'is not a member of this organization');
    return [...new Set(userIds)];
  }

  async function load(id: string): Promise<TeamWithMembers> {
    const team = await teams.byId(id);
    if (!team) throw notFound(TEAM);
    return team;
  }

  return {
    /** The repositories the team holds and its role on each, as far as the caller may read them. */
    async repos(actor: Actor, id: string, page: Page) {
      const team = await load(id);
      await policy.require(actor, 'team.read', { orgId: team.org_id, what: TEAM });
      return teams.repos(id, policy.repoReader(actor), page);
    },

    /** Gives the team `role` on a repository of its org (or changes its role). */
    async grant(actor: Actor, id: string, repositoryId: string, role: RepoRole, ip: string) {
      const team = await load(id);
      await policy.require(actor, 'team.manage', { orgId: team.org_id, what: TEAM });
      refuseForgeTeam(team);
      // Another org's repository is answered as a missing one: its id says nothing here.
      const repo = await teams.repoInOrg(repositoryId, team.org_id);
      if (!repo) throw notFound(REPO);
      // The team or the repository deleted since: the foreign keys refuse the row.
      await teams.grant(id, repositoryId, role).catch(async (error: unknown) => {
        if (!(await teams.byId(id))) throw notFound(TEAM);
        if (!(await teams.repoInOrg(repositoryId, team.org_id))) throw notFound(REPO);
        throw error;
      });
      await audit.record({
        action: 'team.repo_granted', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id },
        details: { team: team.name, repository_id: repositoryId, repository: repo.name, role },
      });
      return { repository_id: repositoryId, name: repo.name, full_name: repo.full_name, role };
    },

    async revoke(actor: Actor, id: string, repositoryId: string, ip: string): Promise<void> {
      const team = await load(id);
      await policy.require(actor, 'team.manage', { orgId: team.org_id, what: TEAM });
      refuseForgeTeam(team);
      if (!(await teams.revoke(id, repositoryId))) throw notFound('The team\'s role on this repository');
      await audit.record({
        action: 'team.repo_revoked', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id },
        details: { team: team.name, repository_id: repositoryId },
      });
    },

    async list(actor: Actor, orgId: string, page: Page) {
      await policy.require(actor, 'team.read', { orgId, what: 'The organization' });
      return teams.page(orgId, page);
    },

    async get(actor: Actor, id: string): Promise<TeamWithMembers> {
      const team = await load(id);
      await policy.require(actor, 'team.read', { orgId: team.org_id, what: TEAM });
      return team;
    },

    async create(actor: Actor, orgId: string, input: NewTeam, ip: string): Promise<TeamWithMembers> {
      await policy.require(actor, 'team.manage', { orgId, what: 'The organization' });
      const at = now();
      const team: TeamRow = { id: newId(), org_id: orgId, name: input.name, name_key: nameKey(input.name), description: input.description ?? '', source: 'local', forge_id: null, created_at: at, updated_at: at };
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        const members = await checkMembers(tx, orgId, input.members ?? []);
        await tx.teams.insert(team);
        await tx.teams.replaceMembers(team.id, members);
      }), duplicate(input.name), 'The organization');
      await audit.record({ action: 'team.created', actor: actor.user, orgId, ip, target: { type: 'team', id: team.id }, details: { name: team.name } });
      return load(team.id);
    },

    async update(actor: Actor, id: string, changes: TeamChanges, ip: string): Promise<TeamWithMembers> {
      const team = await load(id);
      await policy.require(actor, 'team.manage', { orgId: team.org_id, what: TEAM });
      refuseProvisionedTeam(team);
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        const members = changes.members && await checkMembers(tx, team.org_id, changes.members);
        const updated = await tx.teams.update(id, {
          ...(changes.name !== undefined ? { name: changes.name, name_key: nameKey(changes.name) } : {}),
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          updated_at: now(),
        });
        // Deleted since it was loaded above.
        if (!updated) throw notFound(TEAM);
        if (members) await tx.teams.replaceMembers(id, members);
      }), duplicate(changes.name ?? ''));
      await audit.record({ action: 'team.updated', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id }, details: { ...changes } });
      return load(id);
    },

    async delete(actor: Actor, id: string, ip: string): Promise<void> {
      const team = await load(id);
      await policy.require(actor, 'team.manage', { orgId: team.org_id, what: TEAM });
      refuseProvisionedTeam(team);
      if (!(await teams.delete(id))) throw notFound(TEAM);
      await audit.record({ action: 'team.deleted', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id }, details: { name: team.name } });
    },
  };
}
