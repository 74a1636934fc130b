import type { CurrentUser } from '../../api/types';
import { SeverityCounts } from '../../components/SeverityCounts';
import { plural } from '../../lib/format';
import { Link } from 'react-router';
import { totals, type RepoOverview } from './overview';

export function OrgCards({ orgs, repos }: { orgs: CurrentUser['orgs']; repos: RepoOverview[] }) {
  return (
    <section className="section" aria-labelledby="orgs-title">
      <div className="section-header">
        <h2 id="orgs-title">Your organizations</h2>
      </div>
      <ul className="org-cards">
        {orgs.map((org) => {
          const own = repos.filter((r) => r.org.id === org.id);
          return (
            <li key={org.id} className="card org-card">
              <div className="org-card-head">
                <Link to={`/orgs/${org.id}`} className="strong-link org-card-name">{org.name}</Link>
                <span className="tag">{org.role === 'owner' ? 'Owner' : 'Member'}</span>
              </div>
              <div className="muted">{plural(own.length, 'repository', 'repositories')}</div>
              <SeverityCounts counts={totals(own)} hideInfo />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
