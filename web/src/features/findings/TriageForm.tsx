import { useState, type FormEvent } from 'react';
import { SelectField, TextField } from '../../components/Field';
import { endOfLocalDay } from '../../lib/format';
import { ProblemNotice } from '../../components/ProblemNotice';
import { useTriageFinding, type DismissalReason, type FindingDetail } from './api';

export const REASON_LABEL: Record<DismissalReason, string> = {
  false_positive: 'False positive',
  wont_fix: "Won't fix",
  used_in_tests: 'Used in tests',
  accepted_risk: 'Accepted risk',
  not_affected: 'Not affected',
  suppressed: 'Suppressed',
};
// "suppressed" is what a SARIF suppression or a rule sets; people choose one of the others.
export const REASONS = (Object.keys(REASON_LABEL) as DismissalReason[]).filter((r) => r !== 'suppressed').map((value) => ({ value, label: REASON_LABEL[value] }));

/** Dismiss an open finding with a reason (and optionally until a date), or reopen a dismissed one. */
export function TriageForm({ finding }: { finding: FindingDetail }) {
  const triage = useTriageFinding(finding.id);
  const [reason, setReason] = useState<DismissalReason>('false_positive');
  const [comment, setComment] = useState('');
  const [until, setUntil] = useState('');
  const dismissed = finding.state === 'dismissed';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = comment.trim() ? { comment: comment.trim() } : {};
    // The date input gives a day; the dismissal ends at the start of that day, UTC.
    const body = dismissed
      ? { state: 'open' as const, ...text }
      : { state: 'dismissed' as const, reason, ...text, ...(until ? { until: endOfLocalDay(until) } : {}) };
    triage.mutate(body, { onSuccess: () => { setComment(''); setUntil(''); } });
  };

  return (
    <form className="card section form" aria-labelledby="triage-title" onSubmit={submit}>
      <h2 id="triage-title" className="card-title">{dismissed ? 'Reopen' : 'Dismiss'}</h2>
      {!dismissed && <SelectField id="triage-reason" label="Reason" value={reason} onChange={setReason} options={REASONS} />}
      <TextField id="triage-comment" label="Comment" optional value={comment} onChange={setComment} maxLength={2000} />
      {!dismissed && <TextField id="triage-until" label="Until" optional type="date" value={until} onChange={setUntil} />}
      {triage.error != null && <ProblemNotice error={triage.error} lead={dismissed ? 'Could not reopen.' : 'Could not dismiss.'} />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={triage.isPending}>{dismissed ? 'Reopen finding' : 'Dismiss finding'}</button>
      </div>
    </form>
  );
}
