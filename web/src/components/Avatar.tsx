import { useState } from 'react';

export function Avatar({ url, login, size = 28 }: { url: string | null | undefined; login: string; size?: number }) {
  const [broken, setBroken] = useState(false);
  if (url && !broken) {
    return <img className="avatar" src={url} alt="" width={size} height={size} onError={() => setBroken(true)} />;
  }
  return (
    <span className="avatar avatar-initial" style={{ width: size, height: size, fontSize: size * 0.45 }} aria-hidden="true">
      {login.slice(0, 1).toUpperCase()}
    </span>
  );
}
