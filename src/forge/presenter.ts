import type { LinkStatus } from './service.js';

export function presentLink({ link, counts }: LinkStatus) {
  const syncing = link.sync_due_at !== null || (link.lease_until !== null && link.lease_until > new Date().toISOString());
  return { provider: link.provider_id, owner: link.owner, last_synced_at: link.last_synced_at, last_error: link.last_error, syncing, counts };
}
