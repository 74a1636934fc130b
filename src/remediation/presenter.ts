import type { Action } from './plan.js';
import type { OrgAction } from './service.js';
import type { ActionJson, OrgActionJson } from './schema.js';

export function presentAction({ kevIds: _kevIds, ...action }: Action): ActionJson {
  return action;
}

export function presentOrgAction(action: OrgAction): OrgActionJson {
  return action;
}

const COLUMNS = ['package', 'purl', 'from', 'to', 'vulnerabilities', 'remaining', 'severity', 'kev', 'epss', 'via'] as const;

/** The plan as CSV rows: lists joined with spaces, direct dependencies as name@version. */
export function actionCsvRows(actions: ActionJson[]): { columns: string[]; rows: Record<(typeof COLUMNS)[number], string | number | null>[] } {
  return {
    columns: [...COLUMNS],
    rows: actions.map((a) => ({
      package: a.package, purl: a.purl, from: a.from, to: a.to, vulnerabilities: a.vulnerabilities.join(' '), remaining: a.remaining.join(' '),
      severity: a.severity, kev: a.kev, epss: a.epss, via: a.via.map((v) => (v.version ? `${v.name}@${v.version}` : v.name)).join(' '),
    })),
  };
}
