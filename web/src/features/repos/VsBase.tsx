import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { ScanStatus } from '../../api/types';
import { useFindings } from './api';
import { Delta } from './UploadHistory';

export const VS_BASE = [
  { value: 'new', label: 'New against the base', sign: '+' },
  { value: 'fixed', label: 'Fixed against the base', sign: '−' },
] as const;
type VsBaseFilter = (typeof VS_BASE)[number]['value'];
export const vsBaseFilter = (value: string | null): VsBaseFilter | undefined => VS_BASE.find((v) => v.value === value)?.value;

/**
 * What a pull request adds to its base branch and what it fixes there, each a link to that list of
 * findings (`?ref=pr/N&vs_base=new|fixed`).
 */
export function VsBaseNotice({ repoId, gitRef, baseRef, counts }: {
  repoId: string;
  gitRef: string;
  baseRef: string | null;
  counts: Record<VsBaseFilter, number | undefined>;
}) {
  return (
    <section className="notice vs-base" aria-label="Against the base branch">
      <span>Pull request <code>{gitRef}</code> against <code>{baseRef ?? 'the default branch'}</code>:</span>
      {VS_BASE.map((v) => (
        <Link key={v.value} to={`/repos/${repoId}?ref=${encodeURIComponent(gitRef)}&vs_base=${v.value}`} className="vs-base-link">
          {countOf(counts[v.value], v.sign)} {v.value}
        </Link>
      ))}
    </section>
  );
}

const countOf = (n: number | undefined, sign: '+' | '−'): ReactNode => (n === undefined ? '…' : <Delta n={n} sign={sign} />);

/** The lists' filters: open findings only, as the API compares them. */
const vsBaseFindings = (ref: string, vsBase: VsBaseFilter) => ({ page: 1, state: 'open', severity: '', tool: '', q: '', ref, vsBase } as const);

/** The pull request as it stands now: the totals of its two lists against the base, over every analysis. */
export function PullRequestVsBase({ repoId, status }: { repoId: string; status: ScanStatus }) {
  const added = useFindings(repoId, vsBaseFindings(status.ref, 'new'));
  const fixed = useFindings(repoId, vsBaseFindings(status.ref, 'fixed'));
  return <VsBaseNotice repoId={repoId} gitRef={status.ref} baseRef={status.base_ref} counts={{ new: added.data?.info.total, fixed: fixed.data?.info.total }} />;
}
