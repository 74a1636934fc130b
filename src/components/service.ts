import type { Actor } from '../domain/actor.js';
import type { Page } from '../db/page.js';
import type { Policy } from '../policy.js';
import { packageOfPurl } from '../domain/ecosystems/index.js';
import type { AdvisoryService } from '../advisories/service.js';
import type { ComponentFilters, ComponentStore } from './store.js';

/** What GET /components is asked: a purl (with or without version), a name, an ecosystem, an advisory id or alias. */
export interface ComponentSearch {
  purl?: string;
  name?: string;
  ecosystem?: string;
  advisory?: string;
}

/** Components across every repository the caller can see: "where do we use it?". */
export function componentService(components: ComponentStore, advisories: Pick<AdvisoryService, 'resolve'>, policy: Policy) {
  return {
    async search(actor: Actor, search: ComponentSearch, page: Page) {
      await policy.require(actor, 'component.search');
      const filters: ComponentFilters = { name: search.name, ecosystem: search.ecosystem };
      if (search.purl !== undefined) {
        const found = packageOfPurl(search.purl);
        if (found) Object.assign(filters, { packageKey: found.key, version: found.version ?? undefined });
        else filters.purl = search.purl;
      }
      if (search.advisory !== undefined) {
        const id = await advisories.resolve(search.advisory);
        if (id === undefined) return { total: 0, items: [] };
        filters.advisoryId = id;
      }
      return components.page(policy.orgListScope(actor), filters, page);
    },
  };
}
