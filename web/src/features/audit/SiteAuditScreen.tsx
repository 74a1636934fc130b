import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { useUser } from '../auth/session';
import { useSiteAudit } from './api';
import { AuditLog, useAuditFilters } from './AuditLog';
import { AdvisorySources } from '../advisories/AdvisorySources';

/** The whole site's audit log: sign-ins, keys and every organization's changes, with the advisory sync sources (site administrators). */
export function SiteAuditScreen() {
  const user = useUser();
  const [filters, setFilters] = useAuditFilters();
  const log = useSiteAudit(filters, user.is_admin);
  if (!user.is_admin) return <NotFound />;
  return (
    <>
      <PageHeader title="Audit log">
        <p className="lede">Everything recorded on this Scanyard: sign-ins, API keys and every organization&apos;s changes.</p>
      </PageHeader>
      <AdvisorySources />
      <AuditLog log={log} filters={filters} setFilters={setFilters} scope="Scanyard" />
    </>
  );
}
