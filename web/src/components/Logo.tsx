export function Logo({ size = 24 }: { size?: number }) {
  return (
    <svg className="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path d="M16 2 4 6.5v8.7c0 7.3 5.1 13.6 12 14.8 6.9-1.2 12-7.5 12-14.8V6.5L16 2z" className="logo-shield" />
      <path d="m10.5 16.2 3.8 3.8 7.4-7.6" fill="none" className="logo-check" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
