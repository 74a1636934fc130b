import { describe, expect, it } from 'vitest';
import { COMPONENT_CONTENT, keptComponents, type ComponentContent, type StoredComponent } from '../../src/scans/component-rows.js';

const component = (name: string, more: Partial<ComponentContent> = {}): ComponentContent => ({
  ref: `pkg:npm/${name}@1.0.0`, name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0`, type: 'library',
  licenses: '["MIT"]', hashes: '[{"alg":"SHA-256","value":"ab"}]', depends_on: '[]', package_key: `npm/${name}`, direct: null, ...more,
});
const stored = (id: string, content: ComponentContent): StoredComponent => ({ id, ...content });

describe('which stored component rows an SBOM keeps', () => {
  it('keeps a row stated again exactly, and writes what changed, arrived or went', () => {
    const rows = [stored('1', component('express')), stored('2', component('qs')), stored('3', component('gone'))];
    const { arriving, gone } = keptComponents(rows, [component('express'), component('qs', { version: '6.13.1' }), component('new')]);
    expect(arriving.map((c) => c.name)).toEqual(['qs', 'new']);
    expect(gone.sort()).toEqual(['2', '3']);
  });

  it('tells apart a change in any one column, null from empty included', () => {
    for (const column of COMPONENT_CONTENT) {
      const was = component('x', { [column]: column === 'name' ? 'x' : null });
      for (const now of ['', 'other']) {
        const { arriving, gone } = keptComponents([stored('1', was)], [{ ...was, [column]: now }]);
        expect({ column, now, arriving: arriving.length, gone }).toEqual({ column, now, arriving: 1, gone: ['1'] });
      }
    }
  });

  it('keeps one row for each time a component is listed', () => {
    const twice = component('vendored', { ref: null, purl: null });
    const rows = [stored('1', twice), stored('2', twice), stored('3', twice)];
    expect(keptComponents(rows, [twice, twice])).toEqual({ arriving: [], gone: ['3'] });
    expect(keptComponents(rows.slice(0, 1), [twice, twice])).toEqual({ arriving: [twice], gone: [] });
  });

  it('stays linear with 40,000 look-alike components in the opposite order, and accounts for every one', () => {
    // No bom-ref or purl, one name: all share a key. Compared row by row without a bound, this order is quadratic (8 * 10^8 comparisons).
    const n = 40_000;
    const lookAlike = (i: number) => component('file', { ref: null, purl: null, package_key: null, version: String(i) });
    const rows = Array.from({ length: n }, (_, i) => stored(String(i), lookAlike(i)));
    const incoming = Array.from({ length: n }, (_, i) => lookAlike(n - 1 - i));
    const { arriving, gone } = keptComponents(rows, incoming);
    const goneIds = new Set(gone);
    const keptIds = rows.map((r) => r.id).filter((id) => !goneIds.has(id));
    // What is kept and what is written are the document, exactly once each.
    expect(keptIds.length + arriving.length).toBe(n);
    const versions = [...keptIds.map((id) => rows[Number(id)]!.version), ...arriving.map((c) => c.version)].map(Number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: n }, (_, i) => i));
  });
});
