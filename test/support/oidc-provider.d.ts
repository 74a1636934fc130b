// oidc-provider ships no types and @types/oidc-provider is not installed: the little the test IdP uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface GrantConstructor {
    new (p: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }
  interface Context {
    oidc: {
      provider: { Grant: GrantConstructor };
      result?: { consent?: { grantId?: string } };
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      client?: { clientId: string };
    };
  }
  type Configuration = Record<string, unknown> & {
    findAccount?: (ctx: Context, sub: string) => unknown;
    interactions?: { url: (ctx: Context, interaction: { uid: string }) => string };
    loadExistingGrant?: (ctx: Context) => Promise<Grant | undefined>;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
