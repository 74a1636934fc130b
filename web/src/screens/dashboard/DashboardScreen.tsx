import { useState } from 'react';
import { PageHeader } from '../../components/PageHeader';
import { CreateOrgForm } from '../../components/CreateOrgForm';
import { EmptyState, Loaded } from '../../components/States';
import { useResource } from '../../lib/useResource';
import { useUser } from '../../session';
import { loadOverview } from './overview';
import { SummaryCards } from './SummaryCards';
import { AttentionList } from './AttentionList';
import { OrgCards } from './OrgCards';

export function DashboardScreen() {
  const user = useUser();
  const [creating, setCreating] = useState(false);
  const orgKey = user.orgs.map((o) => o.id).join(',');
  const overview = useResource((signal) => loadOverview(user.orgs, signal), orgKey);
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
      <Loaded resource={overview} label="Loading your repositories…">
        {(data) => (
          <>
            <SummaryCards repos={data.repos} />
            <AttentionList overview={data} />
            <OrgCards orgs={user.orgs} repos={data.repos} />
          </>
        )}
      </Loaded>
    </>
  );
}
