/**
 * Badges as a README shows them: real Chromium loads the SVGs from the built server, straight and
 * as <img> in a page, and draws them at their intended size.
 */
import { describe, expect, it } from 'vitest';
import { screenshot } from './support/browser.js';
import { browserSuite } from './support/suite.js';

const suite = browserSuite({ signedIn: true });
const api = suite.api;

describe('badges in Chromium', () => {
  it('render as SVG images of a badge\'s proportions', async () => {
    const org = await api<{ id: string }>('POST', '/api/v1/orgs', { name: 'acme' });
    const repo = await api<{ id: string }>('POST', `/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    await api('PUT', `/api/v1/repos/${repo.id}/policy`, { max_open: { critical: 0 } });
    const { key } = await api<{ key: string }>('POST', '/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const sarif = JSON.stringify({
      version: '2.1.0',
      runs: [{ tool: { driver: { name: 'Scanner', rules: [{ id: 'R1' }] } }, results: [{ ruleId: 'R1', level: 'error', message: { text: 'x' }, properties: { 'security-severity': '9.8' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a.ts' }, region: { startLine: 1 } } }] }] }],
    });
    const upload = await (await fetch(`${suite.server.url}/api/v1/repos/${repo.id}/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: sarif })).json() as { id: string };
    const settled = await (await fetch(`${suite.server.url}/api/v1/uploads/${upload.id}?wait=30`, { headers: { authorization: `Bearer ${key}` } })).json() as { gate: { status: string } };
    expect(settled.gate.status).toBe('fail');
    const token = await api<{ findings_url: string; gate_url: string }>('POST', `/api/v1/repos/${repo.id}/badge-token`);

    const direct = await suite.page.goto(`${suite.server.url}${token.gate_url}`);
    expect(direct?.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(await suite.page.locator('svg').getAttribute('aria-label')).toBe('gate: failing');

    // A page of this service (its CSP allows its own images), with the badges as a README embeds them.
    await suite.page.goto(`${suite.server.url}/`);
    const images = [['findings', token.findings_url], ['gate', token.gate_url], ['wrong', `/badge/${repo.id}/gate.svg?token=syb_wrong`]];
    await suite.page.evaluate(`document.body.innerHTML = ${JSON.stringify(images.map(([id, src]) => `<img id="${id}" src="${src}">`).join(' '))}`);
    // Page code as a string: this project's TypeScript has no DOM types outside web/.
    const sizes = await suite.page.evaluate(`(async () => {
      const images = [...document.querySelectorAll('img')];
      await Promise.all(images.map((img) => img.complete ? null : new Promise((resolve) => { img.onload = resolve; img.onerror = resolve; })));
      return Object.fromEntries(images.map((img) => [img.id, [img.naturalWidth, img.naturalHeight]]));
    })()`) as Record<string, [number, number]>;
    expect(sizes.findings![1]).toBe(20);
    expect(sizes.findings![0]).toBeGreaterThan(60);
    expect(sizes.gate![1]).toBe(20);
    expect(sizes.gate![0]).toBeGreaterThan(50);
    expect(sizes.wrong).toEqual([0, 0]);
    await screenshot(suite.page, 'badges');
  });
});
