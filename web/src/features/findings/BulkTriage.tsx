import { useState } from 'react';
import { ProblemNotice } from '../../components/ProblemNotice';
import { plural } from '../../lib/format';
import { useBulkTriage, type DismissalReason } from './api';
import { REASONS } from './TriageForm';

/** What to do with the ticked rows of the findings list: dismiss them with one reason, or reopen them. */
export function BulkTriage({ repoId, ids, onDone }: { repoId: string; ids: string[]; onDone: () => void }) {
  const triage = useBulkTriage(repoId);
  const [reason, setReason] = useState<DismissalReason>('false_positive');
  const [changed, setChanged] = useState<number | null>(null);
  const run = (state: 'dismissed' | 'open') => triage.mutate(
    { ids, triage: state === 'dismissed' ? { state, reason } : { state } },
    { onSuccess: (answer) => { setChanged(answer.changed); onDone(); } },
  );
  return (
    <div className="toolbar bulk-triage" role="group" aria-label="Triage the selected findings">
      <span className="muted">{ids.length === 0 ? 'Select findings to triage them together' : `${plural(ids.length, 'finding')} selected`}</span>
      <select className="input input-compact" aria-label="Reason for the selected" value={reason} onChange={(e) => setReason(e.target.value as DismissalReason)}>
        {REASONS.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
      </select>
      <button type="button" className="button button-small" disabled={ids.length === 0 || triage.isPending} onClick={() => run('dismissed')}>Dismiss selected</button>
      <button type="button" className="button button-small button-quiet" disabled={ids.length === 0 || triage.isPending} onClick={() => run('open')}>Reopen selected</button>
      {changed !== null && ids.length === 0 && <span role="status">{plural(changed, 'finding')} changed</span>}
      {triage.error != null && <ProblemNotice error={triage.error} lead="Could not triage." />}
    </div>
  );
}
