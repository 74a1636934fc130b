import { Link } from 'react-router';

export interface Tab {
  id: string;
  label: string;
  /** Shown instead of label on a phone. */
  shortLabel?: string;
  count?: number;
  href: string;
}

/** Sections of a screen as links: each tab has its own URL, reachable with Tab and Enter. */
export function Tabs({ tabs, current, label }: { tabs: Tab[]; current: string; label: string }) {
  return (
    <nav className="tabs" aria-label={label}>
      {tabs.map((tab) => (
        <Link key={tab.id} to={tab.href} preventScrollReset className="tab" aria-current={tab.id === current ? 'page' : undefined}>
          {tab.shortLabel ? <><span className="tab-long">{tab.label}</span><span className="tab-short">{tab.shortLabel}</span></> : tab.label}
          {tab.count !== undefined && <span className="tab-count">{tab.count.toLocaleString()}</span>}
        </Link>
      ))}
    </nav>
  );
}
