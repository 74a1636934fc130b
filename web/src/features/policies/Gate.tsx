import type { Gate } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Pill } from '../../components/Pill';
import { formatNumber } from '../../lib/format';

const GATE_LABEL: Record<Gate['status'], string> = { pass: 'Passing', warn: 'Warning', fail: 'Failing' };

/** A gate's verdict in a word and a colour (the word always there). */
export function GatePill({ status }: { status: Gate['status'] }) {
  return <Pill className={`status gate-${status}`}>{GATE_LABEL[status]}</Pill>;
}

type Violation = Gate['violations'][number];

const COLUMNS: Column<Violation>[] = [
  { id: 'rule', header: 'Rule', rowHeader: true, className: 'mono', cell: (v) => v.rule },
  { id: 'level', header: 'Level', cell: (v) => <span className={v.level === 'fail' ? 'text-danger' : 'muted'}>{v.level === 'fail' ? 'fails' : 'warns'}</span> },
  { id: 'message', header: 'What broke it', cell: (v) => v.message },
  { id: 'count', header: 'Count', className: 'num', cell: (v) => formatNumber(v.count) },
  {
    id: 'examples', header: 'Examples', className: 'mono gate-examples',
    cell: (v) => (v.examples.length ? v.examples.join(', ') : <span className="muted">—</span>),
  },
];

/** Why a gate did not pass: one row per broken rule, with a few of the findings or components concerned. */
export function GateViolations({ gate, caption }: { gate: Gate; caption: string }) {
  if (gate.violations.length === 0) return <p className="hint">No rule of the policy is broken.</p>;
  return <DataTable caption={caption} className="violations" columns={COLUMNS} rows={gate.violations} rowKey={(v) => `${v.rule}|${v.level}|${v.message}`} />;
}
