import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { readableBy } from '../policy-store.js';

/** Which repositories a caller may see: members' orgs (null: any), within a key's orgs (null: any). */
export interface ComponentScope {
  memberOf: string | null;
  onlyIds: string[] | null;
}

export interface ComponentFilters {
  /** A package (OSV ecosystem + normalised name), optionally at one version. */
  packageKey?: string;
  version?: string;
  /** An exact purl, for purls of no ecosystem we know. */
  purl?: string;
  name?: string;
  ecosystem?: string;
  /** An advisory id (already resolved from an alias): components it affects. */
  advisoryId?: string;
}

export interface ComponentAcrossRow {
  id: string; name: string; version: string | null; purl: string | null; type: string | null; tool: string;
  repository_id: string; repository_name: string; org_id: string; org_name: string; ref_kind: string; ref_name: string;
}

export type ComponentStore = ReturnType<typeof componentStore>;

export function componentStore(db: Kysely<Database>) {
  return {
    async page(scope: ComponentScope, filters: ComponentFilters, page: Page): Promise<Paged<ComponentAcrossRow>> {
      if (scope.onlyIds?.length === 0) return { total: 0, items: [] };
      const query = db.selectFrom('components')
        .innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .innerJoin('refs', 'refs.id', 'analyses.ref_id')
        .innerJoin('repos', 'repos.id', 'components.repository_id')
        .innerJoin('orgs', 'orgs.id', 'repos.org_id')
        .$if(scope.memberOf !== null, (q) => q.where(readableBy(scope.memberOf!)))
        .$if(scope.onlyIds !== null, (q) => q.where('repos.org_id', 'in', scope.onlyIds!))
        .$if(filters.packageKey !== undefined, (q) => q.where('components.package_key', '=', filters.packageKey!))
        .$if(filters.version !== undefined, (q) => q.where('components.version', '=', filters.version!))
        .$if(filters.purl !== undefined, (q) => q.where('components.purl', '=', filters.purl!))
        .$if(filters.name !== undefined, (q) => q.where('components.name', '=', filters.name!))
        // Keys start with "<ecosystem>|": a range on the key's index rather than a LIKE.
        .$if(filters.ecosystem !== undefined, (q) => q.where('components.package_key', '>=', `${filters.ecosystem}|`).where('components.package_key', '<', `${filters.ecosystem}}`))
        .$if(filters.advisoryId !== undefined, (q) => q.where((eb) => eb.exists(eb.selectFrom('findings as f')
          .innerJoin('analyses as fa', 'fa.id', 'f.analysis_id')
          .select('f.id')
          .where('f.rule_id', '=', filters.advisoryId!).where('f.state', '=', 'open').where('fa.tool', '=', 'advisories')
          .whereRef('fa.ref_id', '=', 'analyses.ref_id').whereRef('f.purl', '=', 'components.purl'))));
      return paginate(query, page, (q) => q.select([
        'components.id', 'components.name', 'components.version', 'components.purl', 'components.type', 'analyses.tool',
        'repos.id as repository_id', 'repos.name as repository_name', 'orgs.id as org_id', 'orgs.name as org_name',
        'refs.kind as ref_kind', 'refs.name as ref_name',
      ]).orderBy('orgs.name').orderBy('repos.name').orderBy('components.name').orderBy('components.id'));
    },
  };
}
