import { Fragment, type ReactNode } from 'react';

export interface Column<T> {
  id: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** The cell that names the row (a `th scope="row"`, the card's title on a phone). One per table. */
  rowHeader?: boolean;
  /** Shown before the value when the table stacks into cards on a phone; the header text by default, `false` for none. */
  label?: string | false;
  className?: string;
}

/**
 * The one table of the UI: a caption for assistive technology, quiet rules and tabular numbers on a
 * wide screen, one card per row on a phone (each value after its column's label).
 */
export function DataTable<T>({ caption, columns, rows, rowKey, className = '', detail }: {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  className?: string;
  /** A second, full-width row under a row, e.g. why an upload failed. */
  detail?: (row: T) => ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={`table table-stack ${className}`.trim()}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.id} scope="col" className={column.className}>{column.header}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            const extra = detail?.(row);
            return (
              <Fragment key={key}>
                <tr className={extra ? 'row-has-detail' : undefined}>
                  {columns.map((column) => column.rowHeader
                    ? <th key={column.id} scope="row" className={`cell-title ${column.className ?? ''}`.trim()}>{column.cell(row)}</th>
                    : <td key={column.id} className={column.className} data-label={labelOf(column)}>{column.cell(row)}</td>)}
                </tr>
                {extra && <tr className="row-detail"><td colSpan={columns.length}>{extra}</td></tr>}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function labelOf<T>(column: Column<T>): string | undefined {
  if (column.label === false) return undefined;
  return column.label ?? (typeof column.header === 'string' ? column.header : undefined);
}

/** The header of a column that holds buttons: named for assistive technology only. */
export const ACTIONS_HEADER = <span className="visually-hidden">Actions</span>;
