import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export function useMe() {
  return useQuery({
    queryKey: queryKeys.me,
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/me', { signal }))).data,
    staleTime: 60_000,
  });
}

export function useProviders() {
  return useQuery({
    queryKey: queryKeys.providers,
    queryFn: async ({ signal }) => (await call(api.GET('/auth/providers', { signal }))).data,
  });
}

/** Signing in or out changes whose data everything is: nothing cached may survive it. */
export function useDevLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => (await call(api.POST('/auth/dev-login'))).data,
    onSuccess: () => client.clear(),
  });
}

export function useLogout() {
  const client = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async () => (await call(api.POST('/auth/logout'))).data,
    // Off the signed-in screens first, so nothing still shown asks for its data again.
    onSuccess: async (answer) => {
      // Signed in through an OpenID Connect provider with end_session: sign out there too; it sends the browser back to /login.
      if (answer && 'redirect' in answer) {
        window.location.assign(answer.redirect);
        return;
      }
      await navigate('/login', { replace: true });
      client.clear();
    },
  });
}
