import type { SamlProviderConfig } from '../providers-config.js';
import { now } from '../db/time.js';
import { samlSignIn, type SamlSignIn } from './forges/saml.js';
import type { SamlStore } from './saml-store.js';

/** The configured SAML providers' sign-ins, by provider id, and the housekeeping of what they remember. */
export function samlService(providers: SamlProviderConfig[], store: SamlStore, options: { baseUrl: string; allowPrivate: boolean }) {
  const signIns = new Map<string, { config: SamlProviderConfig; signIn: SamlSignIn }>(
    providers.map((p) => [p.id, { config: p, signIn: samlSignIn(p, { ...options, store }) }]));
  return {
    provider: (id: string) => signIns.get(id),
    /** Unanswered AuthnRequests past their time and expired assertion ids; returns how many rows went. */
    prune: () => store.prune(now()),
  };
}
