import type { AuditEvent, AuditStore } from '../audit/store.js';
import type { TeamRow } from '../db/schema.js';
import type { InTransaction } from '../db/transaction.js';
import { isUniqueViolation } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { displayNameProblem } from '../names.js';
import { NAME_MAX, nameKey } from '../orgs/names.js';
import { memberOfPath, parseFilter } from './filter.js';
import { ScimError } from './scim-error.js';
import { MAX_PAGE, type ScimCaller } from './service.js';
import type { GroupCondition, ScimGroupMember, ScimGroupRow, ScimStore } from './store.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a Group says: the team's name, the IdP's externalId, the SCIM users in it. */
interface GroupFields { displayName: string; externalId: string | null; members: string[] }

/** The attributes a Groups filter may compare (lower case), and what each is in the store. */
const GROUP_FILTERS: Record<string, GroupCondition['attribute']> = {
  displayname: 'name_key', externalid: 'external_id', id: 'id', members: 'member', 'members.value': 'member',
};

/** More members than this in one group is no IdP's group of people who share repositories. */
const MAX_MEMBERS = 10_000;

/**
 * SCIM Groups (RFC 7643 4.2) as teams of the organisation, `source: "scim"`: the group's name is the
 * team's, and the team's members are the group's members whose account is a member of the org
 * (a SCIM user not linked yet, or deactivated, joins the team when it is linked or activated again).
 * The team cannot be changed here (teams/service.ts answers 409); its repositories can, which the IdP
 * does not know of.
 */
export function scimGroupService(store: ScimStore, inTransaction: InTransaction<{ scim: ScimStore }>, audit: AuditStore) {
  async function load(caller: ScimCaller, id: string): Promise<ScimGroupRow> {
    const row = await store.groupById(caller.orgId, id);
    // Another org's group answers exactly like a missing one.
    if (!row) throw new ScimError(404, `Group ${id} not found.`);
    return row;
  }

  /** Writes the group and its team, with the team's members following, in one transaction. */
  async function write(caller: ScimCaller, fields: GroupFields, existing: ScimGroupRow | null): Promise<ScimGroupRow> {
    const at = now();
    const team: TeamRow = existing ?? {
      id: newId(), org_id: caller.orgId, name: fields.displayName, name_key: nameKey(fields.displayName), description: '',
      source: 'scim', forge_id: null, created_at: at, updated_at: at,
    };
    try {
      await inTransaction(async ({ scim }) => {
        const known = await scim.usersAmong(caller.orgId, fields.members);
        const unknown = fields.members.find((id) => !known.includes(id));
        if (unknown !== undefined) throw new ScimError(400, `Member "${unknown.slice(0, 100)}" is not a user provisioned in this organisation.`, 'invalidValue');
        if (existing) {
          if (!(await scim.groupById(caller.orgId, existing.id))) throw new ScimError(404, `Group ${existing.id} not found.`);
          await scim.updateGroup(team.id, { name: fields.displayName, name_key: nameKey(fields.displayName), updated_at: at }, fields.externalId);
        } else {
          await scim.insertGroup(team, fields.externalId);
        }
        await scim.setGroupMembers(team.id, fields.members);
        await scim.syncTeam(caller.orgId, team.id);
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ScimError(409, `This organisation already has a team named "${fields.displayName}" (names are compared ignoring case).`, 'uniqueness');
      }
      throw error;
    }
    const event: AuditEvent = {
      action: existing ? 'team.updated' : 'team.created', actor: null, orgId: caller.orgId, target: { type: 'team', id: team.id },
      details: { source: 'scim', name: fields.displayName, members: fields.members.length },
    };
    await audit.record(event);
    return load(caller, team.id);
  }

  return {
    /** The group and, unless `withMembers` is false, its members. */
    async get(caller: ScimCaller, id: string, withMembers: boolean): Promise<{ group: ScimGroupRow; members: ScimGroupMember[] | null }> {
      const group = await load(caller, id);
      return { group, members: withMembers ? await store.groupMembers([id]) : null };
    },

    /** displayName compares as team names do, ignoring case; `members eq` finds the groups a user is in (Entra ID's check). */
    async list(caller: ScimCaller, filter: string | undefined, startIndex: number, count: number, withMembers: boolean) {
      const conditions = parseFilter(filter, GROUP_FILTERS).map((c) => c.attribute === 'name_key' ? { ...c, value: nameKey(c.value) } : c);
      const { total, rows } = await store.groupPage(caller.orgId, conditions, startIndex - 1, Math.min(count, MAX_PAGE));
      const members = withMembers ? await store.groupMembers(rows.map((r) => r.id)) : null;
      return {
        total,
        groups: rows.map((group) => ({ group, members: members && members.filter((m) => m.team_id === group.id) })),
      };
    },

    create: (caller: ScimCaller, body: unknown) => write(caller, groupFields(body), null),

    async replace(caller: ScimCaller, id: string, body: unknown): Promise<ScimGroupRow> {
      return write(caller, groupFields(body), await load(caller, id));
    },

    async patch(caller: ScimCaller, id: string, body: unknown): Promise<void> {
      const group = await load(caller, id);
      const current = (await store.groupMembers([id])).map((m) => m.scim_user_id);
      await write(caller, applyGroupPatch({ displayName: group.name, externalId: group.external_id, members: current }, body), group);
    },

    /** Deletes the team, and with it its members and its repository grants. */
    async delete(caller: ScimCaller, id: string): Promise<void> {
      const group = await load(caller, id);
      await store.deleteGroup(group.id);
      await audit.record({ action: 'team.deleted', actor: null, orgId: caller.orgId, target: { type: 'team', id }, details: { source: 'scim', name: group.name } });
    },
  };
}

function displayName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > NAME_MAX) {
    throw new ScimError(400, `displayName is required: a team name of at most ${NAME_MAX} characters.`, 'invalidValue');
  }
  const problem = displayNameProblem(value);
  if (problem !== null) throw new ScimError(400, `displayName ${problem}.`, 'invalidValue');
  return value;
}

function externalId(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length > 1024) throw new ScimError(400, 'externalId must be a string of at most 1024 characters.', 'invalidValue');
  return value;
}

/** `members` values: `[{"value": id, "display"?: …, "$ref"?: …}]`, one object alone as Entra ID sometimes sends it. */
function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  if (list.length > MAX_MEMBERS) throw new ScimError(400, `A group holds at most ${MAX_MEMBERS} members.`, 'invalidValue');
  return list.map((m) => {
    if (!isRecord(m) || typeof m.value !== 'string' || m.value === '' || m.value.length > 100) {
      throw new ScimError(400, 'Each member is an object whose "value" is the id of a SCIM user.', 'invalidValue');
    }
    return m.value;
  });
}

const unique = (ids: string[]) => [...new Set(ids)];

/** A whole Group resource (POST, PUT). */
function groupFields(body: unknown): GroupFields {
  if (!isRecord(body)) throw new ScimError(400, 'The body must be a JSON object (a SCIM Group).', 'invalidSyntax');
  return { displayName: displayName(body.displayName), externalId: externalId(body.externalId), members: unique(memberIds(body.members)) };
}

/**
 * RFC 7644 3.5.2 PATCH of a Group, in the shapes Okta and Entra ID send: `op` in any case; a rename
 * by `path: "displayName"` or by a value object without a path (Okta's also carries the `id`);
 * `members` added, removed by `members[value eq "id"]` (Okta) or by a value list (Entra ID), and
 * replaced as a whole (`"op": "Replace", "path": "members"`).
 */
function applyGroupPatch(fields: GroupFields, body: unknown): GroupFields {
  if (!isRecord(body) || !Array.isArray(body.Operations)) {
    throw new ScimError(400, 'A PATCH body is a PatchOp message with an "Operations" array.', 'invalidSyntax');
  }
  const next = { ...fields, members: [...fields.members] };
  for (const op of body.Operations as unknown[]) {
    if (!isRecord(op) || typeof op.op !== 'string') throw new ScimError(400, 'Each operation needs an "op".', 'invalidSyntax');
    const kind = op.op.toLowerCase();
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') throw new ScimError(400, `Unknown op "${op.op.slice(0, 20)}".`, 'invalidSyntax');
    if (op.path === undefined || op.path === null) {
      if (kind === 'remove') throw new ScimError(400, 'A remove operation needs a path.', 'noTarget');
      if (!isRecord(op.value)) throw new ScimError(400, 'An operation without a path needs an object value.', 'invalidValue');
      for (const [name, value] of Object.entries(op.value)) setGroupAttribute(next, kind, name, value);
    } else if (typeof op.path === 'string') {
      setGroupAttribute(next, kind, op.path, op.value);
    } else {
      throw new ScimError(400, 'An operation\'s path must be a string.', 'invalidPath');
    }
  }
  return { ...next, members: unique(next.members) };
}

function setGroupAttribute(fields: GroupFields, kind: 'add' | 'replace' | 'remove', rawPath: string, value: unknown): void {
  // Attribute names ignore case (RFC 7643 2.1); the core Group schema's URN may prefix them.
  const path = rawPath.replace(/^urn:ietf:params:scim:schemas:core:2\.0:Group:/i, '');
  const name = path.toLowerCase();
  if (name === 'displayname') {
    if (kind === 'remove') throw new ScimError(400, 'displayName cannot be removed.', 'mutability');
    fields.displayName = displayName(value);
  } else if (name === 'externalid') {
    fields.externalId = kind === 'remove' ? null : externalId(value);
  } else if (name === 'members') {
    if (kind === 'replace') fields.members = memberIds(value);
    else if (kind === 'add') fields.members.push(...memberIds(value));
    else {
      // Entra ID names the members to remove in the value; without one, all go (RFC 7644 3.5.2.2).
      const gone = value === undefined || value === null ? null : new Set(memberIds(value));
      fields.members = gone === null ? [] : fields.members.filter((id) => !gone.has(id));
    }
  } else if (name.startsWith('members[')) {
    const member = memberOfPath(path);
    if (member === null) throw new ScimError(400, 'Only the member path members[value eq "id"] is supported.', 'invalidPath');
    if (kind !== 'remove') throw new ScimError(400, 'A member selected by a filter can only be removed.', 'invalidPath');
    fields.members = fields.members.filter((id) => id !== member);
  }
  // `id` (which Okta sends beside a new displayName), `meta`, `schemas` and attributes a Group does
  // not keep are accepted and ignored, as RFC 7644 3.5.2 lets a service provider do.
}
