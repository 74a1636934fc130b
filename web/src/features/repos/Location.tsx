import { Fragment } from 'react';
import type { Finding } from '../../api/types';
import { locationOf } from './finding-text';

/**
 * A file path that wraps only after a `/`, never inside a name, with the file name and its line
 * kept together (`Xss2.js:4`), so a narrow column never shows `Xss2.js:` and `4` on two lines.
 * Then the commit the report names (a short sha) and, for a result the tool repeated, its count.
 */
export function Location({ finding }: { finding: Finding }) {
  return (
    <>
      <Place finding={finding} />
      {finding.commit_sha && (
        <>{' '}<span className="finding-commit nowrap muted" title={`Commit ${finding.commit_sha}`}>@{finding.commit_sha.slice(0, 7)}</span></>
      )}
      {finding.occurrences > 1 && (
        <>{' '}<span className="finding-occurrences nowrap" title={`The tool reported this ${finding.occurrences} times`}>×{finding.occurrences}</span></>
      )}
    </>
  );
}

function Place({ finding }: { finding: Finding }) {
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
