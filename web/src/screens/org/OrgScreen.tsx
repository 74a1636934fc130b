import { api, call } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { Loaded } from '../../components/States';
import { Tabs } from '../../components/Tabs';
import { useResource } from '../../lib/useResource';
import { Link, useLocation } from '../../router';
import { useUser } from '../../session';
import { RepoList } from './RepoList';
import { TeamList } from './TeamList';
import { MemberList } from './MemberList';

const TABS = [
  { id: 'repos', label: 'Repositories' },
  { id: 'teams', label: 'Teams' },
  { id: 'members', label: 'Members' },
] as const;
type TabId = (typeof TABS)[number]['id'];

export function OrgScreen({ id }: { id: string }) {
  const user = useUser();
  const { query } = useLocation();
  const tab: TabId = TABS.find((t) => t.id === query.get('tab'))?.id ?? 'repos';
  const org = useResource(async (signal) => (await call(api.GET('/api/v1/orgs/{id}', { params: { path: { id } }, signal }))).data, id);
  const role = user.orgs.find((o) => o.id === id)?.role;
  const canManage = role === 'owner' || user.is_admin;

  return (
    <Loaded resource={org} label="Loading the organization…">
      {(data) => (
        <>
          <PageHeader
            title={data.name}
            eyebrow={<><Link to="/">Dashboard</Link> <span aria-hidden="true">/</span> Organization</>}
            badge={<span className="tag">{role === 'owner' ? 'Owner' : role === 'member' ? 'Member' : 'Administrator'}</span>}
          >
            {data.description && <p className="lede">{data.description}</p>}
          </PageHeader>
          <Tabs
            label="Organization sections"
            current={tab}
            tabs={TABS.map((t) => ({ id: t.id, label: t.label, href: `/orgs/${id}${t.id === 'repos' ? '' : `?tab=${t.id}`}`, ...(t.id === 'repos' ? { count: data.repo_count } : {}) }))}
          />
          {tab === 'repos' && <RepoList orgId={id} canManage={canManage} />}
          {tab === 'teams' && <TeamList orgId={id} canManage={canManage} />}
          {tab === 'members' && <MemberList orgId={id} canManage={canManage} currentUserId={user.id} />}
        </>
      )}
    </Loaded>
  );
}
