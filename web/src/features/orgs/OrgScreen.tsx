import { Link, useParams } from 'react-router';
import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { PageSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { Tabs, type Tab } from '../../components/Tabs';
import { useSearchState } from '../../lib/use-search-state';
import { useUser } from '../auth/session';
import { OrgAuditLog } from '../audit/OrgAuditLog';
import { OrgPolicyPanel } from '../policies/OrgPolicyPanel';
import { SuppressionsPanel } from '../suppressions/SuppressionsPanel';
import { CiTrustPanel } from '../ci-trust/CiTrustPanel';
import { WebhooksPanel } from '../webhooks/WebhooksPanel';
import { ForgePanel } from '../forge/ForgePanel';
import { useMembers, useOrg, useTeams } from './api';
import { RepoList } from './RepoList';
import { TeamList } from './TeamList';
import { MemberList } from './MemberList';
import { MetricsPanel } from '../metrics/MetricsPanel';

type TabId = 'repos' | 'metrics' | 'teams' | 'members' | 'policy' | 'suppressions' | 'ci' | 'forge' | 'webhooks' | 'audit';

/** The route: a screen of its own per organization, so nothing typed or opened carries over to another. */
export function OrgRoute() {
  const id = useParams().orgId!;
  return <OrgScreen key={id} id={id} />;
}

function OrgScreen({ id }: { id: string }) {
  const user = useUser();
  const [query] = useSearchState();
  const org = useOrg(id);
  const role = user.orgs.find((o) => o.id === id)?.role;
  const canManage = role === 'owner' || user.is_admin;
  // The tab counts come from the same queries the tabs show, so they agree and refresh together.
  const members = useMembers(id);
  const teams = useTeams(id);

  const tabs: (Tab & { id: TabId })[] = [
    { id: 'repos', label: 'Repositories', shortLabel: 'Repos', href: `/orgs/${id}`, count: org.data?.repo_count },
    { id: 'metrics', label: 'Metrics', href: `/orgs/${id}?tab=metrics` },
    { id: 'teams', label: 'Teams', href: `/orgs/${id}?tab=teams`, count: teams.data?.total },
    { id: 'members', label: 'Members', href: `/orgs/${id}?tab=members`, count: members.data?.length },
    { id: 'policy', label: 'Policy', href: `/orgs/${id}?tab=policy` },
    { id: 'suppressions', label: 'Suppressions', shortLabel: 'Rules', href: `/orgs/${id}?tab=suppressions` },
    { id: 'ci', label: 'CI trust', shortLabel: 'CI', href: `/orgs/${id}?tab=ci` },
    { id: 'forge', label: 'Forge', href: `/orgs/${id}?tab=forge` },
    ...(canManage ? [
      { id: 'webhooks' as const, label: 'Webhooks', shortLabel: 'Hooks', href: `/orgs/${id}?tab=webhooks` },
      { id: 'audit' as const, label: 'Audit log', shortLabel: 'Audit', href: `/orgs/${id}?tab=audit` },
    ] : []),
  ];
  const tab = tabs.find((t) => t.id === query.get('tab'))?.id ?? 'repos';

  return (
    <Loaded query={org} skeleton={<PageSkeleton label="Loading the organization…" />} notFound={<NotFound what="organization" />}>
      {(data) => (
        <>
          <PageHeader
            title={data.name}
            eyebrow={<><Link to="/">Dashboard</Link> <span aria-hidden="true">/</span> Organization</>}
            badge={<span className="tag">{role === 'owner' ? 'Owner' : role === 'member' ? 'Member' : 'Administrator'}</span>}
          >
            {data.description && <p className="lede">{data.description}</p>}
          </PageHeader>
          <Tabs label="Organization sections" current={tab} tabs={tabs} />
          {tab === 'repos' && <RepoList orgId={id} canManage={canManage} />}
          {tab === 'metrics' && <MetricsPanel orgId={id} />}
          {tab === 'teams' && <TeamList orgId={id} canManage={canManage} />}
          {tab === 'members' && <MemberList orgId={id} canManage={canManage} currentUserId={user.id} />}
          {tab === 'policy' && <OrgPolicyPanel orgId={id} canManage={canManage} />}
          {tab === 'suppressions' && <SuppressionsPanel orgId={id} canManage={canManage} />}
          {tab === 'ci' && <CiTrustPanel orgId={id} canManage={canManage} />}
          {tab === 'forge' && <ForgePanel orgId={id} canManage={canManage} />}
          {tab === 'webhooks' && <WebhooksPanel orgId={id} />}
          {tab === 'audit' && <OrgAuditLog orgId={id} />}
        </>
      )}
    </Loaded>
  );
}
