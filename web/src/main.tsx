import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { createQueryClient } from './app/query-client';
import { router } from './app/router';
import { loginUrl } from './lib/return-to';
import './styles/base.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/findings.css';
import './styles/tables.css';
import './styles/severity.css';
import './styles/charts.css';
import './styles/skeleton.css';

const queryClient = createQueryClient(() => {
  const { pathname, search } = window.location;
  if (pathname !== '/login') void router.navigate(loginUrl(pathname + search), { replace: true });
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
