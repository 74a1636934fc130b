import type { ReactNode } from 'react';

/** A word behind a coloured mark: the word carries the meaning, the colour only helps the eye scan. */
export function Pill({ className, mark = 'status-dot', children }: { className: string; mark?: 'status-dot' | 'sev-mark'; children: ReactNode }) {
  return (
    <span className={className}>
      <span className={mark} aria-hidden="true" />
      {children}
    </span>
  );
}
