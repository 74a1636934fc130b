/** The API's resources as the UI sees them, taken from the typed paths (never written by hand). */
import type { ApiPaths } from './client';

type Operation<P extends keyof ApiPaths, M extends string> = ApiPaths[P] extends Record<M, infer O> ? O : never;
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Success<O> = O extends { responses: infer R }
  ? R extends { 200: infer A } ? JsonOf<A> : R extends { 201: infer A } ? JsonOf<A> : never
  : never;
/** What a successful call of method M on path P returns. */
export type ResponseBody<P extends keyof ApiPaths, M extends string> = Success<Operation<P, M>>;
type Body<O> = O extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** What method M on path P takes as its JSON body. */
type RequestBody<P extends keyof ApiPaths, M extends string> = Body<Operation<P, M>>;
type Item<T> = T extends (infer I)[] ? I : never;

export type CurrentUser = ResponseBody<'/api/v1/me', 'get'>;
export type Provider = Item<ResponseBody<'/auth/providers', 'get'>>;
export type ApiKey = Item<ResponseBody<'/api/v1/apikeys', 'get'>>;
export type CreatedApiKey = ResponseBody<'/api/v1/apikeys', 'post'>;
export type KeyScope = ApiKey['scopes'][number];
export type Org = ResponseBody<'/api/v1/orgs/{id}', 'get'>;
export type Repo = ResponseBody<'/api/v1/repos/{id}', 'get'>;
/** The scan status at a glance that every repository carries. */
export type ScanSummary = Repo['scan'];
export type Team = Item<ResponseBody<'/api/v1/orgs/{org_id}/teams', 'get'>>;
export type Member = Item<ResponseBody<'/api/v1/orgs/{id}/members', 'get'>>;
export type UserSummary = Item<ResponseBody<'/api/v1/users', 'get'>>;
export type ScanStatus = ResponseBody<'/api/v1/repos/{id}/status', 'get'>;
export type ScanState = ScanStatus['state'];
export type Upload = Item<ResponseBody<'/api/v1/repos/{id}/uploads', 'get'>>;
export type Finding = Item<ResponseBody<'/api/v1/repos/{id}/findings', 'get'>>;
export type Component = Item<ResponseBody<'/api/v1/repos/{id}/components', 'get'>>;
/** These two also answer CSV or markdown when asked: the JSON is what the UI reads. */
export type RemediationAction = Item<Exclude<ResponseBody<'/api/v1/repos/{id}/remediation', 'get'>, string>>;
export type ComponentsDiff = Exclude<ResponseBody<'/api/v1/repos/{id}/components/diff', 'get'>, string>;
export type AuditEvent = Item<ResponseBody<'/api/v1/audit', 'get'>>;
export type Ref = Item<ResponseBody<'/api/v1/repos/{id}/refs', 'get'>>;
export type Gate = NonNullable<Upload['gate']>;
export type RepoGate = ResponseBody<'/api/v1/repos/{id}/gate', 'get'>;
export type Policy = ResponseBody<'/api/v1/orgs/{id}/policy', 'get'>;
export type RepoPolicy = ResponseBody<'/api/v1/repos/{id}/policy', 'get'>;
export type Webhook = Item<ResponseBody<'/api/v1/orgs/{id}/webhooks', 'get'>>;
export type WebhookDelivery = Item<ResponseBody<'/api/v1/orgs/{id}/webhooks/{webhook_id}/deliveries', 'get'>>;
export type WebhookSettings = RequestBody<'/api/v1/orgs/{id}/webhooks', 'post'>;
export type WebhookChanges = RequestBody<'/api/v1/orgs/{id}/webhooks/{webhook_id}', 'put'>;
export type NewSuppressionRule = RequestBody<'/api/v1/orgs/{id}/suppressions', 'post'>;
export type NewCiTrustRule = RequestBody<'/api/v1/orgs/{id}/ci-trust', 'post'>;
