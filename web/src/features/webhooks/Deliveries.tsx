import type { WebhookDelivery } from '../../api/types';
import { ACTIONS_HEADER, DataTable, type Column } from '../../components/DataTable';
import { Pill } from '../../components/Pill';
import { ProblemNotice } from '../../components/ProblemNotice';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useDeliveries, useRedeliver } from './api';

const STATUS_CLASS: Record<WebhookDelivery['status'], string> = {
  pending: 'status-pending', delivering: 'status-processing', succeeded: 'status-complete', failed: 'status-failed',
};
const STATUS_LABEL: Record<WebhookDelivery['status'], string> = { pending: 'Pending', delivering: 'Delivering', succeeded: 'Delivered', failed: 'Failed' };

const none = <span className="muted">—</span>;

/** The last answer in a few words: its HTTP status and time, or why there was none. */
function Answer({ d }: { d: WebhookDelivery }) {
  if (d.last_status_code === null && !d.last_error) return none;
  return (
    <span className="stack">
      <span>{d.last_status_code ?? d.last_error}{d.last_duration_ms !== null && <span className="muted"> · {d.last_duration_ms} ms</span>}</span>
      {d.last_response_body && <span className="cell-sub mono delivery-body" title={d.last_response_body}>{d.last_response_body.slice(0, 120)}</span>}
    </span>
  );
}

/** A hook's recent deliveries, newest first; a finished one can be sent again with the same id. */
export function Deliveries({ orgId, hookId }: { orgId: string; hookId: string }) {
  const deliveries = useDeliveries(orgId, hookId);
  const redeliver = useRedeliver(orgId, hookId);
  const columns: Column<WebhookDelivery>[] = [
    { id: 'event', header: 'Event', rowHeader: true, className: 'mono', cell: (d) => <>{d.event}<span className="cell-sub"><Time iso={d.created_at} /></span></> },
    { id: 'status', header: 'Status', cell: (d) => <Pill className={`status ${STATUS_CLASS[d.status]}`}>{STATUS_LABEL[d.status]}</Pill> },
    { id: 'attempts', header: 'Attempts', className: 'num', cell: (d) => d.attempts },
    { id: 'answer', header: 'Last answer', cell: (d) => <Answer d={d} /> },
    { id: 'next', header: 'Next attempt', cell: (d) => <Time iso={d.next_attempt_at} fallback="—" /> },
    {
      id: 'actions', header: ACTIONS_HEADER, className: 'cell-actions',
      cell: (d) => (d.status === 'succeeded' || d.status === 'failed') && (
        <button type="button" className="button button-small" disabled={redeliver.isPending} onClick={() => redeliver.mutate(d.id)}>Redeliver</button>
      ),
    },
  ];
  return (
    <>
      {redeliver.isError && <ProblemNotice error={redeliver.error} lead="Not sent again." />}
      <Loaded query={deliveries} skeleton={<TableSkeleton label="Loading deliveries…" rows={3} />}>
        {(list) => list.length === 0
          ? <EmptyState title="No deliveries yet" />
          : <DataTable caption="Recent deliveries, newest first" className="deliveries" columns={columns} rows={list} rowKey={(d) => d.id} />}
      </Loaded>
    </>
  );
}
