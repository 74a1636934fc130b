import { useState } from 'react';
import { PageHeader } from '../../components/PageHeader';
import { PageSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { useUser } from '../auth/session';
import { CreateOrgForm } from '../orgs/CreateOrgForm';
import { useInventoryOnly, useOverview } from './api';
import { SummaryCards } from './SummaryCards';
import { AttentionList } from './AttentionList';
import { QuietRepos } from './QuietRepos';
import { TopAdvisories } from './TopAdvisories';
import { OrgCards } from './OrgCards';

export function DashboardScreen() {
  const user = useUser();
  const [creating, setCreating] = useState(false);
  const overview = useOverview(user.orgs);
  const inventory = useInventoryOnly(overview.data);
  const newOrg = (
    <button type="button" className="button" onClick={() => setCreating(true)} aria-expanded={creating}>New organization</button>
  );

  if (user.orgs.length === 0) {
    return (
      <>
        <PageHeader title="Dashboard" />
        <EmptyState title="You are not in any organization yet">
          <p>
            Organizations hold repositories and the people who see their scan results. Create one, or ask an
            owner of an existing one to add you.
          </p>
        </EmptyState>
        <CreateOrgForm />
      </>
    );
  }

  return (
    <>
      <PageHeader title="Dashboard" actions={creating ? undefined : newOrg}>
        <p className="lede">Open findings across your {user.orgs.length === 1 ? 'organization' : `${user.orgs.length} organizations`}, most urgent first.</p>
      </PageHeader>
      {creating && <CreateOrgForm onCancel={() => setCreating(false)} />}
      <Loaded query={overview} skeleton={<PageSkeleton label="Loading your repositories…" cards={4} />}>
        {(data) => (
          <>
            <SummaryCards repos={data.repos} />
            <AttentionList overview={data} inventory={inventory} />
            <TopAdvisories />
            <QuietRepos repos={data.repos} inventory={inventory} />
            <OrgCards orgs={user.orgs} repos={data.repos} />
          </>
        )}
      </Loaded>
    </>
  );
}
