import { describeType, type JsonRecord, list, record, records, score, text } from './access.js';
import { bomFromXml } from './cyclonedx-xml.js';
import { analysis, finding, packageFingerprint, purlParts } from './finding.js';
import { DependencyGraph } from './graph.js';
import { higher, severityOf, UNRATED } from '../../domain/severity.js';
import { decodeText, parseJson } from './text.js';
import { type NormalisedAnalysis, type NormalisedComponent, type NormalisedDependency, type NormalisedFinding, type NormalisedScan, type Severity, type VexStatement } from '../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from './types.js';

const SPEC_VERSION = /^1\.\d+$/;

/** A CycloneDX BOM in its JSON form (XML is first turned into the same shape). */
export function parseCycloneDxJson(doc: unknown): NormalisedScan {
  const bom = record(doc);
  if (!bom) throw new ParseError(`A CycloneDX BOM must be a JSON object, not ${describeType(doc)}`);
  if (bom.bomFormat === undefined && bom.specVersion === undefined) {
    throw new ParseError('This is not a CycloneDX BOM: "bomFormat" is missing');
  }
  if (bom.bomFormat !== undefined && bom.bomFormat !== 'CycloneDX') {
    throw new ParseError(`"bomFormat" is ${JSON.stringify(bom.bomFormat)}, expected "CycloneDX"`);
  }
  checkSpecVersion(bom.specVersion);
  return fromBom(bom);
}

export function parseCycloneDxXml(source: string): NormalisedScan {
  const bom = bomFromXml(source);
  checkSpecVersion(bom.specVersion);
  return fromBom(bom);
}

function checkSpecVersion(version: unknown): void {
  if (version === undefined) return;
  const written = text(version);
  if (written === undefined || !SPEC_VERSION.test(written)) {
    throw new ParseError(`CycloneDX ${written ?? describeType(version)} is not supported; upload CycloneDX 1.2 to 1.6`);
  }
}

function fromBom(bom: JsonRecord): NormalisedScan {
  const metadata = record(bom.metadata);
  const tool = toolOf(metadata?.tools);
  const result: NormalisedAnalysis = analysis(tool.name, tool.version);
  const byRef = new Map<string, NormalisedComponent>();

  // metadata.component is what the BOM describes, not one of its parts; it only names affected refs.
  const subject = record(metadata?.component);
  if (subject) {
    const component = toComponent(subject, 'metadata.component', false);
    if (component?.ref) byRef.set(component.ref, component);
  }
  for (const component of walkComponents(bom.components)) {
    result.components.push(component);
    if (component.ref && !byRef.has(component.ref)) byRef.set(component.ref, component);
  }
  result.dependencies = dependenciesOf(bom.dependencies);
  const root = text(subject?.['bom-ref']);
  if (root) result.roots = [root];
  readVulnerabilities(bom.vulnerabilities, byRef, result.findings);
  const statements = vexStatements(bom.vulnerabilities, byRef);
  // A BOM of nothing but analysed vulnerabilities is a CycloneDX VEX: it states, it reports nothing
  // (and must not stand for an SBOM that lists no packages any more).
  if (result.components.length === 0 && statements.length > 0) return { format: 'cyclonedx', analyses: [], statements };
  return { format: 'cyclonedx', analyses: [result], ...(statements.length > 0 ? { statements } : {}) };
}

/** CycloneDX analysis states in OpenVEX's words (resolved_with_pedigree is resolved too). */
const ANALYSIS_STATES: Record<string, VexStatement['status']> = {
  not_affected: 'not_affected', false_positive: 'false_positive', resolved: 'fixed', resolved_with_pedigree: 'fixed',
  exploitable: 'affected', in_triage: 'under_investigation',
};

/**
 * vulnerabilities[].analysis as VEX statements, one per affected ref: the component's purl when the
 * BOM lists it, the ref itself when it is a purl, else the bom-ref (a BOM-Link's fragment) for the
 * repository's stored SBOMs to resolve.
 */
function vexStatements(vulnerabilities: unknown, byRef: ReadonlyMap<string, NormalisedComponent>): VexStatement[] {
  return records(vulnerabilities).flatMap((vulnerability) => {
    const analysis = record(vulnerability.analysis);
    const status = ANALYSIS_STATES[text(analysis?.state) ?? ''];
    const id = text(vulnerability.id);
    if (!analysis || !status || !id) return [];
    const aliases = records(vulnerability.references).map((r) => text(r.id)).filter((alias): alias is string => alias !== undefined && alias !== id);
    return records(vulnerability.affects).flatMap((affected): VexStatement[] => {
      const ref = text(affected.ref);
      if (ref === undefined) return [];
      const purl = byRef.get(ref)?.purl ?? (ref.startsWith('pkg:') ? ref : null);
      const product = purl ? { purl } : { ref: ref.startsWith('urn:cdx:') && ref.includes('#') ? ref.slice(ref.indexOf('#') + 1) : ref };
      return [{ vulnerability: id, aliases, product, status, justification: text(analysis.justification) ?? null, detail: text(analysis.detail) ?? null }];
    });
  });
}

/**
 * The tool that made the SBOM. Lists also name the libraries it used and the package manager it ran
 * (cyclonedx-npm lists npm, cyclonedx-library, then itself), so libraries are skipped and a CycloneDX
 * generator wins; otherwise the first listed.
 */
function toolOf(tools: unknown): { name: string; version: string | null } {
  // 1.2–1.4: [{ vendor, name, version }]; 1.5+: { components: [...], services: [...] }.
  const listed = (Array.isArray(tools) ? tools : [...list(record(tools)?.components), ...list(record(tools)?.services)])
    .map((tool) => ({ name: text(record(tool)?.name), version: text(record(tool)?.version) ?? null }))
    .filter((tool): tool is { name: string; version: string | null } => Boolean(tool.name));
  const generators = listed.filter((tool) => !/-(lib|library)$/i.test(tool.name));
  const chosen = generators.find((tool) => /^cyclonedx/i.test(tool.name)) ?? generators[0] ?? listed[0];
  return chosen ?? { name: 'CycloneDX', version: null };
}

/** Every component, nested ones included, depth first; iterative because nesting is untrusted. */
function walkComponents(top: unknown): NormalisedComponent[] {
  const out: NormalisedComponent[] = [];
  const stack: { value: unknown; path: string }[] = [];
  pushChildren(stack, top, 'components');
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const doc = record(item.value);
    if (!doc) throw new ParseError(`${item.path} must be an object, not ${describeType(item.value)}`);
    const component = toComponent(doc, item.path, true);
    if (component) out.push(component);
    pushChildren(stack, doc.components, `${item.path}.components`);
  }
  return out;
}

function pushChildren(stack: { value: unknown; path: string }[], children: unknown, path: string): void {
  if (children === undefined || children === null) return;
  if (!Array.isArray(children)) throw new ParseError(`${path} must be an array, not ${describeType(children)}`);
  for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], path: `${path}[${i}]` });
}

function toComponent(doc: JsonRecord, path: string, required: boolean): NormalisedComponent | undefined {
  const name = text(doc.name);
  if (!name) {
    if (required) throw new ParseError(`${path}.name is missing`);
    return undefined;
  }
  return {
    ref: text(doc['bom-ref']) ?? null,
    name,
    version: text(doc.version) ?? null,
    purl: text(doc.purl) ?? null,
    type: text(doc.type) ?? null,
    licenses: licensesOf(doc.licenses),
    hashes: records(doc.hashes).flatMap((hash) => {
      const alg = text(hash.alg);
      const value = text(hash.content);
      return alg && value ? [{ alg, value }] : [];
    }),
  };
}

function licensesOf(licenses: unknown): string[] {
  const out: string[] = [];
  for (const choice of records(licenses)) {
    const license = record(choice.license);
    const written = text(choice.expression) ?? text(license?.id) ?? text(license?.name);
    if (written && !out.includes(written)) out.push(written);
  }
  return out;
}

function dependenciesOf(dependencies: unknown): NormalisedDependency[] {
  const graph = new DependencyGraph();
  for (const entry of records(dependencies)) {
    const ref = text(entry.ref);
    if (!ref) continue;
    graph.add(ref);
    for (const target of list(entry.dependsOn)) {
      const targetRef = text(target);
      if (targetRef) graph.add(ref, targetRef);
    }
  }
  return graph.toList();
}

function readVulnerabilities(
  vulnerabilities: unknown,
  byRef: ReadonlyMap<string, NormalisedComponent>,
  into: NormalisedFinding[],
): void {
  if (vulnerabilities !== undefined && vulnerabilities !== null && !Array.isArray(vulnerabilities)) {
    throw new ParseError(`"vulnerabilities" must be an array, not ${describeType(vulnerabilities)}`);
  }
  list(vulnerabilities).forEach((value, index) => {
    const vulnerability = record(value);
    const id = text(vulnerability?.id) ?? text(vulnerability?.['bom-ref']);
    if (!vulnerability || !id) throw new ParseError(`vulnerabilities[${index}].id is missing`);
    const rating = ratingOf(vulnerability.ratings);
    const base = {
      ruleId: id,
      message: text(vulnerability.description) ?? text(vulnerability.detail) ?? id,
      severity: rating.severity,
      level: rating.level,
      securitySeverity: rating.score,
      helpUri: text(records(vulnerability.advisories)[0]?.url) ?? text(record(vulnerability.source)?.url) ?? null,
    };
    const affects = records(vulnerability.affects);
    if (affects.length === 0) into.push(finding(base));
    for (const affected of affects) into.push(finding({ ...base, ...affectedPackage(text(affected.ref), byRef) }));
  });
}

function affectedPackage(
  ref: string | undefined,
  byRef: ReadonlyMap<string, NormalisedComponent>,
): Partial<Pick<NormalisedFinding, 'packageName' | 'packageVersion' | 'purl' | 'fingerprint'>> {
  if (ref === undefined) return {};
  const component = byRef.get(ref);
  if (component) {
    const { name, version, purl } = component;
    return { packageName: name, packageVersion: version, purl, fingerprint: packageFingerprint(purl, name, version) };
  }
  // A ref to no component of this BOM is often a purl itself.
  const parts = ref.startsWith('pkg:') ? purlParts(ref) : undefined;
  return parts
    ? { packageName: parts.name, packageVersion: parts.version, purl: ref, fingerprint: ref }
    : { fingerprint: ref };
}

/** The highest rating wins; a rating without a usable severity word falls back to its score. */
function ratingOf(ratings: unknown): { severity: Severity; level: string | null; score: number | null } {
  let best: Severity | undefined;
  let level: string | null = null;
  let maxScore: number | undefined;
  for (const rating of records(ratings)) {
    const ratingScore = score(rating.score);
    if (ratingScore !== undefined && (maxScore === undefined || ratingScore > maxScore)) maxScore = ratingScore;
    const word = text(rating.severity);
    const severity = severityOf(word, ratingScore);
    if (severity === undefined) continue;
    if (best === undefined || higher(best, severity) !== best) {
      best = severity;
      level = word ?? null;
    }
  }
  return { severity: best ?? UNRATED, level, score: maxScore ?? null };
}

export const cycloneDxJson: FormatParser = {
  title: 'CycloneDX JSON', format: 'cyclonedx', syntax: 'json', contentTypes: ['application/vnd.cyclonedx+json'],
  recognises: (doc) => !doc.array && doc.keyValueStartsWith('bomFormat', 'CycloneDX'),
  parse: (body) => parseCycloneDxJson(parseJson(body, FAMILIES.cyclonedx.document)),
};

export const cycloneDxXml: FormatParser = {
  title: 'CycloneDX XML', format: 'cyclonedx', syntax: 'xml', contentTypes: ['application/vnd.cyclonedx+xml'],
  recognises: (doc) => localName(doc.rootElement()) === 'bom',
  parse: (body) => parseCycloneDxXml(decodeText(body)),
};

function localName(element: string | undefined): string | undefined {
  return element?.slice(element.indexOf(':') + 1);
}
