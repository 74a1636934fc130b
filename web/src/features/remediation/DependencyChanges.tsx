import type { ComponentsDiff, ScanStatus } from '../../api/types';
import { useComponentsDiff } from './api';

const LABELS: [keyof ComponentsDiff['counts'], string][] = [
  ['added', 'added'], ['removed', 'removed'], ['changed', 'changed'], ['licenses_changed', 'licences changed'],
  ['vulnerabilities_introduced', 'vulnerabilities introduced'], ['vulnerabilities_fixed', 'vulnerabilities fixed'],
];

/** A pull request's dependency changes against its base branch (the components diff), with the lists that matter most. */
export function DependencyChanges({ repoId, status, base }: { repoId: string; status: ScanStatus; base: string }) {
  const diff = useComponentsDiff(repoId, base, status.ref);
  if (!diff.data) return null;
  const d = diff.data;
  return (
    <section className="notice" aria-label="Dependency changes">
      <span>Dependencies against <code>{base}</code>: </span>
      {LABELS.map(([key, label], i) => <span key={key}>{i > 0 && ', '}{d.counts[key]} {label}</span>)}
      {d.vulnerabilities_introduced.length > 0 && (
        <ul>{d.vulnerabilities_introduced.slice(0, 10).map((v) => <li key={`${v.id} ${v.package}`}><span className="mono">{v.id}</span> in <span className="mono">{v.package}</span> ({v.severity})</li>)}</ul>
      )}
      {d.changed.length > 0 && (
        <ul>{d.changed.slice(0, 10).map((c) => <li key={c.purl ?? c.package}>{c.package} <span className="mono">{c.from.join(', ')}</span> → <span className="mono">{c.to.join(', ')}</span></li>)}</ul>
      )}
    </section>
  );
}
