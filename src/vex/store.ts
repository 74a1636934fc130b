import type { NotNull } from 'kysely';
import type { Db } from '../db/index.js';
import type { RefName } from '../domain/ref-name.js';
import { refIdOf } from '../refs/store.js';

/** A vulnerability finding of a ref with its fingerprint's dismissal, as a VEX statement needs it. */
export interface VexFindingRow {
  rule_id: string;
  purl: string;
  aliases: string | null;
  state: string;
  dismissed_reason: string | null;
  dismissed_comment: string | null;
}

export function vexStore({ kysely: db }: Db) {
  return {
    refId: (repositoryId: string, ref: RefName) => refIdOf(db, repositoryId, ref),

    /** The ref's findings that name a package by purl (vulnerabilities), in a stable order. */
    async vulnerabilities(repositoryId: string, refId: string): Promise<VexFindingRow[]> {
      return db.selectFrom('findings')
        .leftJoin('dismissals', (join) => join.onRef('dismissals.repository_id', '=', 'findings.repository_id')
          .onRef('dismissals.fingerprint', '=', 'findings.fingerprint'))
        .select(['findings.rule_id', 'findings.purl', 'findings.aliases', 'findings.state', 'dismissals.reason as dismissed_reason', 'dismissals.comment as dismissed_comment'])
        .where('findings.repository_id', '=', repositoryId).where('findings.ref_id', '=', refId)
        .where('findings.purl', 'is not', null)
        .$narrowType<{ purl: NotNull }>()
        .orderBy('findings.rule_id').orderBy('findings.purl')
        .execute();
    },
  };
}

export type VexStore = ReturnType<typeof vexStore>;
