import { Link } from 'react-router';
import { useAdvisory } from '../advisories/api';
import type { FindingDetail } from '../findings/api';
import { useRemediation } from './api';
import { Upgrade, Via } from './FixFirst';

/**
 * What to do about a vulnerability finding: its upgrade from the ref's plan, where the package comes
 * from, and the advisory's standing (score, EPSS, KEV, fixed versions) with a link to its page.
 */
export function FindingFix({ finding: f }: { finding: FindingDetail }) {
  const plan = useRemediation(f.repository_id, f.ref);
  const advisory = useAdvisory(f.rule_id);
  if (!f.package) return null;
  const action = plan.data?.find((a) => a.finding_ids.includes(f.id));
  const score = advisory.data?.cvss_score;
  return (
    <section className="card section" aria-labelledby="finding-fix">
      <h2 id="finding-fix" className="card-title">How to fix</h2>
      {action
        ? <p data-testid="finding-action">Upgrade <Upgrade action={action} />{action.via.length > 0 && <>; pulled in by <Via action={action} /></>}{action.remaining.length > 0 && <span className="muted"> (still affected by {action.remaining.join(', ')})</span>}</p>
        : <p className="muted">No upgrade is known for this package yet.</p>}
      <dl className="facts">
        {f.direct !== null && <><dt>Dependency</dt><dd>{f.direct ? 'direct' : 'transitive'}{f.path && f.path.length > 1 && <> via <span className="mono">{f.path.map((c) => `${c.name}@${c.version ?? ''}`).join(' → ')}</span></>}</dd></>}
        {score !== undefined && score !== null && <><dt>CVSS score</dt><dd>{score}</dd></>}
        <dt>EPSS</dt><dd>{f.epss ? `${(f.epss.probability * 100).toFixed(1)}% (percentile ${(f.epss.percentile * 100).toFixed(0)})` : '—'}</dd>
        <dt>CISA KEV</dt><dd>{f.kev ? 'known exploited' : 'not listed'}</dd>
        <dt>Fixed versions</dt><dd className="mono">{f.fixed_versions && f.fixed_versions.length > 0 ? f.fixed_versions.join(', ') : '—'}</dd>
      </dl>
      <p><Link to={`/advisories/${encodeURIComponent(f.rule_id)}`}>Advisory {f.rule_id}</Link></p>
    </section>
  );
}
