import type { WebhookFormat } from './types.js';

/** The event itself, with the delivery id and an absolute link: for receivers of our own. */
export const json: WebhookFormat = {
  name: 'json',
  render(payload, { baseUrl, deliveryId }) {
    const { path, ...rest } = payload;
    return { delivery: deliveryId, ...rest, url: `${baseUrl}${path}` };
  },
};
