import { useState } from 'react';
import type { Policy } from '../../api/types';
import { PolicyEditor, PolicyJson } from './PolicyEditor';

interface Save {
  mutate: (policy: Policy, options: { onSuccess: () => void }) => void;
  isPending: boolean;
  error: unknown;
  reset: () => void;
}

/** A policy as JSON, with an editor behind a button for those who may change it. */
export function EditablePolicy({ policy, label, canManage, save, editLabel = 'Edit policy' }: {
  policy: Policy;
  label: string;
  canManage: boolean;
  save: Save;
  editLabel?: string;
}) {
  const [editing, setEditing] = useState(false);
  if (editing) {
    return (
      <PolicyEditor
        initial={policy}
        label={label}
        saving={save.isPending}
        error={save.error}
        onSave={(next) => save.mutate(next, { onSuccess: () => setEditing(false) })}
        onCancel={() => {
          save.reset();
          setEditing(false);
        }}
      />
    );
  }
  return (
    <>
      <PolicyJson policy={policy} label={label} />
      {canManage && <div className="form-actions"><button type="button" className="button" onClick={() => setEditing(true)}>{editLabel}</button></div>}
    </>
  );
}
