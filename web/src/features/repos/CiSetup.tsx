import { useState } from 'react';
// The jobs of docs/ci/ themselves, so this page and the documentation cannot drift apart.
import githubActions from '../../../../docs/ci/github-actions.yml?raw';
import gitlabCi from '../../../../docs/ci/gitlab-ci.yml?raw';
import githubKeyless from '../../../../docs/ci/github-actions-keyless.yml?raw';
import gitlabKeyless from '../../../../docs/ci/gitlab-ci-keyless.yml?raw';
import { messageOf } from '../../api/client';
import type { Repo } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { useOrg } from '../orgs/api';
import { CurlCommand } from './CurlCommand';
import { useRotateBadgeToken } from './api';

/** The placeholder docs/ci/ jobs name the repository by. */
const PLACEHOLDER = 'ACME/PAYMENTS-API';

// Keyless first: no secret to store, and a pull request's job cannot pose as the default branch.
const JOBS = [
  { id: 'github', title: 'GitHub Actions', file: '.github/workflows/security.yml', text: githubKeyless, note: 'No key: the job\'s OIDC token (permissions: id-token: write), allowed by a CI trust rule of the organization.' },
  { id: 'gitlab', title: 'GitLab CI', file: '.gitlab-ci.yml', text: gitlabKeyless, note: 'No key: an id_tokens entry SCANYARD_ID_TOKEN, allowed by a CI trust rule of the organization.' },
  { id: 'github-key', title: 'GitHub Actions (API key)', file: '.github/workflows/security.yml', text: githubActions, note: 'With SCANYARD_KEY. Gitea and Forgejo Actions read the same file.' },
  { id: 'gitlab-key', title: 'GitLab CI (API key)', file: '.gitlab-ci.yml', text: gitlabCi, note: 'With SCANYARD_KEY. Add the job to your pipeline.' },
] as const;

function Snippet({ text, label, copyLabel }: { text: string; label: string; copyLabel: string }) {
  return (
    <div className="code-block">
      <pre><code aria-label={label}>{text}</code></pre>
      <CopyButton text={text} label={copyLabel} />
    </div>
  );
}

/** How to send this repository results from CI: a CLI job for GitHub or GitLab, or plain curl; and its badges. */
export function CiSetup({ repo, orgName, canManage, neverScanned }: { repo: Repo; orgName: string | undefined; canManage: boolean; neverScanned: boolean }) {
  // Administrators outside the organization do not have its name in their session.
  const org = useOrg(repo.org_id);
  const name = `${org.data?.name ?? orgName ?? 'ORG'}/${repo.name}`;
  const [job, setJob] = useState<(typeof JOBS)[number]['id']>('github');
  const shown = JOBS.find((j) => j.id === job)!;
  return (
    <>
      <section className="card section" aria-labelledby="ci-title">
        <h2 id="ci-title" className="card-title">{neverScanned ? 'Upload the first scan results from CI' : 'Upload from CI'}</h2>
        <p>
          The <code>scanyard</code> CLI uploads your scanners&apos; results to <code>{name}</code>, waits for them to be processed and fails the job
          when the gate fails. Set this service&apos;s address, <code>{window.location.origin}</code>, as <code>SCANYARD_URL</code>. Without a key, the
          job proves who it is with its CI&apos;s OIDC token, and an owner adds a CI trust rule naming the CI repository; or store an API key with
          the <strong>upload</strong> scope as <code>SCANYARD_KEY</code>.
        </p>
        <div className="segmented" role="group" aria-label="CI system">
          {JOBS.map((j) => (
            <button key={j.id} type="button" className="button button-small" aria-pressed={j.id === job} onClick={() => setJob(j.id)}>{j.title}</button>
          ))}
        </div>
        <p className="hint"><code>{shown.file}</code>: {shown.note}</p>
        <Snippet text={shown.text.replaceAll(PLACEHOLDER, name)} label={`${shown.title} job`} copyLabel="Copy job" />
      </section>
      <CurlCommand repoId={repo.id} />
      <BadgeSnippet repoId={repo.id} name={repo.name} canManage={canManage} />
    </>
  );
}

/** README badges: owners create (or rotate) the token they need, shown once with the Markdown to paste. */
function BadgeSnippet({ repoId, name, canManage }: { repoId: string; name: string; canManage: boolean }) {
  const rotate = useRotateBadgeToken(repoId);
  const origin = window.location.origin;
  const markdown = rotate.data && [
    `![${name} gate](${origin}${rotate.data.gate_url})`,
    `![${name} findings](${origin}${rotate.data.findings_url})`,
  ].join('\n');
  return (
    <section className="card section" aria-labelledby="badge-title">
      <h2 id="badge-title" className="card-title">Badges</h2>
      <p>
        A README can show this repository&apos;s gate (passing, warning, failing) and its open findings. Badges carry a token of their own, so
        they reveal nothing else; creating a new one stops the old one working.
      </p>
      {markdown ? (
        <>
          <p className="hint">Copy the Markdown now: the token is not shown again.</p>
          <Snippet text={markdown} label="Badge Markdown" copyLabel="Copy Markdown" />
          <p className="badge-preview">
            <img src={`${origin}${rotate.data!.gate_url}`} alt="Gate badge" /> <img src={`${origin}${rotate.data!.findings_url}`} alt="Findings badge" />
          </p>
        </>
      ) : canManage ? (
        <button type="button" className="button" disabled={rotate.isPending} onClick={() => rotate.mutate()}>{rotate.isPending ? 'Creating…' : 'Create badge token'}</button>
      ) : (
        <p className="hint">An owner of the organization creates the badge token.</p>
      )}
      {rotate.isError && <div className="notice notice-error" role="alert">No token was created: {messageOf(rotate.error)}</div>}
    </section>
  );
}
