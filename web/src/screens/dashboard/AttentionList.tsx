import { useState } from 'react';
import { RepoTable } from '../../components/RepoTable';
import { EmptyState } from '../../components/States';
import { Link } from '../../router';
import type { Overview } from './overview';

const FIRST = 10;

export function AttentionList({ overview }: { overview: Overview }) {
  const [all, setAll] = useState(false);
  const { repos, truncated } = overview;
  const shown = all ? repos : repos.slice(0, FIRST);
  return (
    <section className="section" aria-labelledby="attention-title">
      <div className="section-header">
        <h2 id="attention-title">Repositories that need attention</h2>
        <span className="muted">{repos.length.toLocaleString()} in total</span>
      </div>
      {repos.length === 0 ? (
        <EmptyState title="No repositories yet">
          <p>Add a repository to one of your organizations, then upload its scan results from CI.</p>
        </EmptyState>
      ) : (
        <>
          <RepoTable rows={shown.map((r) => ({ ...r, orgName: r.org.name }))} caption="Repositories, most critical findings first" />
          {repos.length > FIRST && (
            <button type="button" className="button button-quiet show-more" onClick={() => setAll(!all)} aria-expanded={all}>
              {all ? `Show the first ${FIRST}` : `Show all ${repos.length.toLocaleString()} repositories`}
            </button>
          )}
          {truncated.map((t) => (
            <p key={t.orgId} className="hint">
              This list shows the first 100 repositories of an organization with {t.total.toLocaleString()};{' '}
              <Link to={`/orgs/${t.orgId}`}>see them all on its page</Link>.
            </p>
          ))}
        </>
      )}
    </section>
  );
}
