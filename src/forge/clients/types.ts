import type { IncomingHttpHeaders } from 'node:http';
import type { OrgRole, RepoRole } from '../../db/schema.js';

/** What a pass reads: repositories, members, teams (with their members and repositories). */
export type SyncPart = 'repos' | 'members' | 'teams';
export const SYNC_PARTS: readonly SyncPart[] = ['repos', 'members', 'teams'];

export interface ForgeRepo {
  forgeId: string;
  /** The repository's own name (GitLab: the project path). */
  name: string;
  /** owner/name (GitLab: path_with_namespace). */
  fullName: string;
  defaultBranch: string | null;
  visibility: string | null;
  archived: boolean;
  url: string | null;
}

export interface ForgePerson {
  forgeUserId: string;
  login: string;
}

export interface ForgeMember extends ForgePerson {
  role: OrgRole;
}

export interface ForgeTeam {
  forgeId: string;
  name: string;
  description: string;
  members: ForgePerson[];
  repos: { forgeId: string; role: RepoRole }[];
}

/** Everything of one owner a pass read; a part left out was not read and is not touched. */
export interface Snapshot {
  repos?: ForgeRepo[];
  members?: ForgeMember[];
  teams?: ForgeTeam[];
}

/** Which link a webhook delivery is about, and what it asks to re-read. */
export interface HookRoute {
  owner: string;
  parts: SyncPart[];
  /** GitLab: `owner` is a path inside the linked group (a project or subgroup path). */
  prefix?: boolean;
}

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** One forge type's sync: reading an owner, checking an administrator, receiving its webhooks. */
export interface ForgeSyncClient {
  readSnapshot(owner: string, parts: readonly SyncPart[]): Promise<Snapshot>;
  /** Whether the person whose sign-in token this is administers the owner (GitHub admin, GitLab Owner). */
  isAdmin(owner: string, userToken: string, forgeUserId: string): Promise<boolean>;
  /** A repository of the owner by its full name; null when the forge does not know it. */
  findRepo(owner: string, fullName: string): Promise<ForgeRepo | null>;
  /** Checks the delivery exactly as the forge documents it; false refuses it. */
  verifyHook(hook: ReceivedHook): boolean;
  /** The forge's delivery id (the same on a redelivery), and the event's name. */
  describeHook(hook: ReceivedHook): { deliveryId: string; event: string };
  route(event: string, payload: unknown): HookRoute | null;
}
