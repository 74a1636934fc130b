/**
 * The import rules of src/ (docs/architecture.md, "Layout"): routes -> services -> stores -> db,
 * nothing below reaches up, and no cycles. `npm run lint` runs this.
 */
const FEATURES = '^src/(analyses|apikeys|audit|auth|orgs|refs|repos|scans|teams|users|webhooks)/';

module.exports = {
  forbidden: [
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
      to: { path: '^src/', pathNot: '^src/(db/|providers-config\\.ts$)' },
    },
    {
      name: 'http-imports-no-features',
      severity: 'error',
      comment: 'http/ is plumbing for every route; a feature plugs into it from app.ts, never the other way.',
      from: { path: '^src/http/' },
      to: { path: `${FEATURES}|^src/(policy|services|app)\\.ts$` },
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
