import { useState } from 'react';
import { Link } from 'react-router';
import { RepoTable } from '../../components/RepoTable';
import { EmptyState } from '../../components/States';
import { plural } from '../../lib/format';
import { needsAttention, type Overview } from './overview';

const FIRST = 10;

/** Repositories with something open (or a failed last upload), most critical first; or a clean state. */
export function AttentionList({ overview, inventory }: { overview: Overview; inventory: Map<string, boolean | undefined> }) {
  const [all, setAll] = useState(false);
  const { truncated } = overview;
  const repos = overview.repos.filter(needsAttention);
  const shown = all ? repos : repos.slice(0, FIRST);
  return (
    <section className="section" aria-labelledby="attention-title">
      <div className="section-header">
        <h2 id="attention-title">Repositories that need attention</h2>
        {repos.length > 0 && <span className="muted">{repos.length.toLocaleString()} in total</span>}
      </div>
      {overview.repos.length === 0 ? (
        <EmptyState title="No repositories yet">
          <p>Add a repository to one of your organizations, then upload its scan results from CI.</p>
        </EmptyState>
      ) : repos.length === 0 ? (
        <CleanState overview={overview} inventory={inventory} />
      ) : (
        <>
          <RepoTable rows={shown.map((r) => ({ ...r, orgName: r.org.name }))} caption="Repositories that need attention, most critical findings first" />
          {repos.length > FIRST && (
            <button type="button" className="button button-quiet show-more" onClick={() => setAll(!all)} aria-expanded={all}>
              {all ? `Show the first ${FIRST}` : `Show all ${repos.length.toLocaleString()} repositories`}
            </button>
          )}
        </>
      )}
      {truncated.map((t) => (
        <p key={t.orgId} className="hint">
          The dashboard reads the first 100 repositories of an organization with {t.total.toLocaleString()};{' '}
          <Link to={`/orgs/${t.orgId}`}>see them all on its page</Link>.
        </p>
      ))}
    </section>
  );
}

function CleanState({ overview, inventory }: { overview: Overview; inventory: Map<string, boolean | undefined> }) {
  const scanned = overview.repos.filter((r) => r.status.state !== 'never_scanned');
  const inventoryOnly = scanned.filter((r) => inventory.get(r.repo.id) === true).length;
  const clean = scanned.length - inventoryOnly;
  if (clean === 0) {
    return (
      <EmptyState title="Nothing open, but nothing checked yet">
        <p>No repository has a scan that looks for problems: upload SARIF or a scanner&apos;s report from CI.</p>
      </EmptyState>
    );
  }
  return (
    <div className="clean-state" role="status">
      <span className="clean-mark" aria-hidden="true">✓</span>
      <div>
        <p className="clean-title">Nothing needs attention</p>
        <p className="muted">No open findings in {plural(clean, 'scanned repository', 'scanned repositories')}.</p>
      </div>
    </div>
  );
}
