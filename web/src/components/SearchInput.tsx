import { useEffect, useState } from 'react';

/** A search box that reports its value after typing pauses, so a list is not reloaded per key. */
export function SearchInput({ value, onChange, label, placeholder, suggestions }: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  placeholder?: string;
  /** The id of a <datalist> offering values to pick. */
  suggestions?: string;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText((current) => (current.trim() === value ? current : value)), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const id = window.setTimeout(() => onChange(text.trim()), 300);
    return () => window.clearTimeout(id);
  }, [text, value, onChange]);
  return (
    <input
      type="search"
      className="input search"
      aria-label={label}
      placeholder={placeholder ?? label}
      list={suggestions}
      value={text}
      onChange={(event) => setText(event.target.value)}
    />
  );
}
