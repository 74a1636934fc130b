import type { ReactNode } from 'react';

/** Every chart's figures as a table, for screen readers and for reading exact values. */
export function ChartTable({ caption, columns, rows }: { caption: string; columns: string[]; rows: (string | number | null)[][] }) {
  return (
    <details className="chart-table">
      <summary>Table view</summary>
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead><tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>{row.map((cell, j) => (j === 0 ? <th key={j} scope="row">{cell ?? '—'}</th> : <td key={j}>{cell ?? '—'}</td>))}</tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** A chart with its accessible name and its table view. */
export function Figure({ label, children, table }: { label: string; children: ReactNode; table: ReactNode }) {
  return (
    <figure className="metrics-figure">
      <div role="img" aria-label={label} className="metrics-chart">{children}</div>
      {table}
    </figure>
  );
}
