import type { ReactNode } from 'react';

/** A titled panel; the heading names the region for assistive technology, `aside` sits at its right. */
export function Card({ id, title, aside, className, children }: { id: string; title: string; aside?: ReactNode; className?: string; children: ReactNode }) {
  return (
    <section className={className ? `card ${className}` : 'card'} aria-labelledby={id}>
      <div className="card-head">
        <h2 id={id} className="card-title">{title}</h2>
        {aside}
      </div>
      {children}
    </section>
  );
}
