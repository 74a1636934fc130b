import type { Actor } from '../domain/actor.js';
import type { RefRow } from '../db/schema.js';
import type { Page, Paged } from '../db/page.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { RefStore } from './store.js';
import { defaultBranch, sameRef } from '../domain/ref-name.js';

export type ListedRef = RefRow & { is_default: boolean };

export function refService(refs: RefStore, authorizedRepo: AuthorizedRepo) {
  return {
    /** The refs of a repository whose results the actor may read (404 otherwise), marking the default branch. */
    async list(actor: Actor, repoId: string, page: Page): Promise<Paged<ListedRef>> {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const defaultRef = defaultBranch(repo.default_branch);
      const { total, items } = await refs.page(repo.id, defaultRef, page);
      return { total, items: items.map((row) => ({ ...row, is_default: sameRef(row, defaultRef) })) };
    },
  };
}
