import { Fragment } from 'react';
import type { Finding } from '../../api/types';
import { locationOf } from './finding-text';

/**
 * A file path that wraps only after a `/`, never inside a name, with the file name and its line
 * kept together (`Xss2.js:4`), so a narrow column never shows `Xss2.js:` and `4` on two lines.
 */
export function Location({ finding }: { finding: Finding }) {
  const location = locationOf(finding);
  if (!location) return <span className="muted">—</span>;
  const parts = location.path.split('/');
  const last = parts.pop()!;
  return (
    <span className="location-path" title={location.lines ? `${location.path}:${location.lines}` : location.path}>
      {parts.map((part, i) => <Fragment key={i}>{part}/<wbr /></Fragment>)}
      <span className="nowrap">{last}{location.lines && `:${location.lines}`}</span>
    </span>
  );
}
