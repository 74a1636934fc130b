import type { UserRow } from '../db/schema.js';

export type KeyScope = 'read' | 'upload' | 'write';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'upload', 'write'];

/** Each scope includes the ones before it: upload can read, write can upload. */
export function scopeCovers(has: KeyScope, needs: KeyScope): boolean {
  return KEY_SCOPES.indexOf(has) >= KEY_SCOPES.indexOf(needs);
}

/**
 * What a short-lived CI token (exchanged for a pipeline's job token, src/ci-identity/) allows: uploads
 * to these repositories, on this ref and commit, and reading those uploads and the gate. Nothing else.
 */
export interface CiGrant {
  tokenId: string;
  repositoryIds: string[];
  /** The ref the job built, in full (refs/heads/main, refs/pull/7/merge). */
  ref: string;
  event: string;
  baseRef: string | null;
  commitSha: string | null;
}

/** Who is asking: a user, through a browser session or one of their API keys; or a CI job through its short-lived token. */
export interface Actor {
  /** For a CI token, a stand-in that is nobody's account: it belongs to no org and is never stored. */
  user: UserRow;
  isAdmin: boolean;
  via: 'session' | 'api_key' | 'ci_token';
  sessionId: string | null;
  key: { id: string; scope: KeyScope; orgIds: string[] | null } | null;
  ci?: CiGrant | null;
}
