import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';

/**
 * Server state for the whole UI. A 401 anywhere means the session is gone (expired, logged out in
 * another tab): `onSignedOut` takes the browser to the login screen, and back here afterwards.
 * Client errors are answers, not blips: only network and 5xx failures are retried.
 */
export function createQueryClient(onSignedOut: () => void): QueryClient {
  const signedOut = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) onSignedOut();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: signedOut }),
    mutationCache: new MutationCache({ onError: signedOut }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: true,
      },
    },
  });
}
