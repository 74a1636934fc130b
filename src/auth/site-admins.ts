import type { FastifyBaseLogger } from 'fastify';
import type { AdminPinRow, UserRow } from '../db/schema.js';
import type { AdminEntry } from '../config.js';
import type { AdminPinStore } from './admin-pins-store.js';

/**
 * Who is a site administrator: the local dev user, and the forge accounts SERVICE_ADMINS names.
 * A login entry counts only for the account (provider, forge user id) it was pinned to at its first
 * sign-in, so whoever later takes over a renamed login on the forge does not inherit admin rights.
 */
export function siteAdmins(entries: readonly AdminEntry[], pins: AdminPinStore) {
  // Pins never change once made, so a pin seen once is kept; an entry not yet pinned is asked for
  // again (another instance may have pinned it meanwhile), which lasts only until its first sign-in.
  const known = new Map<string, AdminPinRow>();
  async function pinOf(entry: AdminEntry): Promise<AdminPinRow | undefined> {
    const cached = known.get(entry.key);
    if (cached) return cached;
    const row = await pins.byEntry(entry.key);
    if (row) known.set(entry.key, row);
    return row;
  }
  const concerns = (entry: AdminEntry, user: UserRow) => entry.provider === null || entry.provider === user.provider_id;

  return {
    async isAdmin(user: UserRow): Promise<boolean> {
      if (user.is_admin) return true;
      if (user.provider_id === null || user.forge_user_id === null) return false;
      for (const entry of entries) {
        if (!concerns(entry, user)) continue;
        if (entry.kind === 'id') {
          if (entry.forgeUserId === user.forge_user_id) return true;
          continue;
        }
        const pin = await pinOf(entry);
        if (pin && pin.provider_id === user.provider_id && pin.forge_user_id === user.forge_user_id) return true;
      }
      return false;
    },

    /** After a forge sign-in: pins the login entries naming this login that no account holds yet. */
    async signedIn(user: UserRow, log: FastifyBaseLogger): Promise<void> {
      if (user.provider_id === null || user.forge_user_id === null) return;
      for (const entry of entries) {
        if (entry.kind !== 'login' || !concerns(entry, user) || entry.login.toLowerCase() !== user.login.toLowerCase()) continue;
        if (await pinOf(entry)) continue;
        const pin = await pins.pin(entry.key, user.provider_id, user.forge_user_id);
        known.set(entry.key, pin);
        if (pin.forge_user_id === user.forge_user_id && pin.provider_id === user.provider_id) {
          log.warn({ entry: entry.key, provider: pin.provider_id, forge_user_id: pin.forge_user_id }, 'SERVICE_ADMINS entry pinned to the forge account that signed in with it');
        }
      }
    },
  };
}
export type SiteAdmins = ReturnType<typeof siteAdmins>;
