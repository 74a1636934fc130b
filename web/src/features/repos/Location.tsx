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
      <Dependency finding={finding} />
    </>
  );
}

/**
 * For a package an SBOM of the ref lists: a direct dependency, or transitive with the shortest path
 * that pulls it in, so the list says which manifest line to change without opening each finding.
 */
function Dependency({ finding }: { finding: Finding }) {
  if (finding.direct === null) return null;
  if (finding.direct) return <span className="cell-sub finding-dependency">direct dependency</span>;
  const path = finding.path && finding.path.length > 1 ? finding.path.map((c) => (c.version ? `${c.name}@${c.version}` : c.name)).join(' → ') : null;
  return (
    <span className="cell-sub finding-dependency" title={path ? `Pulled in by ${path}` : undefined}>
      transitive{path && <> via <span className="mono">{path}</span></>}
    </span>
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
