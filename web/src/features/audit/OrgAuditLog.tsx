import { useOrgAudit } from './api';
import { AuditLog, useAuditFilters } from './AuditLog';

export function OrgAuditLog({ orgId }: { orgId: string }) {
  const [filters, setFilters] = useAuditFilters();
  const log = useOrgAudit(orgId, filters);
  return <AuditLog log={log} filters={filters} setFilters={setFilters} scope="this organization" />;
}
