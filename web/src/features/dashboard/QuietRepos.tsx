import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { Time } from '../../components/Time';
import { isInProgress } from '../../lib/scan-state';
import { needsAttention, type RepoOverview } from './overview';

type Coverage = 'clean' | 'inventory' | 'never_scanned' | 'in_progress' | 'checking';

const COVERAGE: Record<Coverage, { label: string; help: string }> = {
  clean: { label: 'Clean', help: 'No open findings in its latest scans.' },
  inventory: { label: 'Inventory only', help: 'Only SBOMs so far: no component matches an advisory the service has loaded, and no code was scanned.' },
  never_scanned: { label: 'Never scanned', help: 'No scan results uploaded yet.' },
  in_progress: { label: 'Processing', help: 'Its first upload is being processed.' },
  checking: { label: 'Checking…', help: 'Reading its analyses.' },
};

function coverageOf(r: RepoOverview, inventory: Map<string, boolean | undefined>): Coverage {
  if (r.status.state === 'never_scanned') return 'never_scanned';
  if (!r.status.last_completed_at && isInProgress(r.status.state)) return 'in_progress';
  if (inventory.has(r.repo.id)) {
    const only = inventory.get(r.repo.id);
    return only === undefined ? 'checking' : only ? 'inventory' : 'clean';
  }
  return 'clean';
}

/** The repositories with nothing open, and why: clean, an SBOM inventory only, or never scanned. */
export function QuietRepos({ repos, inventory }: { repos: RepoOverview[]; inventory: Map<string, boolean | undefined> }) {
  const quiet = repos.filter((r) => !needsAttention(r));
  if (quiet.length === 0) return null;
  return (
    <section className="section" aria-labelledby="quiet-title">
      <div className="section-header">
        <h2 id="quiet-title">Repositories with nothing open</h2>
        <span className="muted">{quiet.length.toLocaleString()} in total</span>
      </div>
      <DataTable
        caption="Repositories with nothing open"
        rows={quiet}
        rowKey={(r) => r.repo.id}
        columns={[
          {
            id: 'name', header: 'Repository', rowHeader: true,
            cell: (r) => <><Link to={`/repos/${r.repo.id}`} className="strong-link">{r.repo.name}</Link><span className="cell-sub">{r.org.name}</span></>,
          },
          {
            id: 'coverage', header: 'Coverage',
            cell: (r) => {
              const coverage = coverageOf(r, inventory);
              return <span className={`coverage coverage-${coverage}`} title={COVERAGE[coverage].help}>{COVERAGE[coverage].label}</span>;
            },
          },
          { id: 'components', header: 'Components', className: 'num', cell: (r) => r.status.components.toLocaleString() },
          { id: 'last', header: 'Last scan', cell: (r) => <Time iso={r.status.last_upload_at} fallback="Never" /> },
        ]}
      />
    </section>
  );
}
