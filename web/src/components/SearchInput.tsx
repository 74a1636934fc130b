import { useEffect, useState } from 'react';

/** A search box that reports its value after typing pauses, so a list is not reloaded per key. */
export function SearchInput({ value, onChange, label, placeholder }: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  placeholder?: string;
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
      value={text}
      onChange={(event) => setText(event.target.value)}
    />
  );
}
