import type { Actor } from '../domain/actor.js';
import type { UploadRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import { badRequest, conflict, HttpProblem, notFound } from '../problem.js';
import { newId } from '../db/ids.js';
import type { RepoWithScan } from '../repos/store.js';
import type { AuthorizedRepo } from '../repos/service.js';
import { detectFormat, DetectError } from './detect.js';
import type { ReceivedUpload, UploadContext } from '../bodies/upload-body.js';
import type { UploadStore } from './upload-store.js';
import type { SettlementLog, SettlementWatch } from './settled.js';
import { defaultBranch, requestedRef, sameRef, type RefName } from '../domain/ref-name.js';
import type { CiGrant } from '../domain/actor.js';
import { BlobUnavailableError } from '../blobs/index.js';

export interface ScanServiceDeps {
  uploads: UploadStore;
  authorizedRepo: AuthorizedRepo;
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
  const { uploads, authorizedRepo } = deps;

  /** An upload is visible exactly when its repository is; otherwise 404 names the upload. */
  async function visibleUpload(actor: Actor, uploadId: string): Promise<UploadRow> {
    const upload = await uploads.byId(uploadId);
    // A CI token reads the uploads it made, not the repository's others.
    if (!upload || (actor.ci && upload.ci_token_id !== actor.ci.tokenId)) throw notFound('The upload');
    await authorizedRepo(actor, upload.repository_id, 'scan.read', 'The upload');
    return upload;
  }

  return {
    /** Asked before the body is read, so that a refused upload costs nothing. */
    async repoForUpload(actor: Actor, repoId: string) {
      const repo = await authorizedRepo(actor, repoId, 'scan.upload');
      // Archived on the forge it follows: read-only there, so results for it would be about code nobody changes.
      if (repo.archived) throw new HttpProblem(409, `The repository ${repo.full_name ?? repo.name} is archived on its forge; it takes no uploads until it is unarchived there.`);
      return repo;
    },

    /**
     * Checks what can be known without parsing (empty, not a document at all, unknown format),
     * then stores the bytes. Problems that need a full parse fail the upload later, with a reason.
     */
    async accept(actor: Actor, repo: Pick<RepoWithScan, 'id' | 'default_branch'>, received: ReceivedUpload, context: UploadContext): Promise<UploadRow> {
      if (actor.ci) context = fixedByCiToken(actor.ci, context);
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
      let upload: UploadRow;
      try {
        upload = await uploads.insert({
          id, repository_id: repo.id, format,
          size_bytes: received.content.length, sha256: received.sha256, category: context.category ?? '',
          commit_sha: context.commit_sha?.toLowerCase() ?? null, ref: context.ref || null,
          head_sha: context.head_sha?.toLowerCase() || null, base_sha: context.base_sha?.toLowerCase() || null,
          ref_kind: ref.kind, ref_name: ref.name, base_ref: ref.kind === 'pull_request' ? base.name : null,
          // A CI token is nobody's account: the upload names the token instead.
          created_by: actor.ci ? null : actor.user.id, api_key_id: actor.ci ? null : actor.key?.id ?? null, ci_token_id: actor.ci?.tokenId ?? null,
        }, received.content, received.gzip);
      } catch (error) {
        // Nothing was recorded: the pipeline sends it again later (Retry-After), and loses nothing.
        if (error instanceof BlobUnavailableError) {
          const problem = new HttpProblem(503, 'The object store that keeps uploads could not be reached; nothing was stored. Send the upload again later.', { headers: { 'retry-after': '30' } });
          problem.cause = error;
          throw problem;
        }
        throw error;
      }
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

  };
}

/**
 * A CI token's upload belongs to the ref and commit its job token named: a query that says
 * otherwise is refused (409 naming both), so a pull request's job cannot write the default branch.
 * A merge request pipeline's token (GitLab) names the source branch and not the merge request: it
 * may name a pull request ref instead, never another branch or a tag.
 */
function fixedByCiToken(ci: CiGrant, context: UploadContext): UploadContext {
  const fixed: RefName = requestedRef(ci.ref, 'ref');
  if (context.ref) {
    const asked = requestedRef(context.ref, 'ref');
    const mergeRequest = ci.event === 'pull_request' && fixed.kind === 'branch' && asked.kind === 'pull_request';
    if (!sameRef(asked, fixed) && !mergeRequest) throw conflict(`ref ${context.ref} contradicts the CI token, which was issued for ${ci.ref}.`);
  }
  if (context.commit_sha && ci.commitSha && !ci.commitSha.startsWith(context.commit_sha.toLowerCase())) {
    throw conflict(`commit_sha ${context.commit_sha} contradicts the CI token, which was issued for commit ${ci.commitSha}.`);
  }
  if (context.base_ref && ci.baseRef) {
    if (!sameRef(requestedRef(context.base_ref, 'base_ref'), requestedRef(ci.baseRef, 'base_ref'))) {
      throw conflict(`base_ref ${context.base_ref} contradicts the CI token, which was issued for base ${ci.baseRef}.`);
    }
  }
  return {
    ...context,
    ref: context.ref || ci.ref,
    commit_sha: ci.commitSha ?? context.commit_sha,
    base_ref: ci.baseRef ?? context.base_ref,
  };
}

function isSettled(upload: UploadRow): boolean {
  return upload.status === 'complete' || upload.status === 'failed';
}
