import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));
// `vite --config web/vite.config.ts` serves the app with hot reload; the API comes from `npm run dev`.
const api = process.env.SCANYARD_API ?? 'http://localhost:8080';

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    assetsDir: 'assets',
  },
  server: {
    proxy: Object.fromEntries(['/api', '/auth', '/swagger'].map((prefix) => [prefix, {
      target: api,
      // The server accepts state-changing requests from its own origin only, and with dev login on
      // answers only to its own host (SERVICE_BASE_URL).
      changeOrigin: true,
      headers: { origin: api },
    }])),
  },
});
