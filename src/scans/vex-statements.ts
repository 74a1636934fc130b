import type { Insertable, Transaction } from 'kysely';
import type { Database, UploadRow, VexStatementsTable } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import { auditStore } from '../audit/store.js';
import { triageIn, type DismissReason } from '../findings/store.js';
import { AFFIRMING, commentOf, DENYING, statementKey, vexMatcher, type StoredStatement } from '../vex/match.js';
import type { VexStatement } from '../domain/scan.js';
import type { TrackingStore } from './tracking-store.js';

/** The repository's kept statements as one matcher, bom-refs resolved through its stored SBOMs. */
export async function keptStatements(store: TrackingStore, repositoryId: string, statements?: StoredStatement[]) {
  const kept = statements ?? await store.vexStatements(repositoryId);
  const refs = kept.filter((s) => s.product.startsWith('ref:')).map((s) => s.product.slice('ref:'.length));
  const purls = await store.purlsOfRefs(repositoryId, refs);
  return vexMatcher(kept, (ref) => purls.get(ref));
}

/**
 * A VEX upload's statements: kept (each replacing the repository's earlier one about the same
 * vulnerability and package), then applied to the repository's present vulnerability findings, in
 * the transaction that completes the upload. not_affected and false_positive dismiss, unless a
 * person, a rule or the tool dismissed already; affected and under_investigation reopen what a VEX
 * dismissed (never a person's dismissal); fixed changes nothing (the scans say what is present).
 */
export async function applyStatements(
  trx: Transaction<Database>, dialect: Dialect, store: TrackingStore, upload: UploadRow, statements: VexStatement[], at: string,
): Promise<void> {
  const rows = new Map<string, Insertable<VexStatementsTable> & StoredStatement>();
  for (const statement of statements) {
    const key = statementKey(statement);
    if (!key) continue;
    rows.set(`${statement.vulnerability}\n${key.product}\n${key.version}`, {
      repository_id: upload.repository_id, vulnerability: statement.vulnerability, product: key.product, version: key.version,
      aliases: JSON.stringify(statement.aliases), status: statement.status, justification: statement.justification, detail: statement.detail,
      upload_id: upload.id, stated_at: at,
    });
  }
  await store.saveVexStatements([...rows.values()]);
  const said = await keptStatements(store, upload.repository_id, [...rows.values()]);
  const dismissals = await store.dismissalSources(upload.repository_id);
  const dismiss = new Map<string, { reason: DismissReason; comment: string | null; fingerprints: Set<string> }>();
  const reopen = new Set<string>();
  for (const finding of await store.presentVulnerabilities(upload.repository_id)) {
    const statement = said({ ...finding, aliases: finding.aliases ? (JSON.parse(finding.aliases) as string[]) : [] });
    if (!statement) continue;
    const before = dismissals.get(finding.fingerprint);
    if (DENYING.has(statement.status)) {
      const comment = commentOf(statement);
      const reason = statement.status as DismissReason;
      // A person's, a rule's or the tool's own dismissal stands; the same VEX dismissal again is no change.
      if (before && (before.vexUploadId === null || (before.reason === reason && before.comment === comment))) continue;
      const group = dismiss.get(`${reason}\n${comment}`) ?? { reason, comment, fingerprints: new Set<string>() };
      group.fingerprints.add(finding.fingerprint);
      dismiss.set(`${reason}\n${comment}`, group);
    } else if (AFFIRMING.has(statement.status) && before?.vexUploadId) {
      reopen.add(finding.fingerprint);
    }
  }
  const audit = auditStore(trx);
  const repo = await trx.selectFrom('repos').select('org_id').where('id', '=', upload.repository_id).executeTakeFirstOrThrow();
  const record = (action: string, count: number, details: Record<string, unknown>) => count === 0 ? undefined : audit.record({
    action, actor: null, orgId: repo.org_id, target: { type: 'upload', id: upload.id },
    details: { repository_id: upload.repository_id, findings: count, by: 'vex', ...details },
  });
  for (const { reason, comment, fingerprints } of dismiss.values()) {
    const changed = await triageIn(trx, dialect, upload.repository_id, [...fingerprints], { state: 'dismissed', reason, comment, until: null },
      'dismissed_by_vex', null, at, { vexUploadId: upload.id });
    await record('finding.dismissed', changed?.length ?? 0, { reason, comment });
  }
  if (reopen.size > 0) {
    const changed = await triageIn(trx, dialect, upload.repository_id, [...reopen], { state: 'open', comment: 'A VEX statement says it is affected.' },
      'reopened_by_vex', null, at);
    await record('finding.reopened', changed?.length ?? 0, {});
  }
}
