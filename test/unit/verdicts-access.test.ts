import { describe, expect, it } from 'vitest';
import { loadProviders } from '../../src/providers-config.js';
import { forgeAccessResolver } from '../../src/verdicts/access.js';

/** Two GitLab instances, each with the group token Scanyard acts with (SERVICE_PROVIDERS entries as README shows them). */
const providers = loadProviders({
  SERVICE_PROVIDERS: JSON.stringify([
    { id: 'corp', type: 'gitlab', name: 'Corp GitLab', url: 'https://gitlab.corp.example', client_id: 'a', client_secret: 'b', token: 'glpat-corp', webhook_secret: 'w1' },
    { id: 'oss', type: 'gitlab', name: 'GitLab.com', client_id: 'c', client_secret: 'd', token: 'glpat-oss', webhook_secret: 'w2' },
  ]),
});

describe("a verdict's forge", () => {
  it("is the provider the repository's organisation is linked to", async () => {
    const links: Record<string, string | null> = { linkedToOss: 'oss', linkedToCorp: 'corp', unlinked: null, linkedToRemoved: 'gone' };
    const forgeOf = forgeAccessResolver(providers, async (repositoryId) => links[repositoryId] ?? null, false);
    const oss = await forgeOf('linkedToOss');
    expect([oss?.apiUrl, await oss?.token('acme/api')]).toEqual(['https://gitlab.com/api/v4', 'glpat-oss']);
    expect(await (await forgeOf('linkedToCorp'))?.token('acme/api')).toBe('glpat-corp');
    // Unlinked, with two providers to choose from: none is guessed; a link to a provider no longer configured: none.
    expect(await forgeOf('unlinked')).toBeNull();
    expect(await forgeOf('linkedToRemoved')).toBeNull();
  });

  it('is the one provider with credentials for an organisation not linked', async () => {
    const forgeOf = forgeAccessResolver(providers.slice(0, 1), async () => null, false);
    expect(await (await forgeOf('any'))?.token('acme/api')).toBe('glpat-corp');
  });
});
