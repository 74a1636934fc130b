import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import type { Page } from '../db/page.js';
import { replyPage } from '../http/pagination.js';
import { listRoute, readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { badRequest } from '../problem.js';
import { ComponentParams, ComponentPathsSchema, ComponentsDiffQuery, ComponentsDiffSchema, ComponentSchema, ComponentsQuery, FindingSchema, FindingsQuery, StatusQuery, StatusSchema, VulnerabilityGroupSchema } from './schema.js';
import { presentComponent, presentFinding, presentPathComponent, presentStatus } from './presenter.js';
import { findingsCsv, wantsCsv } from './findings-csv.js';
import { diffCounts, diffMarkdown } from './components-diff.js';

const tags = ['scans'];
const VulnerabilityGroupList = Type.Array(VulnerabilityGroupSchema);

/** What a repository's refs hold now: status, findings (JSON or CSV) and components. */
export const resultRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const results = services.results;
  app.get('/repos/:id/status', readRoute({ tags, summary: 'The scan status of a repository: its default branch, or another ref with ?ref=', params: IdParams, querystring: StatusQuery }, StatusSchema, 400),
    async (request) => {
      const { ref, baseRef, row, analyses } = await results.status(request.actor!, request.params.id, request.query.ref);
      return presentStatus(request.params.id, ref, baseRef, row, analyses);
    });

  app.get('/repos/:id/findings', withCsv(listRoute({ tags, summary: "A repository's findings, most severe first; with Accept: text/csv every matching finding (all pages) as CSV", params: IdParams, querystring: FindingsQuery }, FindingSchema, 'Findings.', 404)),
    async (request, reply) => {
      const { severity, tool, q, ref, vs_base: vsBase, introduced_in: introducedIn, fixed_in: fixedIn, reopened_in: reopenedIn, kev, sort, sla, group } = request.query;
      if (group === 'vulnerability') {
        const alone = (['q', 'vs_base', 'introduced_in', 'fixed_in', 'reopened_in', 'kev', 'sort', 'sla'] as const).filter((name) => request.query[name] !== undefined);
        if (alone.length > 0) throw badRequest(`group=vulnerability filters by state, severity and tool only; leave out ${alone.join(', ')}.`, alone.map((name) => ({ path: `/${name}`, message: 'must be absent with group' })));
        // The route's schema serialises findings; a group has its own (VulnerabilityGroup in the OpenAPI document).
        reply.serializer(reply.compileSerializationSchema(VulnerabilityGroupList as unknown as Record<string, unknown>));
        const filters = { state: request.query.state ?? 'open', severity, tool };
        return replyPage(request, reply, (page) => results.vulnerabilities(request.actor!, request.params.id, ref, filters, page), (g) => g) as never;
      }
      // What an upload changed is asked about whatever happened to those findings since.
      const state = request.query.state ?? (introducedIn || fixedIn || reopenedIn ? 'all' : 'open');
      const filters = { state, severity, tool, q, introducedIn, fixedIn, reopenedIn, kev, sort, sla };
      const load = (page: Page) => results.findings(request.actor!, request.params.id, ref, filters, vsBase, page);
      if (wantsCsv(request)) {
        const csv = await findingsCsv(load, presentFinding);
        // The typed reply knows the JSON body only; the CSV body is a stream, which Fastify sends as it comes.
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="findings.csv"').send(csv as never);
      }
      return replyPage(request, reply, load, presentFinding);
    });

  app.get('/repos/:id/components', listRoute({ tags, summary: "A repository's components (from its SBOMs)", params: IdParams, querystring: ComponentsQuery }, ComponentSchema, 'Components, by name.', 404),
    (request, reply) => replyPage(request, reply, (page) => results.components(request.actor!, request.params.id, request.query.ref, request.query.q, page), presentComponent));

  app.get('/repos/:id/components/diff', readRoute({ tags, summary: 'What changed in the components between two refs or analyses: added, removed, changed, licences, vulnerabilities; JSON, or markdown for a pull request comment', params: IdParams, querystring: ComponentsDiffQuery }, {
    description: 'The diff.',
    content: {
      'application/json': { schema: ComponentsDiffSchema },
      'text/markdown': { schema: { type: 'string', description: 'GitHub markdown: counts, then the lists (50 lines each at most); SBOM text escaped.' } },
    },
  } as unknown as typeof ComponentsDiffSchema, 400),
  async (request, reply) => {
    const { base, head, format } = request.query;
    const diff = await results.diff(request.actor!, request.params.id, base, head);
    const accept = (request.headers.accept ?? '').toLowerCase();
    if (format === 'markdown' || (format === undefined && accept.split(',').some((type) => type.trim().startsWith('text/markdown')))) {
      return reply.type('text/markdown; charset=utf-8').send(diffMarkdown(diff, base, head) as never);
    }
    return { counts: diffCounts(diff), ...diff };
  });

  app.get('/repos/:id/components/:component_id/paths', readRoute({ tags, summary: 'How a component is pulled in: paths from direct dependencies down to it, shortest first (at most 5)', params: ComponentParams }, ComponentPathsSchema),
    async (request) => {
      const { total, paths } = await results.paths(request.actor!, request.params.id, request.params.component_id);
      return { total, paths: paths.map((path) => path.map(presentPathComponent)) };
    });
};

/** The findings list also answers text/csv: declared beside its JSON so the OpenAPI document says so. */
function withCsv<T extends { schema: { response: { 200: { content: Record<string, unknown> } } } }>(options: T): T {
  options.schema.response[200].content['text/csv'] = { schema: { type: 'string', description: 'A header line, then one line per finding (RFC 4180).' } };
  return options;
}
