/** What an SBOM says of a component, as stored; a stored row saying exactly this again is kept. */
export const COMPONENT_CONTENT = ['ref', 'name', 'version', 'purl', 'type', 'licenses', 'hashes', 'depends_on', 'package_key', 'direct'] as const;
export type ComponentContent = Record<Exclude<(typeof COMPONENT_CONTENT)[number], 'direct'>, string | null> & { name: string; licenses: string; hashes: string; depends_on: string; direct: number | null };
export type StoredComponent = ComponentContent & { id: string };

/**
 * Which stored rows an SBOM's components keep: a row is kept for a component stated exactly as it
 * was (each row once, so a component listed twice keeps two). `arriving`: the components to
 * write; `gone`: the rows to delete. Pure.
 *
 * Rows are looked up by a short key (a bom-ref or SPDXID is unique within its document) and then
 * compared whole: hashing a key of every value took three times as long as these comparisons. The
 * comparisons are bounded, so that thousands of look-alike components (no bom-ref or purl, one
 * name) cannot make this quadratic: past the bound the rest are simply written anew.
 */
export function keptComponents(stored: readonly StoredComponent[], incoming: readonly ComponentContent[]): { arriving: ComponentContent[]; gone: string[] } {
  const byKey = new Map<string, StoredComponent[]>();
  for (const row of stored) {
    const same = byKey.get(shortKey(row));
    if (same) same.push(row);
    else byKey.set(shortKey(row), [row]);
  }
  let comparisons = 4 * (stored.length + incoming.length);
  const arriving: ComponentContent[] = [];
  for (const content of incoming) {
    const same = comparisons > 0 ? byKey.get(shortKey(content)) : undefined;
    const at = same ? same.findIndex((row) => comparisons-- > 0 && COMPONENT_CONTENT.every((column) => row[column] === content[column])) : -1;
    if (at === -1) arriving.push(content);
    else same!.splice(at, 1);
  }
  const gone: string[] = [];
  for (const same of byKey.values()) for (const row of same) gone.push(row.id);
  return { arriving, gone };
}

function shortKey(content: ComponentContent): string {
  return content.ref ?? content.purl ?? content.name;
}
