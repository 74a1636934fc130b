/**
 * The import rules of src/ (docs/architecture.md, "Layout"). Folders stand in one order, top to
 * bottom: the wiring (app.ts, main.ts, services.ts, maintenance.ts), the ingest pipeline (scans/),
 * the features, the resources, the domain vocabulary (domain/) and the base. Each imports only what
 * is below it, no two folders import each other even through others, and inside a folder routes ->
 * services -> stores -> db. `npm run lint` runs this.
 */
const WIRING = '^src/(app|main|services|maintenance)\\.ts$';
const INGEST = '^src/scans/';
const FEATURES = '^src/(advisories|analyses|badges|ci-identity|components|findings|forge|gates|metrics|remediation|results|suppressions|verdicts|vex|webhooks)/';
const RESOURCES = '^src/(apikeys|audit|auth|orgs|refs|repos|scim|teams|users)/|^src/policy(-store)?\\.ts$';
const BASE = '^src/(db|http|net|jobs|bodies|domain|blobs|github-app)/|^src/(config|problem|names|version|providers-config|ci-issuers-config|saml-metadata|date-time|markup)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      scope: 'folder',
      comment: 'Folders that reach each other, even through others, form a knot: a change to one can break any of them. Move what both need below both (domain/ for shared vocabulary), or hand the later step an event.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'base-imports-no-feature',
      severity: 'error',
      comment: 'db/, http/, net/, jobs/, bodies/, domain/, github-app/ and the configuration are below every feature and resource: they take plain values and know no feature, so any feature can use them.',
      from: { path: BASE },
      to: { path: '^src/', pathNot: BASE },
    },
    {
      name: 'resources-import-no-feature',
      severity: 'error',
      comment: 'Organisations, repositories, teams, users, keys, refs and the audit log are what features are about; they never depend on a feature.',
      from: { path: RESOURCES },
      to: { path: `${FEATURES}|${INGEST}` },
    },
    {
      name: 'wiring-is-the-top',
      severity: 'error',
      comment: 'app.ts, main.ts, services.ts and maintenance.ts build everything; below them only routes name the Services they are handed, as a type (erased at build).',
      from: { path: '^src/', pathNot: WIRING },
      to: { path: WIRING, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-ingest',
      severity: 'error',
      comment: 'scans/ is the ingest pipeline: it calls the features and publishes what it committed (scans/committed.ts). A feature that needs to act after an upload subscribes there; what it needs of a finding or a severity lives in domain/.',
      from: { path: '^src/', pathNot: `${INGEST}|${WIRING}` },
      to: { path: INGEST },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other cannot be read, tested or moved one at a time.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'db-imports-only-db',
      severity: 'error',
      comment: 'db/ is the bottom layer: it knows nothing of features, HTTP or configuration (problem.ts, the errors every layer raises, is not HTTP).',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db/|problem\\.ts$)' },
    },
    {
      name: 'config-imports-no-features',
      severity: 'error',
      comment: 'Configuration is read before anything else exists; it may describe the database, nothing more.',
      from: { path: '^src/(config|providers-config|problem|version)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(db/|providers-config\\.ts$|ci-issuers-config\\.ts$|saml-metadata\\.ts$)' },
    },
    {
      name: 'http-imports-no-features',
      severity: 'error',
      comment: 'http/ is plumbing for every route; a feature plugs into it from app.ts, never the other way.',
      from: { path: '^src/http/' },
      to: { path: `${FEATURES}|${RESOURCES}|${INGEST}|${WIRING}` },
    },
    {
      name: 'only-routes-speak-http',
      severity: 'error',
      comment: 'Services, stores, presenters and the policy take and return plain values; HTTP stays in routes and schemas.',
      from: { path: '^src/', pathNot: '^src/(http/|app\\.ts$)|(routes|schema|upload-body|upload-doc)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'stores-import-only-db',
      severity: 'error',
      comment: 'A store is SQL only: it may use db/ and other stores, never a service, the policy, a route or a presenter.',
      from: { path: 'store\\.ts$' },
      to: { path: '(service|routes|presenter|policy)\\.ts$|^src/(?!db/).*schema\\.ts$' },
    },
    {
      name: 'services-below-routes',
      severity: 'error',
      comment: 'Services take domain input: request schemas, presenters and routes are above them.',
      from: { path: '(service|policy)\\.ts$' },
      to: { path: '(routes|presenter)\\.ts$|^src/(?!db/).*schema\\.ts$' },
    },
    {
      name: 'routes-only-from-app',
      severity: 'error',
      comment: 'Routes are the top: only app.ts registers them.',
      from: { path: '^src/', pathNot: '^src/app\\.ts$' },
      to: { path: 'routes\\.ts$' },
    },
    {
      name: 'routes-call-services',
      severity: 'error',
      comment: 'Routes reach the database through services, never a store directly.',
      from: { path: 'routes\\.ts$' },
      to: { path: 'store\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
