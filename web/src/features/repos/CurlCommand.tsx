import { useState } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { Link } from 'react-router';
import { TextField } from '../../components/Field';

/** The command a CI job without Node.js runs to upload a scan result here, ready to copy. */
export function CurlCommand({ repoId }: { repoId: string }) {
  const [file, setFile] = useState('results.sarif');
  const [category, setCategory] = useState('');
  const url = new URL(`/api/v1/repos/${encodeURIComponent(repoId)}/upload`, window.location.origin);
  if (category.trim()) url.searchParams.set('category', category.trim());
  const command = [
    'curl --fail-with-body \\',
    '  -H "Authorization: Bearer $SCANYARD_KEY" \\',
    `  --data-binary @${file.trim() || 'results.sarif'} \\`,
    `  "${url.toString()}"`,
  ].join('\n');

  return (
    <section className="card section" aria-labelledby="curl-title">
      <h2 id="curl-title" className="card-title">Without the CLI: curl</h2>
      <p>
        Send SARIF, CycloneDX, SPDX or a scanner&apos;s JSON report; the format is detected from the content. Create a key
        with the <strong>upload</strong> scope in <Link to="/settings">Settings</Link> and store it in your CI as <code>SCANYARD_KEY</code>.
      </p>
      <div className="form-grid">
        <TextField id="curl-file" label="File" className="input mono" value={file} onChange={setFile} />
        <TextField id="curl-category" label={<>Category <span className="muted">(optional: separates analyses of one tool)</span></>} className="input mono" value={category} onChange={setCategory} placeholder="e.g. container-image" />
      </div>
      <div className="code-block">
        <pre><code aria-label="Upload command">{command}</code></pre>
        <CopyButton text={command} label="Copy command" />
      </div>
      <p className="hint">
        Add <code>commit_sha</code> and <code>ref</code> as query parameters to record where the results came from. Gzip-compressed
        files are accepted too. Processing takes a few seconds; this page updates by itself.
      </p>
    </section>
  );
}
