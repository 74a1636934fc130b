import { useEffect, useRef, useState } from 'react';

/**
 * A destructive action that asks once, in place: the first press shows "Confirm" and "Cancel",
 * so nothing is removed by a stray click and no browser dialog interrupts.
 */
export function ConfirmButton({ label, confirmLabel, onConfirm, disabled, describedBy }: {
  label: string;
  confirmLabel: string;
  /** May reject: the caller shows why (a mutation's error), the button only stops being busy. */
  onConfirm: () => Promise<unknown>;
  disabled?: boolean;
  describedBy?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);

  if (!asking) {
    return (
      <button type="button" className="button button-small button-danger-quiet" disabled={disabled} aria-describedby={describedBy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } catch {
      // Shown by the caller; see onConfirm.
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span className="confirm">
      <button ref={confirmRef} type="button" className="button button-small button-danger" disabled={busy} aria-describedby={describedBy} onClick={() => void confirm()}>
        {busy ? 'Working…' : confirmLabel}
      </button>
      <button type="button" className="button button-small" disabled={busy} onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}
