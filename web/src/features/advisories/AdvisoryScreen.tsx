import { Link, useParams } from 'react-router';
import type { ResponseBody } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { NotFound } from '../../components/NotFound';
import { PageHeader } from '../../components/PageHeader';
import { SeverityBadge } from '../../components/SeverityBadge';
import { PageSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useAdvisory } from './api';

type Advisory = ResponseBody<'/api/v1/advisories/{id}', 'get'>;
type Affected = Advisory['affected'][number];
type AffectedRepo = Advisory['repositories'][number];
type RangeEvent = Affected['ranges'][number]['events'][number];

const none = <span className="muted">—</span>;

export function AdvisoryRoute() {
  const id = useParams().advisoryId!;
  return <AdvisoryScreen key={id} id={id} />;
}

function AdvisoryScreen({ id }: { id: string }) {
  const advisory = useAdvisory(id);
  return (
    <Loaded query={advisory} skeleton={<PageSkeleton label="Loading the advisory…" />} notFound={<NotFound what="advisory" />}>
      {(a) => <AdvisoryDetail advisory={a} />}
    </Loaded>
  );
}

/** An OSV range's events in words: "from 1.0.0, fixed in 1.2.3". */
function eventText(event: RangeEvent): string {
  if (event.introduced !== undefined) return event.introduced === '0' ? 'from the first version' : `from ${event.introduced}`;
  if (event.fixed !== undefined) return `fixed in ${event.fixed}`;
  if (event.last_affected !== undefined) return `up to ${event.last_affected}`;
  return `below ${event.limit ?? ''}`;
}

function fixedVersions(entry: Affected): string[] {
  return entry.ranges.flatMap((r) => r.events.flatMap((e) => (e.fixed !== undefined ? [e.fixed] : [])));
}

const AFFECTED_COLUMNS: Column<Affected>[] = [
  { id: 'package', header: 'Package', rowHeader: true, cell: (p) => <span className="mono">{p.name}</span> },
  { id: 'ecosystem', header: 'Ecosystem', cell: (p) => p.ecosystem },
  {
    id: 'ranges', header: 'Affected ranges',
    cell: (p) => p.ranges.length === 0 ? none : (
      <ul className="advisory-list">
        {p.ranges.map((r, i) => <li key={i}><span className="tag">{r.type}</span> {r.events.map(eventText).join(', ')}</li>)}
      </ul>
    ),
  },
  { id: 'fixed', header: 'Fixed versions', className: 'mono', cell: (p) => (fixedVersions(p).length > 0 ? fixedVersions(p).join(', ') : none) },
  {
    id: 'versions', header: 'Listed versions', className: 'mono',
    cell: (p) => (p.versions.length === 0 ? none : <span className="advisory-versions">{p.versions.join(', ')}</span>),
  },
];

const REPO_COLUMNS: Column<AffectedRepo>[] = [
  {
    id: 'repo', header: 'Repository', rowHeader: true,
    cell: (r) => <Link to={`/repos/${r.id}?tab=components${r.ref ? `&ref=${encodeURIComponent(r.ref)}` : ''}`}>{r.org.name}/{r.name}</Link>,
  },
  { id: 'ref', header: 'Ref', className: 'mono', cell: (r) => r.ref },
  { id: 'package', header: 'Package', className: 'mono', cell: (r) => `${r.package.name ?? ''} ${r.package.version ?? ''}`.trim() || none },
];

function AdvisoryDetail({ advisory: a }: { advisory: Advisory }) {
  return (
    <>
      <PageHeader title={a.id} eyebrow="Advisory" badge={<SeverityBadge severity={a.severity} />}>
        {a.summary && <p className="lede">{a.summary}</p>}
        <p className="meta-line">
          {a.cvss_score !== null && <span>CVSS {a.cvss_score.toFixed(1)}</span>}
          {a.published && <span>Published <Time iso={a.published} /></span>}
          <span>Modified <Time iso={a.modified} /></span>
          {a.withdrawn && <span className="tag">Withdrawn <Time iso={a.withdrawn} /></span>}
          {/* The stored record keeps no references; OSV.dev shows them with the record's own links. */}
          <a href={`https://osv.dev/vulnerability/${encodeURIComponent(a.id)}`} rel="noreferrer" target="_blank">View on OSV.dev</a>
        </p>
        {a.aliases.length > 0 && (
          <ul className="chips advisory-aliases" aria-label="Aliases">
            {a.aliases.map((alias) => <li key={alias} className="chip mono">{alias}</li>)}
          </ul>
        )}
      </PageHeader>

      <section className="section" aria-labelledby="repos-title">
        <h2 id="repos-title" className="card-title">Your affected repositories</h2>
        {a.repositories.length === 0
          ? <EmptyState title="None of your repositories is affected"><p>No component of theirs has an open finding for this advisory.</p></EmptyState>
          : <DataTable caption="Affected repositories" columns={REPO_COLUMNS} rows={a.repositories} rowKey={(r) => `${r.id} ${r.ref} ${r.package.purl ?? r.package.name ?? ''}`} />}
      </section>

      {a.details && (
        <section className="section card" aria-labelledby="details-title">
          <h2 id="details-title" className="card-title">Details</h2>
          {/* OSV details are markdown written by others: shown as plain text, never as HTML. */}
          <p className="advisory-details">{a.details}</p>
        </section>
      )}

      <section className="section" aria-labelledby="affected-title">
        <h2 id="affected-title" className="card-title">Affected packages</h2>
        {a.affected.length === 0
          ? <EmptyState title="No affected packages listed" />
          : <DataTable caption="Affected packages" columns={AFFECTED_COLUMNS} rows={a.affected} rowKey={(p) => `${p.ecosystem} ${p.name}`} />}
      </section>

      {a.references.length > 0 && (
        <section className="section card" aria-labelledby="references-title">
          <h2 id="references-title" className="card-title">References</h2>
          {/* Only http(s) URLs are stored, so every one is safe to link. */}
          <ul className="references">
            {a.references.map((r) => (
              <li key={`${r.type} ${r.url}`}><span className="muted">{r.type.toLowerCase()}</span> <a href={r.url} rel="noreferrer noopener" target="_blank">{r.url}</a></li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
