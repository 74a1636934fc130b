import { Link } from 'react-router';
import type { Policy, RepoPolicy } from '../../api/types';
import { ProblemNotice } from '../../components/ProblemNotice';
import { TableSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useOrgPolicy, useRepoGate, useRepoPolicy, useSetRepoPolicy } from './api';
import { EditablePolicy } from './EditablePolicy';
import { GatePill, GateViolations } from './Gate';

/** The repository's own rules, without the switch that says it has some. */
const ownRules = ({ inherit: _inherit, ...rules }: RepoPolicy): Policy => rules;

/** The gate now, and the policy behind it: the organization's (inherited) or the repository's own. */
export function RepoPolicyPanel({ repoId, orgId, canManage }: { repoId: string; orgId: string; canManage: boolean }) {
  const gate = useRepoGate(repoId);
  const policy = useRepoPolicy(repoId);
  const orgPolicy = useOrgPolicy(orgId);
  const save = useSetRepoPolicy(repoId);
  const orgLink = <Link to={`/orgs/${orgId}?tab=policy`}>the organization&apos;s policy</Link>;

  return (
    <>
      <section className="card section" aria-labelledby="gate-title">
        <Loaded query={gate} skeleton={<TableSkeleton label="Judging the repository…" rows={2} />}>
          {(g) => (
            <>
              <div className="card-head">
                <h2 id="gate-title" className="card-title">Gate</h2>
                <GatePill status={g.status} />
              </div>
              <p className="hint">
                Judged now by {g.policy_source === 'organization' ? orgLink : 'this repository\u2019s own policy'} (<Time iso={g.judged_at} />), on the default branch
                {g.upload_id && <>; new findings as <Link to={`/repos/${repoId}/uploads/${g.upload_id}`}>its latest upload</Link> brought them</>}.
              </p>
              <GateViolations gate={g} caption="Rules the repository breaks now" />
            </>
          )}
        </Loaded>
      </section>
      <section className="card section" aria-labelledby="repo-policy-title">
        <h2 id="repo-policy-title" className="card-title">Policy</h2>
        <Loaded query={{ data: policy.data && orgPolicy.data ? { own: policy.data, org: orgPolicy.data } : undefined, error: policy.error ?? orgPolicy.error, refetch: () => Promise.all([policy.refetch(), orgPolicy.refetch()]) }} skeleton={<TableSkeleton label="Loading the policy…" rows={2} />}>
          {({ own, org }) => own.inherit ? (
            <>
              <p className="hint">This repository follows {orgLink} (inherited):</p>
              <EditablePolicy policy={org} label="Policy of this repository (JSON)" canManage={canManage} save={save} editLabel="Give this repository its own policy" />
            </>
          ) : (
            <>
              <p className="hint">This repository has its own policy; {orgLink} does not apply to it.</p>
              <EditablePolicy policy={ownRules(own)} label="Policy of this repository (JSON)" canManage={canManage} save={save} />
              {canManage && (
                <div className="form-actions">
                  <button type="button" className="button button-quiet" disabled={save.isPending} onClick={() => save.mutate({ inherit: true })}>Follow the organization&apos;s policy again</button>
                </div>
              )}
              {save.isError && save.variables?.inherit && <ProblemNotice error={save.error} />}
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}
