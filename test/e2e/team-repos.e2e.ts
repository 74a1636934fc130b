/**
 * Teams holding repositories, as an owner sets them up in the organization's Teams tab: the base
 * role, a repository given to a team with a role, the role changed, the repository taken back.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite } from './support/suite.js';
import { creator, devLogin } from './support/session.js';

const suite = browserSuite();
let orgId = '';
let teamId = '';

beforeAll(async () => {
  await devLogin(suite.page);
  const post = creator(suite.page, suite.server);
  orgId = (await post<{ id: string }>('/api/v1/orgs', { name: 'Teamwork' })).id;
  await post(`/api/v1/orgs/${orgId}/repos`, { name: 'payments-api' });
  await post(`/api/v1/orgs/${orgId}/repos`, { name: 'ledger' });
  teamId = (await post<{ id: string }>(`/api/v1/orgs/${orgId}/teams`, { name: 'payments' })).id;
});

const held = async () => (await (await suite.page.request.get(`/api/v1/teams/${teamId}/repos`)).json()) as { name: string; role: string }[];

describe('teams holding repositories', () => {
  it('sets the base role, gives a team a repository, changes its role and takes it back', async () => {
    await suite.page.goto(`/orgs/${orgId}?tab=teams`);
    const baseRole = suite.page.getByLabel('Every member may');
    await baseRole.selectOption('none');
    await expect.poll(async () => (await (await suite.page.request.get(`/api/v1/orgs/${orgId}`)).json() as { base_role: string }).base_role).toBe('none');

    const card = suite.page.locator('.team-card', { hasText: 'payments' });
    await card.getByText('None: its members read only').waitFor();
    await card.getByRole('button', { name: 'Add repository' }).click();
    await card.getByLabel('Repository', { exact: true }).selectOption({ label: 'payments-api' });
    await card.getByLabel('Role', { exact: true }).selectOption('triage');
    await card.getByRole('button', { name: 'Add', exact: true }).click();
    await card.getByRole('link', { name: 'payments-api' }).waitFor();
    expect(await held()).toEqual([expect.objectContaining({ name: 'payments-api', role: 'triage' })]);

    await card.getByLabel('Role on payments-api').selectOption('admin');
    await expect.poll(held).toEqual([expect.objectContaining({ name: 'payments-api', role: 'admin' })]);

    await card.getByRole('button', { name: 'Remove', exact: true }).click();
    await card.getByRole('button', { name: 'Remove payments-api' }).click();
    await card.getByText('None: its members read only').waitFor();
    expect(await held()).toEqual([]);
  });
});
