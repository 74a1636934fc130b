import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Actor } from '../auth/actor.js';
import type { RepoStatusRow, UploadRow } from '../db/schema.js';
import type { RepoWithScan } from '../repos/store.js';
import type { Page } from '../http/pagination.js';
import { badRequest, HttpProblem, notFound } from '../http/problem.js';
import { newId } from '../db/ids.js';
import { detectFormat, DetectError } from './detect.js';
import type { ReceivedUpload } from './upload-body.js';
import type { UploadStore } from './upload-store.js';
import type { FindingFilters, ResultsStore } from './results-store.js';
import { UploadQuery } from './routes-schema.js';

export interface ScanServiceDeps {
  uploads: UploadStore;
  results: ResultsStore;
  /** The repository if the actor may see it (and so upload to it); 404 otherwise. */
  visibleRepo(actor: Actor, repoId: string): Promise<RepoWithScan>;
  /** Called once an upload is stored, to wake a worker. */
  onAccepted(format: string): void;
}

export function scanService(deps: ScanServiceDeps) {
  const { uploads, results, visibleRepo } = deps;
  return {
    repoForUpload: visibleRepo,

    /**
     * Checks what can be known without parsing (empty, not a document at all, unknown format),
     * then stores the bytes. Problems that need a full parse fail the upload later, with a reason.
     */
    async accept(actor: Actor, repositoryId: string, received: ReceivedUpload, query: Static<typeof UploadQuery>): Promise<UploadRow> {
      const context = { ...received.fields, ...definedOnly(query) };
      if (!Value.Check(UploadQuery, context)) {
        const errors = [...Value.Errors(UploadQuery, context)].map((e) => ({ path: `/fields${e.instancePath}`, message: e.message }));
        throw badRequest('The upload context is not valid.', errors);
      }
      let format: string;
      try {
        format = detectFormat(received.content, { format: context.format, contentType: received.contentType }).format;
      } catch (error) {
        if (error instanceof DetectError) throw new HttpProblem(error.status, error.message);
        throw error;
      }
      const upload = await uploads.insert({
        id: newId(), repository_id: repositoryId, format,
        sha256: createHash('sha256').update(received.content).digest('hex'),
        size_bytes: received.content.length, category: context.category ?? '',
        commit_sha: context.commit_sha ?? null, ref: context.ref ?? null,
        created_by: actor.user.id, api_key_id: actor.key?.id ?? null,
      }, received.content);
      deps.onAccepted(format);
      return upload;
    },

    async visibleUpload(actor: Actor, uploadId: string): Promise<UploadRow> {
      const upload = await uploads.byId(uploadId);
      if (!upload) throw notFound('The upload');
      await visibleRepo(actor, upload.repository_id).catch(() => {
        throw notFound('The upload');
      });
      return upload;
    },

    async uploads(actor: Actor, repoId: string, page: Page) {
      await visibleRepo(actor, repoId);
      return uploads.page(repoId, page);
    },

    /** The repository read already brought its status row; only the analyses are left to read. */
    async status(actor: Actor, repoId: string) {
      const repo = await visibleRepo(actor, repoId);
      return { row: statusRowOf(repo), analyses: await results.analyses(repoId) };
    },

    async findings(actor: Actor, repoId: string, filters: FindingFilters, page: Page) {
      await visibleRepo(actor, repoId);
      return results.findings(repoId, filters, page);
    },

    async components(actor: Actor, repoId: string, q: string | undefined, page: Page) {
      await visibleRepo(actor, repoId);
      return results.components(repoId, q, page);
    },
  };
}
export type ScanService = ReturnType<typeof scanService>;

function statusRowOf(repo: RepoWithScan): RepoStatusRow | undefined {
  if (repo.state === null) return undefined;
  return {
    repository_id: repo.id, state: repo.state, last_upload_at: repo.last_upload_at, last_completed_at: repo.last_completed_at,
    open_critical: repo.open_critical ?? 0, open_high: repo.open_high ?? 0, open_medium: repo.open_medium ?? 0,
    open_low: repo.open_low ?? 0, open_info: repo.open_info ?? 0, components: repo.components ?? 0,
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
