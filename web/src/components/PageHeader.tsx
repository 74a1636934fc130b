import { useEffect, type ReactNode } from 'react';

/** The screen's title (also the document title) with its context above and actions beside it. */
export function PageHeader({ title, eyebrow, badge, actions, children }: {
  title: string;
  eyebrow?: ReactNode;
  /** Beside the title, e.g. the scan status. */
  badge?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Scanyard`;
  }, [title]);
  return (
    <header className="page-header">
      <div className="page-header-text">
        {eyebrow && <div className="eyebrow">{eyebrow}</div>}
        <div className="title-row">
          <h1 id="page-title" tabIndex={-1}>{title}</h1>
          {badge}
        </div>
        {children}
      </div>
      {actions && <div className="page-header-actions">{actions}</div>}
    </header>
  );
}
