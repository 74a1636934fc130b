import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from './scim-error.js';

/** One `attribute eq "value"` of a filter, the attribute named as the resource type's table knows it. */
export interface Condition<A extends string> { attribute: A; value: string }

/** Longer filters are no query an IdP sends; the parser recurses, so nesting is bounded here too. */
const MAX_FILTER = 1000;

/**
 * A `filter` query parameter (RFC 7644 3.4.2.2) as the conditions all of which a resource must meet:
 * `eq` comparisons of the attributes `attributes` names (lower case: attribute names ignore case,
 * RFC 7643 2.1), joined by `and`. That is every filter Okta and Entra ID send (`userName eq "…"`,
 * `externalId eq "…"`, `displayName eq "…"`, Entra's `id eq "…" and members eq "…"`); anything else
 * is an `invalidFilter` naming what is supported, never a scan of every resource.
 */
export function parseFilter<A extends string>(filter: string | undefined, attributes: Record<string, A>): Condition<A>[] {
  if (filter === undefined || filter.trim() === '') return [];
  const supported = `Only eq comparisons of ${Object.keys(attributes).join(', ')}, joined by "and", are supported.`;
  if (filter.length > MAX_FILTER) throw new ScimError(400, `The filter is longer than ${MAX_FILTER} characters.`, 'invalidFilter');
  let tree: Filter;
  try {
    tree = parse(filter);
  } catch {
    throw new ScimError(400, `The filter is not a SCIM filter (RFC 7644 3.4.2.2). ${supported}`, 'invalidFilter');
  }
  const conditions: Condition<A>[] = [];
  const visit = (node: Filter): void => {
    if (node.op === 'and' && 'filters' in node) {
      node.filters.forEach(visit);
      return;
    }
    const attribute = node.op === 'eq' && 'compValue' in node ? attributes[node.attrPath.toLowerCase()] : undefined;
    if (attribute === undefined || !('compValue' in node) || typeof node.compValue !== 'string') {
      throw new ScimError(400, supported, 'invalidFilter');
    }
    conditions.push({ attribute, value: node.compValue });
  };
  visit(tree);
  return conditions;
}

/**
 * The member a PATCH path selects: `members[value eq "id"]` (Okta's removal). Null for a path that
 * is not of that form, which the caller answers for.
 */
export function memberOfPath(path: string): string | null {
  if (!/^members\[/i.test(path) || path.length > MAX_FILTER) return null;
  let tree: Filter;
  try {
    tree = parse(path);
  } catch {
    return null;
  }
  if (tree.op !== '[]' || !('valFilter' in tree)) return null;
  const inner = tree.valFilter;
  return inner.op === 'eq' && 'compValue' in inner && inner.attrPath.toLowerCase() === 'value' && typeof inner.compValue === 'string'
    ? inner.compValue : null;
}
