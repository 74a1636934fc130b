import type { Actor } from '../auth/actor.js';
import type { RepoStatusRow, UploadRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import type { OrgAction } from '../policy.js';
import { badRequest, HttpProblem, notFound } from '../problem.js';
import { newId } from '../db/ids.js';
import type { RepoWithRole, RepoWithScan } from '../repos/store.js';
import { detectFormat, DetectError } from './detect.js';
import type { ReceivedUpload, UploadContext } from './upload-body.js';
import type { UploadStore } from './upload-store.js';
import type { FindingFilters, ResultsStore } from './results-store.js';
import type { Severity } from './parsers/types.js';

export interface VulnerabilityFilters {
  state: 'open' | 'dismissed' | 'fixed' | 'all';
  severity?: Severity;
  tool?: string;
}
import type { SettlementLog, SettlementWatch } from './settled.js';
import type { RefStore } from '../refs/store.js';
import { defaultBranch, refKey, requestedRef, sameRef, type RefName } from '../refs/ref-name.js';

/** The repository when the actor may do `action` to it; 404 naming `what` when not visible, 403 when not allowed. */
export type AuthorizedRepo = (actor: Actor, repoId: string, action: OrgAction, what?: string) => Promise<RepoWithScan>;
/** The same decision on a repository read with the actor's role by another query (undefined: none such). */
export type AdmitRepo = <R extends Pick<RepoWithRole, 'org_id' | 'member_role'>>(actor: Actor, repo: R | undefined, action: OrgAction, what?: string) => Promise<R>;

export interface ScanServiceDeps {
  uploads: UploadStore;
  results: ResultsStore;
  refs: RefStore;
  authorizedRepo: AuthorizedRepo;
  admitRepo: AdmitRepo;
  settlements: SettlementWatch;
  /**
   * Called once an upload's format is known, before it is stored (so before any worker can claim
   * it): its document goes to this instance's workers, which may start parsing it while it is
   * being stored.
   */
  onReceived(uploadId: string, format: string, content: Buffer<SharedArrayBuffer>): void;
  /** Called once an upload is stored, to wake a worker. */
  onAccepted(format: string): void;
}

export function scanService(deps: ScanServiceDeps) {
  const { uploads, results, refs, authorizedRepo, admitRepo } = deps;

  /** An upload is visible exactly when its repository is; otherwise 404 names the upload. */
  async function visibleUpload(actor: Actor, uploadId: string): Promise<UploadRow> {
    const upload = await uploads.byId(uploadId);
    if (!upload) throw notFound('The upload');
    await authorizedRepo(actor, upload.repository_id, 'scan.read', 'The upload');
    return upload;
  }

  /**
   * The ref a read names (the default branch when none) and its row. A branch, tag or pull request
   * without results is 404; the default branch without results reads as empty.
   */
  async function refOf(repo: RepoWithScan, raw: string | undefined) {
    const defaultRef = defaultBranch(repo.default_branch);
    const name = raw ? requestedRef(raw, 'ref') : defaultRef;
    const row = await refs.byName(repo.id, name);
    if (!row && !sameRef(name, defaultRef)) throw notFound(`The ref "${refKey(name)}" of this repository`);
    return { name, row, defaultRef };
  }

  return {
    /** Asked before the body is read, so that a refused upload costs nothing. */
    repoForUpload: (actor: Actor, repoId: string) => authorizedRepo(actor, repoId, 'scan.upload'),

    /**
     * Checks what can be known without parsing (empty, not a document at all, unknown format),
     * then stores the bytes. Problems that need a full parse fail the upload later, with a reason.
     */
    async accept(actor: Actor, repo: Pick<RepoWithScan, 'id' | 'default_branch'>, received: ReceivedUpload, context: UploadContext): Promise<UploadRow> {
      // CI variables such as GITHUB_BASE_REF are empty outside the events that set them: empty is absent.
      const ref = context.ref ? requestedRef(context.ref, 'ref') : defaultBranch(repo.default_branch);
      const base = context.base_ref ? requestedRef(context.base_ref, 'base_ref') : defaultBranch(repo.default_branch);
      if (base.kind !== 'branch') throw badRequest('base_ref names the branch a pull request targets.', [{ path: '/base_ref', message: 'must be a branch' }]);
      let format: string;
      try {
        format = detectFormat(received.content, { format: context.format, contentType: received.contentType }).format;
      } catch (error) {
        if (error instanceof DetectError) throw new HttpProblem(error.status, error.message);
        throw error;
      }
      const id = newId();
      deps.onReceived(id, format, received.content);
      const upload = await uploads.insert({
        id, repository_id: repo.id, format,
        size_bytes: received.content.length, sha256: received.sha256, category: context.category ?? '',
        commit_sha: context.commit_sha?.toLowerCase() ?? null, ref: context.ref || null,
        ref_kind: ref.kind, ref_name: ref.name, base_ref: ref.kind === 'pull_request' ? base.name : null,
        created_by: actor.user.id, api_key_id: actor.key?.id ?? null,
      }, received.content, received.gzip);
      deps.onAccepted(format);
      return upload;
    },

    visibleUpload,

    /** The upload once complete or failed, or as it stands after `seconds`, whichever comes first. */
    async settledUpload(actor: Actor, uploadId: string, seconds: number, log: SettlementLog): Promise<UploadRow> {
      const upload = await visibleUpload(actor, uploadId);
      if (seconds === 0 || isSettled(upload)) return upload;
      await deps.settlements.waitFor(uploadId, seconds * 1000, async () => {
        const current = await uploads.byId(uploadId);
        return !current || isSettled(current);
      }, log);
      return (await uploads.byId(uploadId)) ?? upload;
    },

    async uploads(actor: Actor, repoId: string, rawRef: string | undefined, page: Page) {
      await authorizedRepo(actor, repoId, 'scan.read');
      return uploads.page(repoId, page, rawRef ? requestedRef(rawRef, 'ref') : undefined);
    },

    /**
     * One query reads the repository with the caller's role, its status row, the ref's row and its
     * analyses. The default branch's status is the repository's status row; another ref's is its own.
     */
    async status(actor: Actor, repoId: string, rawRef: string | undefined) {
      let requested: RefName | null = null;
      if (rawRef) {
        try {
          requested = requestedRef(rawRef, 'ref');
        } catch (error) {
          // Whoever may not see the repository learns nothing more from a malformed ref: 404 first.
          await authorizedRepo(actor, repoId, 'scan.read');
          throw error;
        }
      }
      const repo = await admitRepo(actor, await results.status(actor.user.id, repoId, requested), 'scan.read');
      const defaultRef = defaultBranch(repo.default_branch);
      const name = requested ?? defaultRef;
      // Unnamed, the query took default_branch as stored for the ref's name; spelled otherwise
      // (refs/heads/x, or no branch at all), the branch it means is read by name.
      const read = requested || sameRef(defaultRef, { kind: 'branch', name: repo.default_branch || 'main' }) ? repo
        : await results.status(actor.user.id, repoId, defaultRef);
      if (!read) throw notFound('The repository');
      if (sameRef(name, defaultRef)) return { ref: name, baseRef: null, row: statusRowOf(repo), analyses: read.analyses };
      const row = read.refRow();
      if (!row) throw notFound(`The ref "${refKey(name)}" of this repository`);
      return { ref: name, baseRef: row.base_ref, row, analyses: read.analyses };
    },

    async findings(actor: Actor, repoId: string, rawRef: string | undefined, filters: Omit<FindingFilters, 'vsBase'>, vsBase: 'new' | 'fixed' | undefined, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { name, row, defaultRef } = await refOf(repo, rawRef);
      if (vsBase && name.kind !== 'pull_request') {
        throw badRequest('vs_base compares a pull request with its base branch; name one with ref=pr/N.', [{ path: '/vs_base', message: 'needs a pull request ref' }]);
      }
      if (!row) return { total: 0, items: [] };
      if (!vsBase) return results.findings(row.id, filters, page);
      if (filters.state !== 'open') {
        throw badRequest('vs_base lists open findings; leave state out or set it to open.', [{ path: '/state', message: 'must be open with vs_base' }]);
      }
      const base = await refs.byName(repo.id, { kind: 'branch', name: row.base_ref ?? defaultRef.name });
      return results.findings(row.id, { ...filters, vsBase: { compare: vsBase, baseRefId: base?.id ?? null } }, page);
    },

    /** The findings list grouped by vulnerability: one item per vulnerability and package, in the group's state. */
    async vulnerabilities(actor: Actor, repoId: string, rawRef: string | undefined, filters: VulnerabilityFilters, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { row } = await refOf(repo, rawRef);
      if (!row) return { total: 0, items: [] };
      const groups = (await results.vulnerabilityGroups(row.id)).filter((g) => (filters.state === 'all' || g.state === filters.state)
        && (!filters.severity || g.severity === filters.severity) && (!filters.tool || g.tools.includes(filters.tool)));
      return { total: groups.length, items: groups.slice(page.offset, page.offset + page.perPage) };
    },

    async components(actor: Actor, repoId: string, rawRef: string | undefined, q: string | undefined, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { row } = await refOf(repo, rawRef);
      if (!row) return { total: 0, items: [] };
      return results.components(repo.id, row.id, q, page);
    },
  };
}

function statusRowOf(repo: Omit<RepoWithScan, 'name' | 'name_key' | 'url' | 'created_at' | 'updated_at'>): RepoStatusRow | undefined {
  if (repo.state === null) return undefined;
  return {
    repository_id: repo.id, state: repo.state, last_upload_at: repo.last_upload_at, last_completed_at: repo.last_completed_at,
    open_critical: repo.open_critical ?? 0, open_high: repo.open_high ?? 0, open_medium: repo.open_medium ?? 0,
    open_low: repo.open_low ?? 0, open_info: repo.open_info ?? 0, components: repo.components ?? 0, vulnerabilities: repo.vulnerabilities,
  };
}

function isSettled(upload: UploadRow): boolean {
  return upload.status === 'complete' || upload.status === 'failed';
}
