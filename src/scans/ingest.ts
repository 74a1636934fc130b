import type { RefRow, UploadRow } from '../db/schema.js';
import type { Db } from '../db/index.js';
import type { NormalisedAnalysis, NormalisedFinding, NormalisedScan, ScanFormat, Severity } from '../domain/scan.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { fingerprintDistinct, fingerprintDistinctInTurns, type DistinctFindings } from './fingerprint.js';
import { holdsClaim } from './upload-store.js';
import { refreshRefState, refreshRefTotals } from '../results/status-store.js';
import { trackingStore, type ExistingFinding, type FindingDetails, type FindingPlace, type IngestDismissal, type NewFinding, type TrackingStore } from './tracking-store.js';
import { keptComponents } from './component-rows.js';
import { noChanges, zeroCounts, type SeverityChanges } from '../domain/changes.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { suppressionMatcher } from '../suppressions/match.js';
import type { ImportCounts } from '../domain/changes.js';
import { packageOfPurl } from '../domain/ecosystems/index.js';
import { ADVISORIES, matchRef } from './advisory-matching.js';
import { applyStatements, keptStatements } from './vex-statements.js';
import { commentOf, DENYING } from '../vex/match.js';

import { REMATCH_FORMAT } from '../domain/rematch.js';
import { directFlags } from '../domain/dependency-graph.js';
import { publishCommitted } from './committed.js';


/** A suppression rule in force, compiled. */
interface Suppressing {
  rule: { id: string; reason: string; comment: string | null; expires_at: string | null };
  matches: ReturnType<typeof suppressionMatcher>;
}

/** What dismisses incoming findings: the repository's dismissals, its org's suppression rules, its kept VEX statements. */
interface Dismissing {
  dismissed: Set<string>;
  rules: Suppressing[];
  said: Awaited<ReturnType<typeof keptStatements>>;
}

/** A pull request's upload against its base branch's current results. */
export interface VsBase {
  new: number;
  fixed: number;
}

/**
 * Applies a parsed upload in one transaction: each analysis of the upload's ref has its findings
 * matched by fingerprint (new ones open, missing ones fixed, returning ones reopened), its components
 * replace the previous SBOM, and the ref's totals (and the repository's, for the default branch)
 * follow. A pull request's upload is also compared with its base branch. Returns null when this
 * worker lost its claim.
 */
export async function applyScan(db: Db, upload: UploadRow, scan: NormalisedScan): Promise<ImportCounts | null> {
  return db.kysely.transaction().execute(async (trx) => {
    if (!(await holdsClaim(trx, upload, db.dialect))) return null;
    const store = trackingStore(trx, db);
    if (!(await store.lockRepository(upload.repository_id))) return null;
    const ref = await store.ref(upload);
    const pullRequest = upload.ref_kind === 'pull_request';
    const base = pullRequest && upload.base_ref !== null ? (await store.baseRef(upload.repository_id, upload.base_ref)) ?? null : null;
    const total: ImportCounts = { new: 0, fixed: 0, reopened: 0, unchanged: 0, findings: 0, components: 0 };
    const vsBase: VsBase = { new: 0, fixed: 0 };
    const changes = noChanges();
    const dismissed = await store.dismissedFingerprints(upload.repository_id);
    const rules = (await store.activeSuppressions(upload.repository_id, now())).map((rule) => ({ rule, matches: suppressionMatcher(rule) }));
    const said = await keptStatements(store, upload.repository_id);
    const dismissing: Dismissing = { dismissed, rules, said };
    // Whether the ref's vulnerability counts may change: a re-match (the advisories' aliases may have
    // changed too), VEX statements, or a finding naming a package that arrived, changed or changed
    // state (an SBOM uploaded again unchanged changes none).
    let packages = upload.format === REMATCH_FORMAT || Boolean(scan.statements?.length);
    let components = false;
    // On PostgreSQL an analysis's fingerprints are worked out while the one before it is written
    // (`meanwhile`), with CPU the ingest otherwise spent with the server idle. SQLite's writes never
    // wait (better-sqlite3 is synchronous): there the slices would only let other work of this
    // thread (a hand-over's early parse) run inside the transaction, holding its write lock longer.
    let ahead: Promise<DistinctFindings> | undefined;
    for (const [index, analysis] of scan.analyses.entries()) {
      const distinct = (await ahead) ?? fingerprintDistinct(analysis.findings);
      ahead = undefined;
      const following = scan.analyses[index + 1];
      const meanwhile = following && db.dialect === 'postgres' ? () => {
        ahead = fingerprintDistinctInTurns(following.findings);
        // Awaited by the next turn of this loop; if this turn fails instead, nobody waits for it.
        ahead.catch(() => undefined);
      } : undefined;
      const incoming = distinct.findings;
      const { counts, packages: named, components: changed } = await applyAnalysis(store, upload, ref, scan.format, analysis, distinct, dismissing, changes, meanwhile);
      packages ||= named;
      components ||= changed;
      for (const key of Object.keys(total) as (keyof ImportCounts)[]) total[key] += counts[key];
      if (pullRequest) {
        const against = await compareWithBase(store, base, upload, scan.format, analysis, incoming, dismissed);
        vsBase.new += against.new;
        vsBase.fixed += against.fixed;
      }
    }
    // An SBOM that changed the ref's components, and a re-match job (it follows an advisory import),
    // work the ref's advisory matches out again, in this same transaction. An SBOM with no components
    // still counts: its packages are gone, so their findings are fixed. A CycloneDX VEX (statements,
    // no analysis) lists no packages and changes none.
    const sbom = (scan.format === 'cyclonedx' || scan.format === 'spdx') && scan.analyses.length > 0;
    let unchecked: number | null = null;
    if (sbom && !components && ref.components_unchecked !== null) {
      unchecked = ref.components_unchecked;
      const held = await keptMatches(store, upload, ref);
      total.unchanged += held;
      total.findings += held;
    } else if (sbom || upload.format === REMATCH_FORMAT) {
      const matches = await matchRef(trx, ref.id);
      unchecked = matches.unchecked;
      // A ref that never had a vulnerable component gets no empty advisories analysis.
      const hasAnalysis = matches.analysis.findings.length > 0
        || (await store.analysis(ref.id, ADVISORIES.tool, ADVISORIES.category, ADVISORIES.format)) !== undefined;
      const applied = !hasAnalysis ? null : await applyAnalysis(store, { ...upload, category: ADVISORIES.category }, ref, ADVISORIES.format, matches.analysis, fingerprintDistinct(matches.analysis.findings), dismissing, changes);
      if (applied) {
        packages ||= applied.packages;
        for (const key of ['new', 'fixed', 'reopened', 'unchanged', 'findings'] as const) total[key] += applied.counts[key];
      }
      await store.setComponentsUnchecked(ref.id, matches.unchecked);
    }
    const at = now();
    if (scan.statements?.length) await applyStatements(trx, db.dialect, store, upload, scan.statements, at);
    await trx.updateTable('uploads').set({
      components_unchecked: unchecked,
      status: 'complete', completed_at: at, lease_until: null, error: null,
      tools: JSON.stringify(scan.analyses.map((a) => a.tool.name)),
      new_count: total.new, fixed_count: total.fixed, reopened_count: total.reopened,
      unchanged_count: total.unchanged, findings_count: total.findings, components_count: total.components,
      vs_base_new: pullRequest ? vsBase.new : null, vs_base_fixed: pullRequest ? vsBase.fixed : null,
    }).where('id', '=', upload.id).execute();
    if (pullRequest) await store.setBaseRef(ref.id, upload.base_ref);
    await refreshRefTotals(trx, ref.id, { vulnerabilities: packages });
    await refreshRefState(trx, upload, { lastCompletedAt: at });
    await publishCommitted(trx, db.dialect, { outcome: 'complete', upload, counts: total, changes, rematch: upload.format === REMATCH_FORMAT });
    return total;
  });
}

async function applyAnalysis(
  store: TrackingStore, upload: UploadRow, ref: RefRow, format: ScanFormat, parsed: NormalisedAnalysis, distinct: DistinctFindings,
  { dismissed, rules, said }: Dismissing, changes: SeverityChanges, meanwhile?: () => void,
): Promise<Applied> {
  const at = now();
  const incoming = distinct.findings;
  const current = await store.analysis(ref.id, parsed.tool.name, upload.category, format);
  const counts: ImportCounts = { new: 0, fixed: 0, reopened: 0, unchanged: 0, findings: incoming.size, components: parsed.components.length };
  // An older upload processed after a newer one must not roll the analysis back.
  if (supersedes(current, upload)) {
    return { counts: { ...counts, unchanged: incoming.size }, packages: false, components: false };
  }
  const analysisId = current?.id ?? newId();
  if (!current) {
    await store.insertAnalysis({
      id: analysisId, repository_id: upload.repository_id, ref_id: ref.id, tool: parsed.tool.name, tool_version: parsed.tool.version,
      category: upload.category, format, last_upload_id: upload.id, completed_at: at,
      open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, fixed_total: 0, dismissed: 0,
    });
  }
  const help = new Map<string, string>();
  const arriving: IngestDismissal[] = [];
  for (const [fingerprint, finding] of incoming) {
    if (finding.help !== null && !help.has(finding.ruleId)) help.set(finding.ruleId, finding.help);
    if (dismissed.has(fingerprint)) continue;
    // What the tool itself suppressed, a suppression rule matches or a kept VEX statement denies arrives dismissed and stays so like any dismissal.
    if (finding.suppression !== null) {
      arriving.push({ fingerprint, reason: 'suppressed', comment: finding.suppression || null, until: null, suppressionId: null, vexUploadId: null });
      continue;
    }
    const matchable = rules.length === 0 ? null
      : { repository_id: upload.repository_id, tool: parsed.tool.name, rule_id: finding.ruleId, file_path: finding.filePath, purl: finding.purl };
    const by = matchable && rules.find((r) => r.matches(matchable));
    if (by) {
      arriving.push({ fingerprint, reason: by.rule.reason, comment: by.rule.comment, until: by.rule.expires_at, suppressionId: by.rule.id, vexUploadId: null });
      continue;
    }
    // A kept VEX statement that the vulnerability does not apply dismisses the finding it was waiting for.
    const statement = finding.purl === null ? undefined
      : said({ rule_id: finding.ruleId, aliases: finding.aliases ?? [], purl: finding.purl, package_version: finding.packageVersion });
    if (statement && DENYING.has(statement.status)) {
      arriving.push({ fingerprint, reason: statement.status, comment: commentOf(statement), until: null, suppressionId: null, vexUploadId: statement.upload_id });
    }
  }
  await store.replaceRuleHelp(analysisId, help);
  if (arriving.length > 0) {
    await store.addDismissals(upload.repository_id, arriving, at);
    for (const d of arriving) dismissed.add(d.fingerprint);
  }
  const existing = current ? await store.existingFindings(analysisId) : [];
  const { fixedTotalChange, packages, ...diff } = await trackFindings(store, upload, ref.id, analysisId, distinct, existing, dismissed, at, changes, meanwhile);
  Object.assign(counts, diff);
  const components = await syncComponents(store, upload, analysisId, parsed, current !== undefined);
  const open = zeroCounts();
  let dismissedHere = 0;
  for (const [fingerprint, finding] of incoming) {
    if (dismissed.has(fingerprint)) dismissedHere++;
    else open[finding.severity]++;
  }
  await store.updateAnalysis(analysisId, {
    tool_version: parsed.tool.version, last_upload_id: upload.id, completed_at: at,
    open_critical: open.critical, open_high: open.high, open_medium: open.medium, open_low: open.low, open_info: open.info,
    components: parsed.components.length, dismissed: dismissedHere,
    fixed_total: (current?.fixed_total ?? 0) + fixedTotalChange,
  });
  return { counts, packages, components };
}

/**
 * The analysis's components become the SBOM's. A component stored exactly as the SBOM states it
 * again keeps its row: its id, and `upload_id`, the upload that brought it as it is. Only what
 * changed is written. Most SBOM uploads are a CI run's unchanged dependencies, and writing all of
 * them again was most of their ingest (20,000 components: 0.43 of 0.75 s on SQLite), and on
 * PostgreSQL as many dead rows for vacuum to clear. Returns whether any arrived, changed or went.
 */
async function syncComponents(store: TrackingStore, upload: UploadRow, analysisId: string, parsed: NormalisedAnalysis, stored: boolean): Promise<boolean> {
  const dependsOn = new Map(parsed.dependencies.map((d) => [d.ref, d.dependsOn]));
  const rows = stored ? await store.storedComponents(analysisId) : [];
  const direct = directFlags(parsed.components, parsed.dependencies, parsed.roots ?? []);
  const { arriving, gone } = keptComponents(rows, parsed.components.map((c, i) => ({
    ref: c.ref, name: c.name, version: c.version, purl: c.purl, type: c.type,
    licenses: JSON.stringify(c.licenses), hashes: JSON.stringify(c.hashes),
    depends_on: JSON.stringify((c.ref !== null && dependsOn.get(c.ref)) || []),
    package_key: c.purl ? packageOfPurl(c.purl)?.key ?? null : null,
    direct: direct[i] === null ? null : direct[i] ? 1 : 0,
  })));
  if (gone.length > 0) await store.deleteComponents(analysisId, gone.length === rows.length ? null : gone);
  await store.insertComponents(arriving, (content) => ({
    id: newId(), repository_id: upload.repository_id, analysis_id: analysisId, upload_id: upload.id, ...content,
  }));
  return arriving.length > 0 || gone.length > 0;
}

/** Whether the analysis was last written by an upload made after this one. */
function supersedes(current: { last_upload_created_at: string | null } | undefined, upload: UploadRow): boolean {
  return Boolean(current?.last_upload_created_at && current.last_upload_created_at > upload.created_at);
}

/**
 * An SBOM that changed none of the ref's components meets the advisories as the ref's last match
 * did (an advisory that changed since queued a re-match of the ref), so that match stands: what
 * matching again would find is what the advisories analysis holds, each match unchanged, and the
 * analysis is marked as of this upload, as matching again would. With 100,000 advisories loaded, a
 * 20,000-component SBOM uploaded again (10,000 matches) took 1.07 s matched again, 0.63 s kept on
 * SQLite (PostgreSQL 0.79 and 0.57 s). Returns how many matches it holds.
 */
async function keptMatches(store: TrackingStore, upload: UploadRow, ref: RefRow): Promise<number> {
  const analysis = await store.analysis(ref.id, ADVISORIES.tool, ADVISORIES.category, ADVISORIES.format);
  if (!analysis) return 0;
  if (!supersedes(analysis, upload)) await store.updateAnalysis(analysis.id, { last_upload_id: upload.id, completed_at: now() });
  return analysis.open_critical + analysis.open_high + analysis.open_medium + analysis.open_low + analysis.open_info + analysis.dismissed;
}

/** What applying one analysis did: its counts, and whether a finding that names a package arrived, changed or changed state. */
interface Applied {
  counts: ImportCounts;
  /** The ref's vulnerability counts read only such findings: without any change to one, they stay as they were. */
  packages: boolean;
  /** Whether a component of the analysis arrived, changed or went. */
  components: boolean;
}

/**
 * New: open in the pull request and not open in the base's analysis of the same tool, category and
 * format. Fixed: open there and absent from the pull request. Only pull request uploads pay for it.
 */
async function compareWithBase(
  store: TrackingStore, base: RefRow | null, upload: UploadRow, format: ScanFormat, parsed: NormalisedAnalysis, incoming: Map<string, NormalisedFinding>,
  dismissed: ReadonlySet<string>,
): Promise<VsBase> {
  const baseAnalysis = base ? await store.analysis(base.id, parsed.tool.name, upload.category, format) : undefined;
  const baseOpen = new Set(baseAnalysis ? await store.openFingerprints(baseAnalysis.id) : []);
  let added = 0;
  for (const fingerprint of incoming.keys()) if (!baseOpen.has(fingerprint) && !dismissed.has(fingerprint)) added++;
  let fixed = 0;
  for (const fingerprint of baseOpen) if (!incoming.has(fingerprint)) fixed++;
  return { new: added, fixed };
}

/**
 * A dismissed fingerprint (`dismissed`: the repository's dismissals) comes in dismissed, whether new,
 * returning or open until now, and is counted neither new nor reopened; one that disappears is fixed
 * like any other but not counted as fixed by this upload, since nobody was waiting for it. Adds what
 * it opened, reopened and fixed to `changes`, per severity, so the gate needs no query to count them.
 * `packages`: whether a finding naming a package arrived, changed, or changed state.
 */
async function trackFindings(
  store: TrackingStore, upload: UploadRow, refId: string, analysisId: string,
  { findings: incoming, repeats }: DistinctFindings, existing: ExistingFinding[], dismissed: ReadonlySet<string>, at: string, changes: SeverityChanges,
  meanwhile?: () => void,
): Promise<Pick<ImportCounts, 'new' | 'fixed' | 'reopened' | 'unchanged'> & { fixedTotalChange: number; packages: boolean }> {
  const known = new Map(existing.map((f) => [f.fingerprint, f]));
  const gone = existing.filter((f) => f.state !== 'fixed' && !incoming.has(f.fingerprint));
  let packages = gone.some((f) => f.purl !== null);
  const fixedIds = gone.map((f) => f.id);
  const reopenedIds: string[] = [];
  const dismissedIds: string[] = [];
  const undismissedIds: string[] = [];
  const arrivals: Arrival[] = [];
  const changed: FindingDetails[] = [];
  const moved: FindingPlace[] = [];
  let unchanged = 0;
  let returnedDismissed = 0;
  for (const [fingerprint, finding] of incoming) {
    const before = known.get(fingerprint);
    const occurrences = repeats.get(fingerprint) ?? 1;
    const isDismissed = dismissed.has(fingerprint);
    if (!before) {
      arrivals.push({ fingerprint, finding, occurrences, state: isDismissed ? 'dismissed' : 'open' });
      packages ||= finding.purl !== null;
      continue;
    }
    const wasNamed = before.purl !== null;
    if (before.state === 'fixed' && !isDismissed) {
      reopenedIds.push(before.id);
      changes.reopened[finding.severity]++;
      packages ||= wasNamed;
    } else {
      unchanged++;
      if (before.state === 'fixed') returnedDismissed++;
      if (isDismissed && before.state !== 'dismissed') dismissedIds.push(before.id);
      if (!isDismissed && before.state === 'dismissed') undismissedIds.push(before.id);
      packages ||= wasNamed && isDismissed !== (before.state === 'dismissed');
    }
    const change = changeOf(before, finding, occurrences);
    if (change === 'details') {
      changed.push({ id: before.id, ...details(finding, occurrences), updated_at: at });
      packages ||= wasNamed || finding.purl !== null;
    } else if (change === 'place') {
      moved.push({ id: before.id, ...place(finding), updated_at: at });
    }
  }
  // Started before the writes, it goes on a slice at a time whenever they wait on the database.
  meanwhile?.();
  await store.insertFindings(arrivals, (arrival) => newFindingRow(upload, refId, analysisId, arrival, at));
  await store.updateDetails(analysisId, changed);
  await store.updatePlaces(analysisId, moved);
  await store.setState(fixedIds, { state: 'fixed', fixed_at: at, fixed_upload_id: upload.id, updated_at: at });
  await store.setState(reopenedIds, { state: 'open', fixed_at: null, fixed_upload_id: null, reopened_at: at, reopened_upload_id: upload.id, updated_at: at });
  await store.setState(dismissedIds, { state: 'dismissed', fixed_at: null, fixed_upload_id: null, updated_at: at });
  await store.setState(undismissedIds, { state: 'open', updated_at: at });
  const fixedOpen = gone.filter((f) => f.state === 'open');
  for (const f of fixedOpen) changes.fixed[f.severity as Severity]++;
  const opened = arrivals.filter((a) => a.state === 'open');
  for (const a of opened) changes.new[a.finding.severity]++;
  return {
    new: opened.length, fixed: fixedOpen.length, reopened: reopenedIds.length,
    unchanged: unchanged + arrivals.length - opened.length,
    fixedTotalChange: fixedIds.length - reopenedIds.length - returnedDismissed,
    packages,
  };
}

function details(f: NormalisedFinding, occurrences: number) {
  return {
    rule_name: f.ruleName, message: f.message, severity: f.severity, severity_rank: SEVERITY_RANK[f.severity],
    level: f.level, kind: f.kind, file_path: f.filePath, ...place(f),
    package_name: f.packageName, package_version: f.packageVersion, purl: f.purl, help_uri: f.helpUri,
    commit_sha: f.commitSha, occurrences, aliases: f.aliases ? JSON.stringify(f.aliases) : null, fixed_versions: fixedVersions(f),
  };
}

/** Where the finding is in the code: what changes when code moves. */
function place(f: NormalisedFinding) {
  return { start_line: f.startLine, end_line: f.endLine, locations: f.locations ? JSON.stringify(f.locations) : null, snippet: f.snippet };
}

/**
 * What a re-import changes of a finding it already has: nothing; only its place, when code moved
 * (most findings of a re-import after a refactor, each written with its place alone); or what the
 * tool says of it, written with all its details.
 */
function changeOf(before: ExistingFinding, f: NormalisedFinding, occurrences: number): 'none' | 'place' | 'details' {
  if (before.severity !== f.severity || before.message !== f.message || before.file_path !== f.filePath || before.rule_name !== f.ruleName
    || before.commit_sha !== f.commitSha || before.occurrences !== occurrences || before.fixed_versions !== fixedVersions(f)) return 'details';
  return before.start_line !== f.startLine || before.end_line !== f.endLine ? 'place' : 'none';
}

function fixedVersions(f: NormalisedFinding): string | null {
  return f.fixedVersions ? JSON.stringify(f.fixedVersions) : null;
}

/** A finding this analysis has not had before, and the state it arrives in; its row is built as it is written. */
interface Arrival {
  fingerprint: string;
  finding: NormalisedFinding;
  occurrences: number;
  state: 'open' | 'dismissed';
}

function newFindingRow(
  upload: UploadRow, refId: string, analysisId: string, { fingerprint, finding: f, occurrences, state }: Arrival, at: string,
): NewFinding {
  return {
    id: newId(), repository_id: upload.repository_id, ref_id: refId, analysis_id: analysisId, fingerprint, rule_id: f.ruleId,
    ...details(f, occurrences), state, first_upload_id: upload.id, created_at: at, updated_at: at, fixed_at: null, reopened_at: null,
    fixed_upload_id: null, reopened_upload_id: null,
  };
}
