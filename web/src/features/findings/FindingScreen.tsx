import { Link, useParams } from 'react-router';
import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { SeverityBadge } from '../../components/SeverityBadge';
import { PageSkeleton, TableSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { formatDateTime } from '../../lib/format';
import { useRepo } from '../repos/api';
import { ruleTitle } from '../repos/finding-text';
import { Location } from '../repos/Location';
import { useFinding, useFindingHistory, type FindingDetail, type FindingEvent } from './api';
import { HelpText } from './HelpText';
import { FindingFix } from '../remediation/FindingFix';
import { REASON_LABEL, TriageForm } from './TriageForm';

const EVENT_LABEL: Record<FindingEvent['event'], string> = {
  opened: 'First reported',
  fixed: 'Fixed',
  reopened: 'Reported again',
  dismissed: 'Dismissed',
  reopened_by_hand: 'Reopened',
  dismissal_expired: 'Dismissal expired',
  dismissed_by_rule: 'Dismissed by a suppression rule',
  rule_deleted: 'Suppression rule deleted',
  dismissed_by_vex: 'Dismissed by a VEX statement',
  reopened_by_vex: 'Reopened by a VEX statement',
};

/** One finding: what and where it is, the rule's help, its history and its triage. */
export function FindingRoute() {
  const { findingId } = useParams() as { findingId: string };
  return <FindingScreen key={findingId} id={findingId} />;
}

function FindingScreen({ id }: { id: string }) {
  const finding = useFinding(id);
  return (
    <Loaded query={finding} skeleton={<PageSkeleton label="Loading the finding…" />} notFound={<NotFound what="finding" back={{ to: '/', label: 'Back to the dashboard' }} />}>
      {(f) => <FindingDetails finding={f} />}
    </Loaded>
  );
}

function FindingDetails({ finding: f }: { finding: FindingDetail }) {
  const repo = useRepo(f.repository_id);
  const { title, name } = ruleTitle(f);
  const list = `/repos/${f.repository_id}?tab=findings${f.ref ? `&ref=${encodeURIComponent(f.ref)}` : ''}`;
  return (
    <>
      <PageHeader
        title={title}
        eyebrow={<><Link to={`/repos/${f.repository_id}`}>{repo.data?.name ?? 'Repository'}</Link> <span aria-hidden="true">/</span> <Link to={list}>Findings</Link></>}
        badge={<><SeverityBadge severity={f.severity} /> <span className={`state state-${f.state}`} data-testid="finding-state">{f.state}</span></>}
      >
        {name && <p className="meta-line">{name}</p>}
        <p className="meta-line">
          <span>{f.tool}{f.category && <> · <code>{f.category}</code></>}</span>
          <span>First seen <Time iso={f.first_seen_at} /></span>
          {f.fixed_at && <span>Fixed <Time iso={f.fixed_at} /></span>}
        </p>
      </PageHeader>
      <div className="finding-page">
        <section className="card section" aria-labelledby="finding-what">
          <h2 id="finding-what" className="card-title">What and where</h2>
          <p className="finding-message">{f.message}</p>
          <p className="mono location">
            {f.location_url ? <a href={f.location_url} target="_blank" rel="noreferrer noopener"><Location finding={f} /></a> : <Location finding={f} />}
          </p>
          {f.locations.length > 1 && (
            <ul className="finding-locations mono" aria-label="All locations">
              {f.locations.map((l, i) => (
                <li key={i}>{l.path ?? '—'}{l.start_line !== null && `:${l.start_line}${l.end_line !== null && l.end_line !== l.start_line ? `-${l.end_line}` : ''}`}</li>
              ))}
            </ul>
          )}
          {f.snippet && <div className="code-block finding-snippet"><pre><code>{f.snippet}</code></pre></div>}
          {f.help_uri && <p><a href={f.help_uri} target="_blank" rel="noreferrer noopener">About this rule</a></p>}
        </section>
        {f.dismissal && (
          <section className="card section" aria-labelledby="finding-dismissal">
            <h2 id="finding-dismissal" className="card-title">Dismissal</h2>
            <p data-testid="dismissal">
              <strong>{REASON_LABEL[f.dismissal.reason]}</strong>
              {f.dismissal.by && <> by {f.dismissal.by}</>} <Time iso={f.dismissal.at} />
              {f.dismissal.until && <> · until {formatDateTime(f.dismissal.until)}</>}
            </p>
            {f.dismissal.comment && <p className="finding-comment">{f.dismissal.comment}</p>}
          </section>
        )}
        {f.package && <FindingFix finding={f} />}
        {f.state !== 'fixed' && <TriageForm finding={f} />}
        {f.help && (
          <section className="card section" aria-labelledby="finding-help">
            <h2 id="finding-help" className="card-title">Rule help</h2>
            <HelpText markdown={f.help} />
          </section>
        )}
        <History id={f.id} />
      </div>
    </>
  );
}

function History({ id }: { id: string }) {
  const history = useFindingHistory(id);
  return (
    <section className="card section" aria-labelledby="finding-history">
      <h2 id="finding-history" className="card-title">History</h2>
      <Loaded query={history} skeleton={<TableSkeleton label="Loading the history…" />}>
        {(events) => (
          <ol className="timeline">
            {events.map((e, i) => (
              <li key={i} className="timeline-item">
                <strong>{EVENT_LABEL[e.event]}</strong>
                {e.reason && <> · {REASON_LABEL[e.reason]}</>}
                {e.by && <> by {e.by}</>}{' '}
                <Time iso={e.at} />
                {e.comment && <p className="timeline-comment">{e.comment}</p>}
              </li>
            ))}
          </ol>
        )}
      </Loaded>
    </section>
  );
}
