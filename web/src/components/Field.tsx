import type { InputHTMLAttributes, ReactNode } from 'react';

/** The label of a form field; it names the control (screen readers, getByLabel) and says "(optional)" the one way. */
function FieldLabel({ id, label, optional }: { id: string; label: ReactNode; optional?: boolean }) {
  return <label htmlFor={id}>{label}{optional && <> <span className="muted">(optional)</span></>}</label>;
}

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'> & {
  id: string;
  label: ReactNode;
  optional?: boolean;
  value: string;
  onChange: (value: string) => void;
};

/** A labelled text input; attributes other than these go to the input itself. */
export function TextField({ id, label, optional, value, onChange, className = 'input', ...input }: TextFieldProps) {
  return (
    <div className="field">
      <FieldLabel id={id} label={label} optional={optional} />
      <input id={id} className={className} value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </div>
  );
}

/** A labelled select over a fixed list of choices. */
export function SelectField<T extends string>({ id, label, value, onChange, options }: {
  id: string;
  label: ReactNode;
  value: T;
  onChange: (value: T) => void;
  options: readonly { value: T; label: string }[];
}) {
  return (
    <div className="field">
      <FieldLabel id={id} label={label} />
      <select id={id} className="input" value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}

/** A grid of checkboxes, one per item, for choosing a set (members, events, organizations). */
export function CheckGrid<T extends string>({ items, checked, onToggle, children }: {
  items: readonly T[];
  checked: ReadonlySet<T>;
  onToggle: (item: T) => void;
  children: (item: T) => ReactNode;
}) {
  return (
    <div className="check-grid">
      {items.map((item) => (
        <label key={item} className="check">
          <input type="checkbox" checked={checked.has(item)} onChange={() => onToggle(item)} />
          {children(item)}
        </label>
      ))}
    </div>
  );
}
