import { TableSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { useOrgPolicy, useSetOrgPolicy } from './api';
import { EditablePolicy } from './EditablePolicy';

/** The organization's policy: what every repository's gate follows unless it has its own. */
export function OrgPolicyPanel({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const policy = useOrgPolicy(orgId);
  const save = useSetOrgPolicy(orgId);
  return (
    <section className="card section" aria-labelledby="org-policy-title">
      <h2 id="org-policy-title" className="card-title">Policy</h2>
      <p className="hint">Each upload of a repository is judged by this policy unless the repository has its own. Owners change it.</p>
      <Loaded query={policy} skeleton={<TableSkeleton label="Loading the policy…" rows={2} />}>
        {(p) => <EditablePolicy policy={p} label="Organization policy (JSON)" canManage={canManage} save={save} />}
      </Loaded>
    </section>
  );
}
