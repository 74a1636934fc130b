import { Link, useParams } from 'react-router';
import type { Upload } from '../../api/types';
import { NotFound } from '../../components/NotFound';
import { Card } from '../../components/Card';
import { PageHeader } from '../../components/PageHeader';
import { Pagination } from '../../components/Pagination';
import { PageSkeleton, TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { StatusPill } from '../../components/StatusPill';
import { Tabs } from '../../components/Tabs';
import { formatBytes, formatDateTime, plural } from '../../lib/format';
import { pageParam, useSearchState } from '../../lib/use-search-state';
import { useFindings, useRepo, useUpload } from './api';
import { FindingRows } from './FindingsTable';
import { FORMAT_LABEL } from './UploadHistory';
import { VsBaseNotice } from './VsBase';
import { GatePill, GateViolations } from '../policies/Gate';

const REF_KIND_LABEL: Record<Upload['ref_kind'], string> = { branch: 'Branch', pull_request: 'Pull request', tag: 'Tag' };

const LISTS = [
  { id: 'new', label: 'New', filter: 'introducedIn', empty: 'This upload reported no finding for the first time.' },
  { id: 'reopened', label: 'Reopened', filter: 'reopenedIn', empty: 'This upload reported none of the fixed findings again.' },
  { id: 'fixed', label: 'Fixed', filter: 'fixedIn', empty: 'No finding disappeared with this upload (or each came back later).' },
] as const;
type ListId = (typeof LISTS)[number]['id'];

/** What one upload changed: the findings it introduced, reopened and fixed, each its own list. */
export function UploadRoute() {
  const { repoId, uploadId } = useParams() as { repoId: string; uploadId: string };
  return <UploadScreen key={uploadId} repoId={repoId} uploadId={uploadId} />;
}

function UploadScreen({ repoId, uploadId }: { repoId: string; uploadId: string }) {
  const repo = useRepo(repoId);
  const upload = useUpload(uploadId);
  const [query, setQuery] = useSearchState();
  const list = LISTS.find((l) => l.id === query.get('list')) ?? LISTS[0];
  // Back to the uploads of this upload's ref, once it is known.
  const ref = upload.data?.ref;
  const back = { to: `/repos/${repoId}?tab=uploads${ref ? `&ref=${encodeURIComponent(ref)}` : ''}`, label: 'Back to the uploads' };

  return (
    <Loaded query={upload} skeleton={<PageSkeleton label="Loading the upload…" />} notFound={<NotFound what="upload" back={back} />}>
      {(u) => u.repository_id !== repoId ? <NotFound what="upload" back={back} /> : (
        <>
          <PageHeader
            title={`Upload of ${formatDateTime(u.created_at)}`}
            eyebrow={<><Link to={`/repos/${repoId}`}>{repo.data?.name ?? 'Repository'}</Link> <span aria-hidden="true">/</span> <Link to={back.to}>Uploads</Link></>}
            badge={<StatusPill state={u.status} />}
          >
            <p className="meta-line">
              <span>{FORMAT_LABEL[u.format] ?? u.format}{u.tools.length > 0 && ` from ${u.tools.join(', ')}`}{u.category && <> · <code>{u.category}</code></>}</span>
              <span>{REF_KIND_LABEL[u.ref_kind]} <code>{u.ref}</code>{u.base_ref && <> into <code>{u.base_ref}</code></>}</span>
              {u.commit_sha && <span>Commit <code title={u.commit_sha}>{u.commit_sha.slice(0, 10)}</code></span>}
              <span>{formatBytes(u.size_bytes)}</span>
            </p>
          </PageHeader>
          {u.gate && (
            <Card id="gate-title" title="Gate" className="section" aside={<GatePill status={u.gate.status} />}>
              <GateViolations gate={u.gate} caption="What the gate found in this upload" />
            </Card>
          )}
          {u.vs_base && <VsBaseNotice repoId={repoId} gitRef={u.ref} baseRef={u.base_ref} counts={u.vs_base} />}
          {u.status === 'failed' && <div className="notice notice-error" role="alert"><strong>Processing failed.</strong> {u.error ?? 'No reason was recorded.'}</div>}
          {u.status === 'complete' ? (
            <>
              <Tabs
                label="What this upload changed"
                current={list.id}
                tabs={LISTS.map((l) => ({ id: l.id, label: l.label, count: countOf(u, l.id), href: `/repos/${repoId}/uploads/${uploadId}${l.id === 'new' ? '' : `?list=${l.id}`}` }))}
              />
              <p className="hint">{plural(u.counts.unchanged, 'finding was', 'findings were')} reported again unchanged; {plural(u.counts.components, 'component was', 'components were')} read.</p>
              <ChangedFindings repoId={repoId} uploadId={uploadId} list={list} page={pageParam(query)} onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
            </>
          ) : u.status !== 'failed' && <TableSkeleton label="Processing the upload…" rows={2} />}
        </>
      )}
    </Loaded>
  );
}

function countOf(u: Upload, list: ListId): number {
  return list === 'new' ? u.counts.new : list === 'reopened' ? u.counts.reopened : u.counts.fixed;
}

function ChangedFindings({ repoId, uploadId, list, page, onPage }: {
  repoId: string;
  uploadId: string;
  list: (typeof LISTS)[number];
  page: number;
  onPage: (page: number) => void;
}) {
  const findings = useFindings(repoId, { page, state: 'all', severity: '', tool: '', q: '', [list.filter]: uploadId });
  return (
    <Loaded query={findings} skeleton={<TableSkeleton label="Loading findings…" />}>
      {({ rows, info }) => rows.length === 0 ? <EmptyState title={`No ${list.label.toLowerCase()} findings`}><p>{list.empty}</p></EmptyState> : (
        <>
          <FindingRows rows={rows} caption={`${list.label} findings of this upload`} />
          <Pagination info={info} label={`${list.label} findings`} onPage={onPage} />
        </>
      )}
    </Loaded>
  );
}
