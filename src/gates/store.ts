import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import type { Severity } from '../domain/scan.js';
import type { SeverityChanges } from '../domain/changes.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import type { ComponentFact, FindingFact, GateFacts, Tally, UploadIntroduced } from './evaluate.js';
import type { Gate, Policy } from './types.js';
import { refIdOf } from '../refs/store.js';
import { openInSameAnalysisOf } from '../results/store.js';
import { inKev } from '../advisories/priorities-store.js';

type Conn = Kysely<Database> | Transaction<Database>;

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
const EXAMPLES = 5;
const DAY_MS = 86_400_000;

export interface EffectivePolicy {
  source: 'repository' | 'organization';
  document: Policy;
}

export function policyStore(db: Conn) {
  return {
    async orgPolicy(orgId: string): Promise<Policy> {
      const row = await db.selectFrom('org_policies').select('document').where('org_id', '=', orgId).executeTakeFirst();
      return row ? (JSON.parse(row.document) as Policy) : {};
    },

    /** The repository's own policy; null when it inherits its org's. */
    async repoPolicy(repositoryId: string): Promise<Policy | null> {
      const row = await db.selectFrom('repo_policies').select('document').where('repository_id', '=', repositoryId).executeTakeFirst();
      return row ? (JSON.parse(row.document) as Policy) : null;
    },

    async setOrgPolicy(orgId: string, document: Policy, at: string): Promise<void> {
      await db.insertInto('org_policies').values({ org_id: orgId, document: JSON.stringify(document), updated_at: at })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ document: JSON.stringify(document), updated_at: at }))
        .execute();
    },

    /** null makes the repository inherit again. */
    async setRepoPolicy(repositoryId: string, document: Policy | null, at: string): Promise<void> {
      if (document === null) {
        await db.deleteFrom('repo_policies').where('repository_id', '=', repositoryId).execute();
        return;
      }
      await db.insertInto('repo_policies').values({ repository_id: repositoryId, document: JSON.stringify(document), updated_at: at })
        .onConflict((oc) => oc.column('repository_id').doUpdateSet({ document: JSON.stringify(document), updated_at: at }))
        .execute();
    },

    /** The policy that applies to the repository: its own, else its org's (empty when neither set one). */
    async effectivePolicy(repositoryId: string): Promise<EffectivePolicy> {
      const row = await db.selectFrom('repos')
        .leftJoin('repo_policies', 'repo_policies.repository_id', 'repos.id')
        .leftJoin('org_policies', 'org_policies.org_id', 'repos.org_id')
        .select(['repo_policies.document as own', 'org_policies.document as inherited'])
        .where('repos.id', '=', repositoryId).executeTakeFirst();
      if (row?.own) return { source: 'repository', document: JSON.parse(row.own) as Policy };
      return { source: 'organization', document: row?.inherited ? (JSON.parse(row.inherited) as Policy) : {} };
    },
  };
}

/** Reads what a policy's rules need of one ref, and nothing more (a ref may hold a million findings). */
export async function gateFacts(db: Conn, refId: string | undefined, policy: Policy, changes: UploadChanges | null, at: Date): Promise<GateFacts> {
  const status = refId === undefined ? undefined : await db.selectFrom('refs')
    .select(['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info'])
    .where('id', '=', refId).executeTakeFirst();
  const open = {} as Record<Severity, Tally>;
  for (const severity of SEVERITIES) {
    const count = Number(status?.[`open_${severity}`] ?? 0);
    const limit = policy.max_open?.[severity];
    const examples = refId !== undefined && limit !== undefined && count > limit ? await openExamples(db, refId, severity) : [];
    open[severity] = { count, examples };
  }
  const overdue: Partial<Record<Severity, Tally>> = {};
  for (const severity of SEVERITIES) {
    const days = policy.max_age_days?.[severity];
    if (days !== undefined && refId !== undefined) overdue[severity] = await openSince(db, refId, severity, new Date(at.getTime() - days * DAY_MS).toISOString());
  }
  const base = changes?.upload.ref_kind === 'pull_request' ? changes.upload.base_ref : null;
  return {
    open,
    introduced: changes && base !== null ? await broughtAgainstBase(db, changes.upload, base, policy.fail_on_new)
      : changes ? await introducedBy(db, changes, policy.fail_on_new) : null,
    ...(base !== null ? { introducedAgainst: base } : {}),
    overdue,
    vulnerabilities: policy.fail_on_kev && refId !== undefined ? await kevVulnerabilities(db, refId) : [],
    components: policy.licenses && refId !== undefined ? await componentLicenses(db, refId) : [],
  };
}

/** What an upload changed: findings it opened, reopened and fixed, counted per severity. */
export interface UploadChanges extends SeverityChanges {
  upload: UploadRow;
}

type ChangedFindings = ExpressionBuilder<Database, 'findings' | 'analyses'>;

function changedBy(db: Conn, upload: UploadRow) {
  return db.selectFrom('findings')
    .innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
    .where('analyses.repository_id', '=', upload.repository_id)
    .where('analyses.last_upload_id', '=', upload.id);
}

function broughtBy(eb: ChangedFindings, upload: UploadRow) {
  return eb.and([
    eb('findings.state', '=', 'open'),
    eb.or([eb('findings.first_upload_id', '=', upload.id), eb('findings.reopened_at', '=', eb.ref('analyses.completed_at'))]),
  ]);
}

/**
 * New and reopened alike, per severity. Only a rule they break needs them named, and naming costs a
 * sorted read of everything the upload brought, so examples are read for fail_on_new's severities
 * only when there is something to name.
 */
async function introducedBy(db: Conn, changes: UploadChanges, threshold: Severity | null | undefined): Promise<Record<Severity, Tally>> {
  const out = Object.fromEntries(SEVERITIES.map((s) => [s, { count: changes.new[s] + changes.reopened[s], examples: [] as string[] }])) as Record<Severity, Tally>;
  if (!threshold || !SEVERITIES.some((s) => SEVERITY_RANK[s] >= SEVERITY_RANK[threshold] && out[s].count > 0)) return out;
  const rows = await changedBy(db, changes.upload)
    .select(['findings.severity', 'findings.rule_id', 'findings.file_path', 'findings.start_line', 'findings.package_name', 'findings.package_version'])
    .where((eb) => broughtBy(eb, changes.upload))
    .where('findings.severity_rank', '>=', SEVERITY_RANK[threshold])
    .orderBy('findings.severity_rank', 'desc').orderBy('findings.id').limit(EXAMPLES)
    .execute();
  for (const row of rows) out[row.severity as Severity]?.examples.push(findingLabel(row));
  return out;
}

/**
 * What a pull request brings, as vs_base counts it: findings open in the analyses this upload applied
 * whose fingerprint is not open in the base branch's analysis of the same tool, category and format.
 * Judging against the previous push instead would pass a pull request on its second push with the
 * same findings, and fail its first push for findings the base already has.
 */
async function broughtAgainstBase(db: Conn, upload: UploadRow, base: string, threshold: Severity | null | undefined): Promise<Record<Severity, Tally>> {
  const baseRefId = await refIdOf(db, upload.repository_id, { kind: 'branch', name: base });
  let brought = changedBy(db, upload).where('findings.state', '=', 'open');
  // No base results at all: everything open is brought.
  if (baseRefId !== undefined) brought = brought.where((eb) => eb.not(eb.exists(openInSameAnalysisOf(eb, baseRefId))));
  const counted = await brought.select((eb) => ['findings.severity', eb.fn.countAll<number>().as('n')]).groupBy('findings.severity').execute();
  const out = Object.fromEntries(SEVERITIES.map((s) => [s, { count: 0, examples: [] as string[] }])) as Record<Severity, Tally>;
  for (const row of counted) if (row.severity in out) out[row.severity as Severity].count = Number(row.n);
  if (!threshold || !SEVERITIES.some((s) => SEVERITY_RANK[s] >= SEVERITY_RANK[threshold] && out[s].count > 0)) return out;
  const rows = await brought
    .select(['findings.severity', 'findings.rule_id', 'findings.file_path', 'findings.start_line', 'findings.package_name', 'findings.package_version'])
    .where('findings.severity_rank', '>=', SEVERITY_RANK[threshold])
    .orderBy('findings.severity_rank', 'desc').orderBy('findings.id').limit(EXAMPLES)
    .execute();
  for (const row of rows) out[row.severity as Severity]?.examples.push(findingLabel(row));
  return out;
}

async function openExamples(db: Conn, refId: string, severity: Severity): Promise<string[]> {
  const rows = await db.selectFrom('findings')
    .select(['rule_id', 'file_path', 'start_line', 'package_name', 'package_version'])
    .where('ref_id', '=', refId).where('state', '=', 'open').where('severity_rank', '=', SEVERITY_RANK[severity])
    .orderBy('id').limit(EXAMPLES).execute();
  return rows.map(findingLabel);
}

async function openSince(db: Conn, refId: string, severity: Severity, before: string): Promise<Tally> {
  const base = db.selectFrom('findings')
    .where('ref_id', '=', refId).where('state', '=', 'open').where('severity_rank', '=', SEVERITY_RANK[severity])
    .where('created_at', '<', before);
  const [counted, oldest] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.select(['rule_id', 'file_path', 'start_line', 'package_name', 'package_version', 'created_at'])
      .orderBy('created_at').orderBy('id').limit(EXAMPLES).execute(),
  ]);
  return { count: Number(counted.n), examples: oldest.map((row) => `${findingLabel(row)} (open since ${row.created_at.slice(0, 10)})`) };
}

/**
 * The ref's open findings in the KEV catalogue (through their rule id or an alias the advisory
 * database knows), most severe first: what fail_on_kev fails on.
 */
async function kevVulnerabilities(db: Conn, refId: string): Promise<FindingFact[]> {
  const rows = await db.selectFrom('findings').select(['rule_id', 'file_path', 'start_line', 'package_name', 'package_version', 'severity'])
    .where('ref_id', '=', refId).where('state', '=', 'open').where(inKev())
    .orderBy('severity_rank', 'desc').orderBy('id').execute();
  return rows.map((row) => ({ label: findingLabel(row), severity: row.severity as Severity, kev: true }));
}

async function componentLicenses(db: Conn, refId: string): Promise<ComponentFact[]> {
  const rows = await db.selectFrom('components').select(['components.name', 'components.version', 'components.purl', 'components.licenses'])
    .innerJoin('analyses', 'analyses.id', 'components.analysis_id')
    .where('analyses.ref_id', '=', refId).orderBy('components.name').orderBy('components.id').execute();
  return rows.map((row) => ({
    label: row.purl ?? (row.version ? `${row.name}@${row.version}` : row.name),
    licenses: JSON.parse(row.licenses) as string[],
  }));
}

interface LabelledFinding {
  rule_id: string;
  file_path: string | null;
  start_line: number | null;
  package_name: string | null;
  package_version: string | null;
}

function findingLabel(f: LabelledFinding): string {
  if (f.package_name) return `${f.rule_id} in ${f.package_name}${f.package_version ? `@${f.package_version}` : ''}`;
  if (f.file_path) return `${f.rule_id} at ${f.file_path}${f.start_line !== null ? `:${f.start_line}` : ''}`;
  return f.rule_id;
}

/**
 * Keeps the gate, the changes by severity and what the gate counted as brought on the upload, in the
 * transaction that completes it.
 */
export async function recordGate(db: Conn, uploadId: string, gate: Gate, changes: UploadChanges, introduced: GateFacts['introduced']): Promise<void> {
  const { new: opened, reopened, fixed } = changes;
  await db.updateTable('uploads')
    .set({ gate: JSON.stringify(gate), changes: JSON.stringify({ new: opened, reopened, fixed }), introduced: introduced && JSON.stringify(introduced) })
    .where('id', '=', uploadId).execute();
}

/**
 * What the latest upload of each of the ref's analyses brought, as its gate counted it, newest first:
 * one row per analysis, as the status reads them. An analysis's latest upload is the one whose results
 * it holds, so a later upload of the same results supersedes its verdict, and an upload of other
 * results (an SBOM after the SARIF) does not.
 */
export async function latestUploads(db: Conn, refId: string): Promise<UploadIntroduced[]> {
  const rows = await db.selectFrom('analyses').innerJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
    .select(['uploads.id', 'uploads.created_at', 'uploads.changes', 'uploads.introduced']).distinct()
    .where('analyses.ref_id', '=', refId).where('uploads.changes', 'is not', null)
    .orderBy('uploads.created_at', 'desc').orderBy('uploads.id', 'desc')
    .execute();
  return rows.map((row) => ({ uploadId: row.id, introduced: row.introduced ? (JSON.parse(row.introduced) as Record<Severity, Tally>) : countedIn(row.changes!) }));
}

/** An upload judged before its gate's counts were kept: new and reopened as its changes say, none named. */
function countedIn(changes: string): Record<Severity, Tally> {
  const { new: opened, reopened } = JSON.parse(changes) as Pick<SeverityChanges, 'new' | 'reopened'>;
  return Object.fromEntries(SEVERITIES.map((s) => [s, { count: opened[s] + reopened[s], examples: [] as string[] }])) as Record<Severity, Tally>;
}
