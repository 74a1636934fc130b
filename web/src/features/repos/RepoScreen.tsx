import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { queryKeys } from '../../api/query-keys';
import type { ScanStatus } from '../../api/types';
import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { PageSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { StatusPill } from '../../components/StatusPill';
import { Tabs } from '../../components/Tabs';
import { Time } from '../../components/Time';
import { useSearchState } from '../../lib/use-search-state';
import { useUser } from '../auth/session';
import { invalidateResults, resultsChanged, useRepo, useRepoStatus, useUploads } from './api';
import { RepoOverview } from './RepoOverview';
import { FindingsTable } from './FindingsTable';
import { ComponentsTable } from './ComponentsTable';
import { UploadHistory } from './UploadHistory';
import { CiSetup } from './CiSetup';
import { RefSelect } from './RefSelect';
import { PullRequestVsBase } from './VsBase';
import { RepoPolicyPanel } from '../policies/RepoPolicyPanel';
import { FixFirst } from '../remediation/FixFirst';
import { DependencyChanges } from '../remediation/DependencyChanges';

const TABS = ['findings', 'fix', 'components', 'uploads', 'policy', 'upload'] as const;
type TabId = (typeof TABS)[number];

/** The route: a screen of its own per repository, so nothing typed or seen carries over to another. */
export function RepoRoute() {
  const id = useParams().repoId!;
  return <RepoScreen key={id} id={id} />;
}

function RepoScreen({ id }: { id: string }) {
  const user = useUser();
  const [query, setQuery] = useSearchState();
  const gitRef = query.get('ref') ?? '';
  const repo = useRepo(id);
  const status = useRepoStatus(id, gitRef, !repo.isError);
  const uploads = useUploads(id, status.data?.ref);
  useResultsFollowStatus(id, status.data);
  // Each tab keeps the ref shown: a link to it carries ?ref= along.
  const tabHref = (tab: TabId) => {
    const params = new URLSearchParams();
    if (tab !== 'findings') params.set('tab', tab);
    if (gitRef) params.set('ref', gitRef);
    const search = params.toString();
    return `/repos/${id}${search ? `?${search}` : ''}`;
  };

  const requested = query.get('tab');
  const neverScanned = status.data?.state === 'never_scanned';
  const tab: TabId = (TABS as readonly string[]).includes(requested ?? '') ? requested as TabId : neverScanned ? 'upload' : 'findings';
  const scan = {
    data: status.data && uploads.data ? { status: status.data, ...uploads.data } : undefined,
    error: status.error ?? uploads.error,
    refetch: () => Promise.all([status.refetch(), uploads.refetch()]),
  };

  return (
    <Loaded query={repo} skeleton={<PageSkeleton label="Loading the repository…" cards={3} />} notFound={<NotFound what="repository" />}>
      {(r) => {
        const org = user.orgs.find((o) => o.id === r.org_id);
        const canManage = user.is_admin || org?.role === 'owner';
        return (
          <>
            <PageHeader
              title={r.name}
              eyebrow={<><Link to="/">Dashboard</Link> <span aria-hidden="true">/</span> <Link to={`/orgs/${r.org_id}`}>{org?.name ?? 'Organization'}</Link></>}
              badge={status.data && <StatusPill state={status.data.state} />}
            >
              <p className="meta-line">
                {r.url && <a href={r.url} rel="noreferrer noopener" target="_blank">{r.url.replace(/^https?:\/\//, '')}</a>}
                {r.default_branch && <span>Default branch <code>{r.default_branch}</code></span>}
                {status.data && <span>Last upload <Time iso={status.data.last_upload_at} fallback="never" /></span>}
              </p>
            </PageHeader>
            <div className="toolbar ref-bar">
              <RefSelect repoId={id} value={gitRef} onChange={(ref) => setQuery({ ref, page: null, vs_base: null })} />
            </div>
            <Loaded query={scan} skeleton={<PageSkeleton label="Loading scan results…" cards={3} />} notFound={<NoSuchRef repoId={id} gitRef={gitRef} />}>
              {({ status: current, uploads: list, total }) => (
                <>
                  {current.ref_kind === 'pull_request' && <PullRequestVsBase repoId={id} status={current} />}
                  {current.ref_kind === 'pull_request' && <DependencyChanges repoId={id} status={current} base={current.base_ref ?? r.default_branch ?? 'main'} />}
                  <RepoOverview repoId={id} status={current} uploads={list} canManage={canManage} />
                  <Tabs
                    label="Repository sections"
                    current={tab}
                    tabs={[
                      { id: 'findings', label: 'Findings', count: current.findings.open, href: tabHref('findings') },
                      { id: 'fix', label: 'Fix first', href: tabHref('fix') },
                      { id: 'components', label: 'Components', count: current.components, href: tabHref('components') },
                      { id: 'uploads', label: 'Uploads', count: total, href: tabHref('uploads') },
                      { id: 'policy', label: 'Policy and gate', shortLabel: 'Gate', href: tabHref('policy') },
                      { id: 'upload', label: 'Upload from CI', shortLabel: 'CI setup', href: tabHref('upload') },
                    ]}
                  />
                  {tab === 'findings' && <FindingsTable repoId={id} status={current} />}
                  {tab === 'fix' && <FixFirst repoId={id} gitRef={gitRef} />}
                  {tab === 'components' && <ComponentsTable repoId={id} gitRef={gitRef} />}
                  {tab === 'uploads' && <UploadHistory uploads={list} total={total} />}
                  {tab === 'policy' && <RepoPolicyPanel repoId={id} orgId={r.org_id} canManage={canManage} />}
                  {tab === 'upload' && <CiSetup repo={r} orgName={org?.name} canManage={canManage} neverScanned={current.state === 'never_scanned'} />}
                </>
              )}
            </Loaded>
          </>
        );
      }}
    </Loaded>
  );
}

/** A ?ref= with no results: never uploaded, or removed after a time without uploads. */
function NoSuchRef({ repoId, gitRef }: { repoId: string; gitRef: string }) {
  return (
    <EmptyState title="No results for this branch or pull request">
      <p>Nothing was uploaded for <code>{gitRef}</code>, or its results were removed after a time without uploads. <Link to={`/repos/${repoId}`}>Show the default branch</Link>.</p>
    </EmptyState>
  );
}

/**
 * The status is polled (api.ts); when it shows a new upload or a finished one, the results it
 * changed are read again, wherever they are shown, and so is the dashboard's picture.
 */
function useResultsFollowStatus(repoId: string, status: ScanStatus | undefined) {
  const client = useQueryClient();
  const previous = useRef(status);
  useEffect(() => {
    const before = previous.current;
    previous.current = status;
    if (!before || !status || !resultsChanged(before, status)) return;
    void invalidateResults(client, repoId);
    void client.invalidateQueries({ queryKey: queryKeys.dashboard });
  }, [client, repoId, status]);
}
