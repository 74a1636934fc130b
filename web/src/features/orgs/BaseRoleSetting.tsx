import { messageOf } from '../../api/client';
import { useOrg, useSetBaseRole } from './api';

/** The organization's base role: what every member may do to every repository, beside their teams' roles. */
export function BaseRoleSetting({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const org = useOrg(orgId);
  const set = useSetBaseRole(orgId);
  if (!org.data) return null;
  const value = org.data.base_role;
  return (
    <div className="card base-role">
      <label className="inline-field" htmlFor="base-role">Every member may</label>{' '}
      {canManage ? (
        <select id="base-role" className="input input-compact" value={value} disabled={set.isPending}
          onChange={(e) => set.mutate(e.target.value as 'read' | 'none')}>
          <option value="read">read, upload and triage every repository</option>
          <option value="none">see only the repositories their teams hold</option>
        </select>
      ) : <strong id="base-role">{value === 'read' ? 'read, upload and triage every repository' : 'see only the repositories their teams hold'}</strong>}
      <p className="muted">Teams add roles on their repositories: read, triage (dismiss and reopen findings) or admin (policy, badge token, deleting analyses). Owners may do everything.</p>
      {set.isError && <div className="notice notice-error" role="alert">{messageOf(set.error)}</div>}
    </div>
  );
}
