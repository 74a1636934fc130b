import type { EventPayload } from '../events.js';

export interface RenderContext {
  /** SERVICE_BASE_URL: links point at the page in Scanyard. */
  baseUrl: string;
  deliveryId: string;
}

/** One webhook format: how an event becomes the JSON body a receiver accepts. */
export interface WebhookFormat {
  name: string;
  render(payload: EventPayload, context: RenderContext): unknown;
}
