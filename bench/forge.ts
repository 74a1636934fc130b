import { createTestApp } from '../test/support/app.js';
import type { DbKind } from '../test/support/db.js';
import { startGithubEmulator } from '../test/support/forge-emulator/github.js';
import { forgeSession } from '../test/forge/helpers.js';
import { PG_ADMIN_URL, postgresAvailable } from './support.js';

export interface ForgeBenchRow {
  database: string;
  seconds: number;
  detail: string;
}

const REPOS = 250;
const MEMBERS = 40;
const TEAMS = 6;
const SECRET = 'bench-webhook-secret';

/**
 * Linking an organisation on the GitHub emulator (250 repositories, 40 members, 6 teams of 8 people
 * holding 40 repositories each, GitHub's 100 per page): from the PUT until the link shows its first
 * pass done. Target: 30 s.
 */
export async function benchForge(log: (line: string) => void): Promise<ForgeBenchRow[]> {
  const kinds: DbKind[] = ['sqlite'];
  if (await postgresAvailable()) {
    process.env.TEST_DATABASE_URL ??= PG_ADMIN_URL;
    kinds.push('postgres');
  }
  const rows: ForgeBenchRow[] = [];
  for (const kind of kinds) {
    const gh = await startGithubEmulator();
    const org = gh.addOrg('bench-org');
    for (let i = 1; i <= MEMBERS; i++) {
      gh.addUser(i, `person-${i}`);
      org.members.set(i, i <= 3 ? 'admin' : 'member');
    }
    for (let i = 0; i < REPOS; i++) org.repos.push({ id: gh.nextId(), name: `service-${i}`, default_branch: 'main', visibility: 'private', archived: false });
    for (let team = 0; team < TEAMS; team++) {
      const members = new Set(Array.from({ length: 8 }, (_, i) => ((team * 6 + i) % MEMBERS) + 1));
      const repos = new Map(org.repos.slice(team * 40, team * 40 + 40).map((r, i) => [r.id, (['pull', 'push', 'admin'] as const)[i % 3]!]));
      org.teams.push({ id: gh.nextId(), slug: `team-${team}`, name: `Team ${team}`, description: null, members, repos });
    }
    const provider = { id: 'gh', type: 'github', name: 'GitHub', client_id: 'c', client_secret: 's', url: gh.origin, api_url: gh.apiUrl, app_id: gh.appId, private_key: gh.privateKey, webhook_secret: SECRET };
    const t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([provider]), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    t.app.services.forge.startWorkers(t.app.log);
    try {
      const owner = await forgeSession(t, 'gh', '1', 'person-1', gh.tokenFor(1));
      const created = await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'Bench Org' } });
      const orgId = created.json<{ id: string }>().id;
      const started = performance.now();
      const linked = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: owner.cookie }, payload: { provider: 'gh', owner: 'bench-org' } });
      if (linked.statusCode !== 200) throw new Error(`linking failed: ${linked.statusCode} ${linked.body}`);
      let link: { last_synced_at: string | null; last_error: string | null; counts: Record<string, number> };
      for (;;) {
        link = (await t.request({ url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: owner.cookie } })).json();
        if (link.last_synced_at !== null || link.last_error !== null) break;
        if (performance.now() - started > 120_000) throw new Error('no pass finished within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = (performance.now() - started) / 1000;
      if (link.last_error !== null) throw new Error(`the pass failed: ${link.last_error}`);
      const detail = `${link.counts.repositories} repositories, ${link.counts.members} members, ${link.counts.teams} teams; ${gh.requests.length} forge requests`;
      log(`${kind}: linked and synced in ${seconds.toFixed(2)} s (${detail})`);
      rows.push({ database: kind, seconds, detail });
    } finally {
      await t.app.services.forge.stopWorkers();
      await t.close();
      await gh.close();
    }
  }
  return rows;
}
