import type { UserRow } from '../db/schema.js';

export type KeyScope = 'read' | 'upload' | 'write';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'upload', 'write'];

/** Each scope includes the ones before it: upload can read, write can upload. */
export function scopeCovers(has: KeyScope, needs: KeyScope): boolean {
  return KEY_SCOPES.indexOf(has) >= KEY_SCOPES.indexOf(needs);
}

/** Who is asking: a user, through a browser session or one of their API keys. */
export interface Actor {
  user: UserRow;
  isAdmin: boolean;
  via: 'session' | 'api_key';
  sessionId: string | null;
  key: { id: string; scope: KeyScope; orgIds: string[] | null } | null;
}
