// The container's health check: exit 0 when GET <path> (default /healthz) on this instance answers
// 2xx. A file rather than `node -e "..."`, because podman-compose re-quotes a CMD list into a shell
// string and breaks the quotes and parentheses of inline code.
//   node healthcheck.mjs [/readyz]
const path = process.argv[2] ?? '/healthz';
fetch(`http://127.0.0.1:${process.env.PORT || 8080}${path}`, { signal: AbortSignal.timeout(4000) })
  .then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1));
