import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { SeverityBadge } from '../../components/SeverityBadge';
import { TableSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { useTopAdvisories } from '../advisories/api';

/** The advisories with open findings in the most of your repositories: what to patch first across them. */
export function TopAdvisories() {
  const top = useTopAdvisories();
  return (
    <Loaded query={top} skeleton={<TableSkeleton rows={3} label="Loading advisories…" />}>
      {(rows) => rows.length === 0 ? null : (
        <section className="section" aria-labelledby="advisories-title">
          <div className="section-header">
            <h2 id="advisories-title">Advisories affecting the most repositories</h2>
          </div>
          <DataTable
            caption="Advisories affecting the most repositories"
            rows={rows}
            rowKey={(a) => a.id}
            columns={[
              {
                id: 'advisory', header: 'Advisory', rowHeader: true,
                cell: (a) => <><Link to={`/advisories/${encodeURIComponent(a.id)}`} className="strong-link mono">{a.id}</Link>{a.summary && <span className="cell-sub">{a.summary}</span>}</>,
              },
              { id: 'severity', header: 'Severity', cell: (a) => <SeverityBadge severity={a.severity} /> },
              { id: 'repositories', header: 'Repositories', className: 'num', cell: (a) => a.repositories.toLocaleString() },
            ]}
          />
        </section>
      )}
    </Loaded>
  );
}
