import { commitSha, describeType, isRecord, type JsonRecord, line, list, record, score, text } from './access.js';
import { analysis, purlParts, safeDecode } from './finding.js';
import { canonicalToolName } from './tool-name.js';
import { severityFromScore, UNRATED } from '../../domain/severity.js';
import { parseJson } from './text.js';
import { type NormalisedAnalysis, type NormalisedFinding, type NormalisedScan, type Severity } from '../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from './types.js';

/** SARIF levels in our scale, when no security-severity says better. */
const LEVEL_SEVERITY: ReadonlyMap<string, Severity> = new Map<string, Severity>([
  ['error', 'high'],
  ['warning', 'medium'],
  ['note', 'low'],
  ['none', 'info'],
]);

/** "pass", "notApplicable" and "informational" results report that nothing is wrong. */
const FINDING_KINDS: ReadonlySet<string> = new Set(['fail', 'open', 'review']);

/** ruleId of a result that names no rule at all (SARIF allows it). */
export const NO_RULE = '(no rule)';

const PLACEHOLDER = /\{\{|\}\}|\{(\d+)\}/g;
const LOCATION_LINK = /\[([^\]]*)\]\((\d+)\)/g;
const FILE_SCHEME = /^file:\/\//i;

interface Rule {
  id: string | undefined;
  name: string | null;
  defaultLevel: string | undefined;
  securitySeverity: number | undefined;
  helpUri: string | null;
  help: string | null;
  messageStrings: JsonRecord | undefined;
}

interface Run {
  index: number;
  driverRules: (Rule | undefined)[];
  extensionRules: (Rule | undefined)[][];
  ruleById: Map<string, Rule>;
  artifacts: unknown[];
  globalMessageStrings: JsonRecord | undefined;
  /** Secret scanners put the secret itself in the snippet, which is never copied. */
  keepsSnippets: boolean;
  /** Rule id lengths, longest first; built on first need. */
  idLengths?: number[];
}

export function parseSarif(doc: unknown): NormalisedScan {
  const log = record(doc);
  if (!log) throw new ParseError(`A SARIF log must be a JSON object, not ${describeType(doc)}`);
  checkVersion(log);
  if (!Array.isArray(log.runs)) throw new ParseError('The SARIF log has no "runs" array');
  if (log.runs.length === 0) throw new ParseError('The SARIF log has no runs: "runs" is empty');

  const byTool = new Map<string, NormalisedAnalysis>();
  log.runs.forEach((run, index) => {
    if (!isRecord(run)) throw new ParseError(`runs[${index}] must be an object, not ${describeType(run)}`);
    const { name, version } = toolOf(run, index);
    let target = byTool.get(name);
    if (!target) byTool.set(name, (target = analysis(name, version)));
    target.tool.version ??= version;
    readResults(run, index, target.findings);
  });
  return { format: 'sarif', analyses: [...byTool.values()] };
}

function checkVersion(log: JsonRecord): void {
  if (log.version === '2.1.0') return;
  if (log.version === undefined) {
    if (text(log.$schema)?.includes('2.1.0')) return;
    throw new ParseError('The SARIF log has no "version"; upload SARIF 2.1.0');
  }
  const version = text(log.version) ?? describeType(log.version);
  throw new ParseError(`SARIF ${version} is not supported; upload SARIF 2.1.0`);
}

function toolOf(run: JsonRecord, index: number): { name: string; version: string | null } {
  const driver = record(record(run.tool)?.driver);
  const name = text(driver?.name);
  if (!driver || !name) throw new ParseError(`runs[${index}].tool.driver.name is missing`);
  return { name: canonicalToolName(name), version: text(driver.semanticVersion) ?? text(driver.version) ?? null };
}

function readResults(runDoc: JsonRecord, index: number, into: NormalisedFinding[]): void {
  const results = runDoc.results;
  if (results === undefined || results === null) return;
  if (!Array.isArray(results)) {
    throw new ParseError(`runs[${index}].results must be an array, not ${describeType(results)}`);
  }
  const run = indexRun(runDoc, index);
  for (let i = 0; i < results.length; i++) {
    const result: unknown = results[i];
    if (!isRecord(result)) {
      throw new ParseError(`runs[${index}].results[${i}] must be an object, not ${describeType(result)}`);
    }
    const converted = toFinding(result, run);
    if (converted) into.push(converted);
  }
}

function indexRun(runDoc: JsonRecord, index: number): Run {
  const tool = record(runDoc.tool);
  const driver = record(tool?.driver);
  const driverRules = list(driver?.rules).map(toRule);
  const extensionRules = list(tool?.extensions).map((ext) => list(record(ext)?.rules).map(toRule));
  const ruleById = new Map<string, Rule>();
  for (const rules of [driverRules, ...extensionRules]) {
    for (const rule of rules) {
      if (rule?.id !== undefined && !ruleById.has(rule.id)) ruleById.set(rule.id, rule);
    }
  }
  return {
    index,
    driverRules,
    extensionRules,
    ruleById,
    artifacts: list(runDoc.artifacts),
    globalMessageStrings: record(driver?.globalMessageStrings),
    keepsSnippets: !SECRET_SCANNERS.has((text(driver?.name) ?? '').trim().toLowerCase()),
  };
}

/** Tools whose SARIF snippets are the secrets they found (lower case). */
const SECRET_SCANNERS = new Set(['gitleaks', 'trufflehog', 'detect-secrets', 'ggshield', 'noseyparker', 'betterleaks']);

// Snyk starts every rule title with its severity ("High severity - Command Injection ..."), which
// the finding already carries as its severity.
const SEVERITY_PREFIX = /^(critical|high|medium|low)\s+severity\s+-\s+/i;

function withoutSeverity(title: string | null): string | null {
  return title?.replace(SEVERITY_PREFIX, '') || title;
}

function toRule(value: unknown): Rule | undefined {
  const rule = record(value);
  if (!rule) return undefined;
  return {
    id: text(rule.id),
    name: withoutSeverity(text(record(rule.shortDescription)?.text) ?? text(rule.name) ?? null),
    defaultLevel: text(record(rule.defaultConfiguration)?.level),
    securitySeverity: score(record(rule.properties)?.['security-severity']),
    helpUri: text(rule.helpUri) ?? null,
    help: multiformat(rule.help) ?? multiformat(rule.fullDescription) ?? null,
    messageStrings: record(rule.messageStrings),
  };
}

function toFinding(result: JsonRecord, run: Run): NormalisedFinding | undefined {
  const kind = text(result.kind) ?? null;
  if (kind !== null && !FINDING_KINDS.has(kind)) return undefined;

  const ref = record(result.rule);
  const statedId = text(result.ruleId) ?? text(ref?.id);
  let rule = ruleByIndex(result, ref, run) ?? (statedId !== undefined ? ruleById(statedId, run) : undefined);
  let message = messageOf(result, rule, run);
  let ruleId = statedId ?? rule?.id;
  if (ruleId === undefined && message !== undefined) {
    // Old Gitleaks (7.x) names neither ruleId, ruleIndex nor rule; its messages start with the rule id.
    ruleId = ruleFromMessage(message, run);
    rule = ruleId !== undefined ? run.ruleById.get(ruleId) : undefined;
  }
  ruleId ??= NO_RULE;
  message ??= rule?.name ?? ruleId;

  // SARIF §3.27.10: results that are not failures default to "none", others to the rule's level.
  const level = text(result.level) ?? (kind !== null && kind !== 'fail' ? 'none' : (rule?.defaultLevel ?? 'warning'));
  const properties = record(result.properties);
  const securitySeverity = score(properties?.['security-severity']) ?? rule?.securitySeverity;
  const severity =
    securitySeverity !== undefined ? severityFromScore(securitySeverity) : (LEVEL_SEVERITY.get(level) ?? UNRATED);

  const allLocations = list(result.locations);
  const location = record(allLocations[0]);
  const physical = record(location?.physicalLocation);
  const region = record(physical?.region);
  const startLine = line(region?.startLine);
  const purl = purlOf(location);
  const pkg = purl ? purlParts(purl) : undefined;

  // A literal rather than finding(): this runs once per result, 100,000 times in a big log.
  return {
    ruleId,
    ruleName: rule?.name ?? null,
    message,
    severity,
    level,
    kind,
    filePath: filePathOf(record(physical?.artifactLocation), run),
    startLine,
    endLine: line(region?.endLine) ?? startLine,
    fingerprint: joinFingerprints(result.partialFingerprints) ?? joinFingerprints(result.fingerprints) ?? null,
    packageName: pkg?.name ?? null,
    packageVersion: pkg?.version ?? null,
    purl,
    securitySeverity: securitySeverity ?? null,
    helpUri: rule?.helpUri ?? null,
    // Gitleaks names the commit a secret was found in: 8.x as a partial fingerprint, 7.x as a property.
    commitSha: commitSha(record(result.partialFingerprints)?.commitSha) ?? commitSha(properties?.commit),
    help: rule?.help ?? null,
    locations: allLocations.length > 1 ? allLocations.map((l) => locationOf(record(l), run)) : null,
    snippet: run.keepsSnippets ? (text(record(region?.snippet)?.text) ?? null) : null,
    suppression: suppressionOf(result.suppressions),
  };
}

/** SARIF multiformatMessageString: markdown when given, else the plain text. */
function multiformat(value: unknown): string | undefined {
  const message = record(value);
  return text(message?.markdown) ?? text(message?.text);
}

function locationOf(location: JsonRecord | undefined, run: Run) {
  const physical = record(location?.physicalLocation);
  const region = record(physical?.region);
  const startLine = line(region?.startLine);
  return { path: filePathOf(record(physical?.artifactLocation), run), startLine, endLine: line(region?.endLine) ?? startLine };
}

/**
 * SARIF §3.35: a result is suppressed when a suppression of kind inSource or external has status
 * absent or accepted (underReview and rejected ones do not suppress).
 */
function suppressionOf(value: unknown): string | null {
  for (const item of list(value)) {
    const suppression = record(item);
    const kind = text(suppression?.kind);
    const status = text(suppression?.status);
    if ((kind === 'inSource' || kind === 'external') && (status === undefined || status === 'accepted')) {
      return text(suppression?.justification) ?? '';
    }
  }
  return null;
}

function ruleByIndex(result: JsonRecord, ref: JsonRecord | undefined, run: Run): Rule | undefined {
  const index = result.ruleIndex ?? ref?.index;
  if (typeof index !== 'number') return undefined;
  const component = record(ref?.toolComponent)?.index;
  const rules = typeof component === 'number' ? run.extensionRules[component] : run.driverRules;
  return rules?.[index];
}

function ruleById(id: string, run: Run): Rule | undefined {
  const rule = run.ruleById.get(id);
  if (rule) return rule;
  // Hierarchical ids ("CA2000/1") belong to the rule named by their first component.
  const slash = id.indexOf('/');
  return slash > 0 ? run.ruleById.get(id.slice(0, slash)) : undefined;
}

function ruleFromMessage(message: string, run: Run): string | undefined {
  run.idLengths ??= [...new Set([...run.ruleById.keys()].map((id) => id.length))].sort((a, b) => b - a);
  for (const length of run.idLengths) {
    if (message.length > length && message.charCodeAt(length) === 32) {
      const candidate = message.slice(0, length);
      if (run.ruleById.has(candidate)) return candidate;
    }
  }
  return undefined;
}

function messageOf(result: JsonRecord, rule: Rule | undefined, run: Run): string | undefined {
  const message = record(result.message);
  if (!message) return undefined;
  let template = text(message.text) ?? text(message.markdown);
  const id = text(message.id);
  if (template === undefined && id !== undefined) {
    template =
      text(record(rule?.messageStrings?.[id])?.text) ?? text(record(run.globalMessageStrings?.[id])?.text);
  }
  if (template === undefined) return undefined;
  const args = message.arguments;
  if (Array.isArray(args) && template.includes('{')) {
    template = template.replace(PLACEHOLDER, (match, n: string | undefined) => {
      if (n === undefined) return match[0] ?? '';
      const arg: unknown = args[Number(n)];
      return arg === undefined || arg === null ? match : String(arg);
    });
  }
  // "[user-provided value](1)" links to a related location; the text alone reads well.
  return template.includes('](') ? template.replace(LOCATION_LINK, '$1') : template;
}

function filePathOf(artifactLocation: JsonRecord | undefined, run: Run): string | null {
  if (!artifactLocation) return null;
  let uri = text(artifactLocation.uri);
  const index = artifactLocation.index;
  if (uri === undefined && typeof index === 'number') {
    uri = text(record(record(run.artifacts[index])?.location)?.uri);
  }
  if (uri === undefined) return null;
  // uriBaseId stays unresolved: the path is kept relative to whatever root the tool scanned.
  const path = safeDecode(uri.replace(FILE_SCHEME, ''));
  return path.includes('\\') ? path.replaceAll('\\', '/') : path;
}

function purlOf(location: JsonRecord | undefined): string | null {
  for (const logical of list(location?.logicalLocations)) {
    const name = text(record(logical)?.fullyQualifiedName);
    if (name?.startsWith('pkg:')) return name;
  }
  return null;
}

function joinFingerprints(value: unknown): string | undefined {
  const map = record(value);
  if (!map) return undefined;
  const keys = Object.keys(map).filter((key) => text(map[key]) !== undefined);
  if (keys.length <= 1) return keys[0] === undefined ? undefined : `${keys[0]}=${String(map[keys[0]])}`;
  return keys
    .sort()
    .map((key) => `${key}=${String(map[key])}`)
    .join('|');
}

export const sarif: FormatParser = {
  title: 'SARIF 2.1.0', format: 'sarif', syntax: 'json', contentTypes: ['application/sarif+json'],
  recognises: (doc) => !doc.array && doc.hasKey('runs') && doc.hasKey('version'),
  parse: (body) => parseSarif(parseJson(body, FAMILIES.sarif.document)),
};
