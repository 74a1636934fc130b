import type { Ref } from '../../api/types';
import { formatNumber } from '../../lib/format';
import { useRefs } from './api';

const GROUPS = [
  { kind: 'branch', label: 'Branches' },
  { kind: 'pull_request', label: 'Pull requests' },
  { kind: 'tag', label: 'Tags' },
] as const;

const optionText = (r: Ref) => `${r.kind === 'pull_request' && r.base_ref ? `${r.name} → ${r.base_ref}` : r.name} · ${formatNumber(r.findings.open)} open`;

/**
 * Which ref the repository page shows: the default branch first (its value is '', no ?ref= at all),
 * then the other branches, the pull requests and the tags, each with its open findings.
 */
export function RefSelect({ repoId, value, onChange }: { repoId: string; value: string; onChange: (ref: string) => void }) {
  const refs = useRefs(repoId);
  const list = refs.data ?? [];
  const main = list.find((r) => r.default);
  // The default branch named in the URL (?ref=main) is the default option.
  const selected = main && value === main.ref ? '' : value;
  // A ref typed into the URL that has no results yet is still shown as chosen.
  const unknown = selected !== '' && !list.some((r) => r.ref === selected);
  if (list.length <= 1 && !unknown) return null;
  return (
    <label className="ref-select">
      <span className="ref-select-label">Showing</span>
      <select className="input input-compact" aria-label="Branch or pull request" value={selected} onChange={(e) => onChange(e.target.value)}>
        <option value="">{main ? `${optionText(main)} (default)` : 'Default branch'}</option>
        {unknown && <option value={selected}>{selected}</option>}
        {GROUPS.map((g) => {
          const members = list.filter((r) => r.kind === g.kind && !r.default);
          return members.length > 0 && (
            <optgroup key={g.kind} label={g.label}>
              {members.map((r) => <option key={r.ref} value={r.ref}>{optionText(r)}</option>)}
            </optgroup>
          );
        })}
      </select>
    </label>
  );
}
