import { useEffect, useRef, type ReactNode } from 'react';
import { CopyButton } from './CopyButton';

/** A secret shown this once, to copy now: focused so it is read first, gone once dismissed. */
export function SecretOnce({ title, value, copyLabel, testId, onDone, children }: {
  title: string;
  value: string;
  copyLabel: string;
  testId: string;
  onDone: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="notice notice-success secret" role="region" aria-labelledby={`${testId}-title`} tabIndex={-1} ref={ref}>
      <h3 id={`${testId}-title`} className="card-title">{title}</h3>
      {children}
      <div className="secret-row">
        <code className="secret-value" data-testid={testId}>{value}</code>
        <CopyButton text={value} label={copyLabel} />
      </div>
      <button type="button" className="button button-small" onClick={onDone}>I have stored it</button>
    </div>
  );
}
