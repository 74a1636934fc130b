import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { TeamRow } from '../db/schema.js';
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
      refuseForgeTeam(team);
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
      refuseForgeTeam(team);
      if (!(await teams.delete(id))) throw notFound(TEAM);
      await audit.record({ action: 'team.deleted', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id }, details: { name: team.name } });
    },
  };
}

/** A team that follows the forge is changed there; a local edit would be undone by the next pass. */
function refuseForgeTeam(team: TeamRow): void {
  if (team.source === 'forge') throw conflict(`The team "${team.name}" follows the forge; change it there (or unlink the organization's forge to edit it here).`);
}
