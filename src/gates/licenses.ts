import parseSpdx from 'spdx-expression-parse';
import satisfies from 'spdx-satisfies';
import licenseIds from 'spdx-license-ids/index.json' with { type: 'json' };
import deprecatedIds from 'spdx-license-ids/deprecated.json' with { type: 'json' };

/** How a component's licences stand against a policy's lists. */
export type LicenseVerdict = 'allowed' | 'denied' | 'not_allowed' | 'unknown';

export interface LicenseLists {
  deny: readonly string[];
  /** null: every licence not denied is allowed. */
  allow: readonly string[] | null;
}

interface Leaf {
  license: string;
  plus: boolean;
  exception: string | null;
}

type Ast = { license: string; plus?: boolean; exception?: string } | { conjunction: 'and' | 'or'; left: Ast; right: Ast };

const ALL_IDS: readonly string[] = [...licenseIds, ...deprecatedIds];
const families = new Map<string, readonly string[]>();

/** Versions of one licence share the text before their first digit (GPL-, LGPL-, Apache-). */
function familyOf(id: string): string {
  return /^[^0-9]*/.exec(id)![0];
}

/**
 * The ids of a licence family that spdx-satisfies can compare. Version ranges never cross families,
 * so comparisons stay within one; and spdx-satisfies bundles an older licence list, where an id it
 * does not know (the recent GFDL variants) makes a whole comparison throw, so those are left out.
 */
function familyMembers(id: string): readonly string[] {
  const family = familyOf(id);
  let members = families.get(family);
  if (!members) {
    members = ALL_IDS.filter((candidate) => familyOf(candidate) === family && comparable(candidate));
    families.set(family, members);
  }
  return members;
}

function comparable(id: string): boolean {
  try {
    for (const probe of ['MIT', 'GPL-2.0+']) {
      satisfies(id, [probe]);
      satisfies(probe, [id]);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a deny or allow entry is not usable, or null when it is one licence: an SPDX id (with `+` or a
 * `WITH` exception) or a LicenseRef. Lists name licences; an expression of several judges nothing.
 */
export function licenseEntryProblem(entry: string): string | null {
  let ast: Ast;
  try {
    ast = parseSpdx(entry) as Ast;
  } catch {
    return `"${entry}" is not an SPDX licence identifier (see https://spdx.org/licenses/) or LicenseRef-…`;
  }
  return 'license' in ast ? null : `"${entry}" is an expression; list each licence on its own`;
}

/**
 * Judges components' licence expressions against deny and allow lists with SPDX semantics: an OR
 * is a choice, so `MIT OR GPL-3.0-or-later` passes a deny of GPL-3.0-or-later; an AND needs every
 * side; `+` and `-or-later` admit later versions, so a deny must cover all of them to bite. What no
 * list can judge (unparsable text, NOASSERTION, a LicenseRef the lists do not name, an expression over
 * 1,000 characters or 64 AND/OR) is unknown.
 */
export function licenseJudge(lists: LicenseLists) {
  const denied = (id: string) => lists.deny.some((entry) => overlaps(id, entry));
  const leafVerdicts = new Map<string, LicenseVerdict>();

  function judgeLeaf(leaf: Leaf): LicenseVerdict {
    const key = leafText(leaf);
    let verdict = leafVerdicts.get(key);
    if (verdict === undefined) {
      verdict = judgeLeafUncached(leaf);
      leafVerdicts.set(key, verdict);
    }
    return verdict;
  }

  function judgeLeafUncached(leaf: Leaf): LicenseVerdict {
    const withException = leafText(leaf);
    const base = leafText({ ...leaf, exception: null });
    if (isReference(leaf.license)) {
      if (lists.deny.includes(base) || lists.deny.includes(withException)) return 'denied';
      if (lists.allow?.includes(base) || lists.allow?.includes(withException)) return 'allowed';
      return 'unknown';
    }
    // An exception only grants more permissions: it never lifts a deny of its licence, and an allow of
    // the licence covers it; an entry naming the exact "X WITH E" judges that pairing alone.
    if (lists.deny.includes(withException) || lists.deny.includes(base)) return 'denied';
    // Denied when every licence the leaf admits (with its version range) is denied.
    const family = familyMembers(leaf.license);
    if (family.includes(leaf.license) && !satisfiesSafely(base, family.filter((id) => !denied(id)))) return 'denied';
    if (lists.allow === null) return 'allowed';
    if (lists.allow.includes(withException) || lists.allow.includes(base)) return 'allowed';
    if (satisfiesSafely(base, lists.allow.filter((a) => !a.includes(' WITH ') && comparable(a)))) return 'allowed';
    return 'not_allowed';
  }

  function judgeTree(ast: Ast): LicenseVerdict {
    if ('license' in ast) return judgeLeaf({ license: ast.license, plus: ast.plus ?? false, exception: ast.exception ?? null });
    const left = judgeTree(ast.left);
    const right = judgeTree(ast.right);
    return ast.conjunction === 'or' ? bestOf(left, right) : worstOf(left, right);
  }

  return {
    /**
     * A component's verdict from its licence entries. Several entries are read as all applying (AND):
     * formats do not say they are alternatives, so assuming a choice could let a denied licence by.
     * Judged on the expression's tree, never on its alternatives spelled out: the best alternative of
     * an OR is the better of its sides' best, and of an AND the worse of theirs, so twenty ANDed
     * choices cost forty leaves, not a million alternatives.
     */
    judge(entries: readonly string[]): LicenseVerdict {
      const meaningful = entries.map((e) => e.trim()).filter((e) => e !== '');
      if (meaningful.length === 0) return 'unknown';
      const trees: Ast[] = [];
      for (const entry of meaningful) {
        const ast = parseBounded(entry);
        if (!ast) return 'unknown';
        trees.push(ast);
      }
      return trees.map(judgeTree).reduce(worstOf);
    },
  };
}

/** Longest licence expression judged, and most AND/OR in one: far beyond any real package's, and the judge's cost stays small. */
const MAX_EXPRESSION_LENGTH = 1_000;
const MAX_EXPRESSION_OPERATORS = 64;

/** The expression's tree, or null when it is unparsable or over the limits (which the judge reads as unknown). */
function parseBounded(expression: string): Ast | null {
  if (expression.length > MAX_EXPRESSION_LENGTH) return null;
  if ((expression.match(/\b(?:AND|OR)\b/gi)?.length ?? 0) > MAX_EXPRESSION_OPERATORS) return null;
  try {
    return parseSpdx(expression) as Ast;
  } catch {
    return null;
  }
}

/**
 * Verdicts from best to worst. Where every licence applies (AND) the worst counts; where one may be
 * chosen (OR) the best.
 */
const RANK: Record<LicenseVerdict, number> = { allowed: 0, unknown: 1, not_allowed: 2, denied: 3 };

function worstOf(a: LicenseVerdict, b: LicenseVerdict): LicenseVerdict {
  return RANK[a] >= RANK[b] ? a : b;
}

function bestOf(a: LicenseVerdict, b: LicenseVerdict): LicenseVerdict {
  return RANK[a] <= RANK[b] ? a : b;
}

function leafText(leaf: Leaf): string {
  return `${leaf.license}${leaf.plus ? '+' : ''}${leaf.exception ? ` WITH ${leaf.exception}` : ''}`;
}

function isReference(license: string): boolean {
  return license.startsWith('LicenseRef-') || license.startsWith('DocumentRef-');
}

/**
 * Whether a deny entry covers the id: version ranges meet (a deny of GPL-3.0-or-later covers
 * GPL-3.0-only); an entry with an exception covers that exact pairing only, judged per leaf.
 */
function overlaps(id: string, entry: string): boolean {
  if (id === entry) return true;
  if (isReference(entry) || entry.includes(' WITH ') || familyOf(id) !== familyOf(entry)) return false;
  return satisfiesSafely(id, [entry]);
}

function satisfiesSafely(expression: string, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  try {
    return satisfies(expression, list);
  } catch {
    return false;
  }
}
