/**
 * The organisation's Metrics tab and a repository's trend, from daily snapshots the maintenance loop
 * writes: the team filter changes the figures, and each chart's table view holds the numbers.
 * Findings are uploaded now and their first seen moved 40 days back in the database, so the loop
 * backfills 40 days from that history, as it does after the metrics migration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import { screenshot } from './support/browser.js';
import { browserSuite } from './support/suite.js';
import { creator, devLogin } from './support/session.js';

const DAY = 86_400_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'scanyard-e2e-metrics-'));
const file = path.join(dir, 'scanyard.db');
// The loop every second: its first round comes a second after start, and each writes what is missing.
const suite = browserSuite({ env: { DATABASE_URL: `sqlite:${file}`, SERVICE_MAINTENANCE_SECONDS: '1' }, stop: async () => rmSync(dir, { recursive: true, force: true }) });
let orgId = '';
const repos: Record<string, string> = {};
const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);

// SARIF 2.1.0 results with GitHub's security-severity property (test/support/sarif.ts): 9.5 critical, 7.5 high.
const critical = (rule: string): SarifResultSpec => ({ rule, file: `src/${rule}.ts`, securitySeverity: 9.5 });
const high = (rule: string): SarifResultSpec => ({ rule, file: `src/${rule}.ts`, securitySeverity: 7.5 });

beforeAll(async () => {
  await devLogin(suite.page);
  const post = creator(suite.page, suite.server);
  orgId = (await post<{ id: string }>('/api/v1/orgs', { name: 'Portfolio' })).id;
  for (const name of ['payments-api', 'ledger']) repos[name] = (await post<{ id: string }>(`/api/v1/orgs/${orgId}/repos`, { name })).id;
  const team = await post<{ id: string }>(`/api/v1/orgs/${orgId}/teams`, { name: 'payments' });
  const put = async (url: string, data: object) => expect((await suite.page.request.put(url, { data, headers: { origin: suite.server.url } })).status()).toBe(200);
  await put(`/api/v1/teams/${team.id}/repos/${repos['payments-api']}`, { role: 'read' });
  await put(`/api/v1/orgs/${orgId}/sla`, { critical: 7, high: 30 });
  const key = (await post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'], expires_at: null, org_ids: null })).key;
  const upload = async (repo: string, results: SarifResultSpec[]) => {
    const res = await fetch(`${suite.server.url}/api/v1/repos/${repos[repo]}/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: sarifLog(results) });
    expect(res.status, await res.clone().text()).toBe(202);
  };
  await upload('payments-api', [critical('P1'), critical('P2')]);
  await upload('ledger', [high('L1'), high('L2'), high('L3')]);
  await until('both uploads are processed', async () => {
    const states = await Promise.all(Object.values(repos).map(async (id) => (await (await suite.page.request.get(`/api/v1/repos/${id}/status`)).json() as { state: string }).state));
    return states.every((state) => state === 'complete');
  });
  // First seen 40 days ago: past every SLA above, and 40 days of history for the loop to write.
  const db = new SQLite(file);
  db.pragma('busy_timeout = 5000');
  const seen = new Date(Date.now() - 40 * DAY).toISOString();
  db.prepare('update findings set created_at = ?, updated_at = ?').run(seen, seen);
  db.close();
  await until('the loop wrote yesterday from the history', async () => {
    const { points } = await (await suite.page.request.get(`/api/v1/orgs/${orgId}/metrics?from=${yesterday}&to=${yesterday}`)).json() as { points: { open: { critical: number; high: number } }[] };
    return points[0]?.open.critical === 2 && points[0].open.high === 3;
  });
});

/** Waits (up to 20 s) for `done` to hold: expect.poll is for tests, not their setup. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (await done()) return;
  }
  throw new Error(`waited 20 s for this in vain: ${what}`);
}

/** A chart's table view opened, by the caption of its table. */
async function tableView(caption: string): Promise<Locator> {
  const details = suite.page.locator('details', { has: suite.page.locator('caption', { hasText: caption }) });
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  return suite.page.getByRole('table', { name: caption });
}

/** The cells of a table's row whose header is `name`. */
async function rowOf(table: Locator, name: string): Promise<string[]> {
  const row = table.getByRole('row').filter({ has: suite.page.getByRole('rowheader', { name, exact: true }) });
  await row.waitFor();
  return row.locator('td').allTextContents();
}

describe('metrics in the browser', () => {
  it('filters the organisation overview by team: breached now, by team and repository, and the open series change', async () => {
    await suite.page.goto(`/orgs/${orgId}?tab=metrics`);
    const breached = suite.page.getByRole('region', { name: 'Breached now' });
    await expect.poll(() => breached.locator('.big-number').textContent()).toBe('5');
    expect(await rowOf(await tableView('Breached findings by team'), 'payments')).toEqual(['2']);
    const byRepository = await tableView('Breached findings by repository');
    expect(await rowOf(byRepository, 'ledger')).toEqual(['3']);
    expect(await rowOf(byRepository, 'payments-api')).toEqual(['2']);
    // Day, then critical, high, medium, low, info.
    expect(await rowOf(await tableView('Open findings by severity per day'), yesterday)).toEqual(['2', '3', '0', '0', '0']);
    await screenshot(suite.page, 'metrics-org');

    await suite.page.getByLabel('Team', { exact: true }).selectOption({ label: 'payments' });
    await expect.poll(() => breached.locator('.big-number').textContent()).toBe('2');
    expect(new URL(suite.page.url()).searchParams.get('team')).not.toBeNull();
    const repositories = await tableView('Breached findings by repository');
    expect(await rowOf(repositories, 'payments-api')).toEqual(['2']);
    expect(await repositories.getByRole('rowheader', { name: 'ledger', exact: true }).count()).toBe(0);
    expect(await rowOf(await tableView('Open findings by severity per day'), yesterday)).toEqual(['2', '0', '0', '0', '0']);
  });

  it("shows a repository's trend from its snapshots, with the numbers in its table view", async () => {
    await suite.page.goto(`/repos/${repos['ledger']}`);
    const trend = await tableView('Open and breached findings per day');
    // Three high findings open since 40 days ago: past their 30 days for the last ten.
    expect(await rowOf(trend, yesterday)).toEqual(['3', '3']);
    const longAgo = new Date(Date.now() - 35 * DAY).toISOString().slice(0, 10);
    expect(await rowOf(trend, longAgo)).toEqual(['3', '0']);
  });
});
