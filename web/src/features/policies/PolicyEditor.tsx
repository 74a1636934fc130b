import { useId, useState, type FormEvent } from 'react';
import type { Policy } from '../../api/types';
import { ProblemNotice } from '../../components/ProblemNotice';

export const policyText = (policy: Policy): string => JSON.stringify(policy, null, 2);

/** A policy read as JSON: what a member sees, and an owner edits. */
export function PolicyJson({ policy, label }: { policy: Policy; label: string }) {
  if (Object.keys(policy).length === 0) return <p className="hint">No rule is set: every upload passes.</p>;
  return <pre className="code-block policy-json" aria-label={label}><code>{policyText(policy)}</code></pre>;
}

/**
 * An owner edits the policy as the JSON the API takes; what the server refuses is shown field by
 * field, as it said it. A draft that is not JSON is caught before it is sent.
 */
export function PolicyEditor({ initial, label, saving, error, onSave, onCancel }: {
  initial: Policy;
  label: string;
  saving: boolean;
  error: unknown;
  onSave: (policy: Policy) => void;
  onCancel?: () => void;
}) {
  const id = useId();
  const [text, setText] = useState(() => policyText(initial));
  const [syntax, setSyntax] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (caught) {
      setSyntax(`This is not valid JSON: ${(caught as Error).message}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setSyntax('A policy is a JSON object, e.g. {"max_open": {"critical": 0}}.');
      return;
    }
    setSyntax(undefined);
    onSave(parsed as Policy);
  };
  return (
    <form className="form policy-form" onSubmit={submit}>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <textarea id={id} className="input mono policy-text" rows={Math.min(24, Math.max(8, text.split('\n').length + 1))} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <p className="hint">
        Rules: <code>max_open</code>, <code>fail_on_new</code>, <code>fail_on_kev</code>, <code>max_age_days</code> and <code>licenses</code>
        (<code>deny</code>, <code>allow</code>, <code>unknown</code>). <code>{'{}'}</code> passes everything.
      </p>
      {syntax ? <div className="notice notice-error" role="alert">{syntax}</div> : error != null && <ProblemNotice error={error} lead="The policy was not saved." />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving}>{saving ? 'Saving…' : 'Save policy'}</button>
        {onCancel && <button type="button" className="button" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
