import type { Actor } from '../domain/actor.js';
import type { UploadRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import { badRequest, HttpProblem, notFound } from '../problem.js';
import { newId } from '../db/ids.js';
import type { RepoWithScan } from '../repos/store.js';
import type { AuthorizedRepo } from '../repos/service.js';
import { detectFormat, DetectError } from './detect.js';
import type { ReceivedUpload, UploadContext } from '../bodies/upload-body.js';
import type { UploadStore } from './upload-store.js';
import type { SettlementLog, SettlementWatch } from './settled.js';
import { defaultBranch, requestedRef } from '../domain/ref-name.js';
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
    if (!upload) throw notFound('The upload');
    await authorizedRepo(actor, upload.repository_id, 'scan.read', 'The upload');
    return upload;
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
      let upload: UploadRow;
      try {
        upload = await uploads.insert({
          id, repository_id: repo.id, format,
          size_bytes: received.content.length, sha256: received.sha256, category: context.category ?? '',
          commit_sha: context.commit_sha?.toLowerCase() ?? null, ref: context.ref || null,
          ref_kind: ref.kind, ref_name: ref.name, base_ref: ref.kind === 'pull_request' ? base.name : null,
          created_by: actor.user.id, api_key_id: actor.key?.id ?? null,
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

function isSettled(upload: UploadRow): boolean {
  return upload.status === 'complete' || upload.status === 'failed';
}
