import { api, call } from '../../api/client';
import type { ScanStatus, Upload } from '../../api/types';
import { PageHeader } from '../../components/PageHeader';
import { Loaded } from '../../components/States';
import { StatusPill } from '../../components/StatusPill';
import { Tabs } from '../../components/Tabs';
import { Time } from '../../components/Time';
import { isInProgress } from '../../lib/scan-state';
import { useInterval, useResource } from '../../lib/useResource';
import { Link, useLocation } from '../../router';
import { useUser } from '../../session';
import { RepoOverview } from './RepoOverview';
import { FindingsTable } from './FindingsTable';
import { ComponentsTable } from './ComponentsTable';
import { UploadHistory } from './UploadHistory';
import { CurlCommand } from './CurlCommand';

const TABS = ['findings', 'components', 'uploads', 'upload'] as const;
type TabId = (typeof TABS)[number];
const POLL_MS = 2000;

export function RepoScreen({ id }: { id: string }) {
  const user = useUser();
  const { query } = useLocation();
  const repo = useResource(async (signal) => (await call(api.GET('/api/v1/repos/{id}', { params: { path: { id } }, signal }))).data, id);
  const scan = useResource(async (signal): Promise<{ status: ScanStatus; uploads: Upload[]; uploadTotal: number }> => {
    const [status, uploads] = await Promise.all([
      call(api.GET('/api/v1/repos/{id}/status', { params: { path: { id } }, signal })),
      call(api.GET('/api/v1/repos/{id}/uploads', { params: { path: { id }, query: { per_page: 100 } }, signal })),
    ]);
    return {
      status: status.data,
      uploads: uploads.data,
      uploadTotal: Number(uploads.response.headers.get('x-total-count') ?? uploads.data.length),
    };
  }, id);
  const waiting = scan.data ? isInProgress(scan.data.status.state) || scan.data.uploads.some((u) => isInProgress(u.status)) : false;
  useInterval(scan.reload, POLL_MS, waiting && !scan.loading);

  const requested = query.get('tab');
  const neverScanned = scan.data?.status.state === 'never_scanned';
  const tab: TabId = (TABS as readonly string[]).includes(requested ?? '') ? requested as TabId : neverScanned ? 'upload' : 'findings';

  return (
    <Loaded resource={repo} label="Loading the repository…">
      {(r) => {
        const org = user.orgs.find((o) => o.id === r.org_id);
        // Tables reload when a new upload completes.
        const version = `${scan.data?.status.last_completed_at ?? ''}|${scan.data?.status.components ?? ''}|${scan.data?.status.findings.open ?? ''}`;
        return (
          <>
            <PageHeader
              title={r.name}
              eyebrow={<><Link to="/">Dashboard</Link> <span aria-hidden="true">/</span> <Link to={`/orgs/${r.org_id}`}>{org?.name ?? 'Organization'}</Link></>}
              badge={scan.data && <StatusPill state={scan.data.status.state} />}
            >
              <p className="meta-line">
                {r.url && <a href={r.url} rel="noreferrer noopener" target="_blank">{r.url.replace(/^https?:\/\//, '')}</a>}
                {r.default_branch && <span>Default branch <code>{r.default_branch}</code></span>}
                {scan.data && <span>Last upload <Time iso={scan.data.status.last_upload_at} fallback="never" /></span>}
              </p>
            </PageHeader>
            <Loaded resource={scan} label="Loading scan results…">
              {({ status, uploads, uploadTotal }) => (
                <>
                  <RepoOverview status={status} uploads={uploads} />
                  <Tabs
                    label="Repository sections"
                    current={tab}
                    tabs={[
                      { id: 'findings', label: 'Findings', count: status.findings.open, href: `/repos/${id}` },
                      { id: 'components', label: 'Components', count: status.components, href: `/repos/${id}?tab=components` },
                      { id: 'uploads', label: 'Uploads', count: uploadTotal, href: `/repos/${id}?tab=uploads` },
                      { id: 'upload', label: 'Upload from CI', shortLabel: 'CI setup', href: `/repos/${id}?tab=upload` },
                    ]}
                  />
                  {tab === 'findings' && <FindingsTable repoId={id} status={status} version={version} />}
                  {tab === 'components' && <ComponentsTable repoId={id} version={version} />}
                  {tab === 'uploads' && <UploadHistory uploads={uploads} total={uploadTotal} />}
                  {tab === 'upload' && <CurlCommand repoId={id} neverScanned={status.state === 'never_scanned'} />}
                </>
              )}
            </Loaded>
          </>
        );
      }}
    </Loaded>
  );
}
