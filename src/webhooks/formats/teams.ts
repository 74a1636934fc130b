import type { WebhookFormat } from './types.js';
import { summarize } from './summary.js';
import { teamsMarkdown as escape } from '../../markup.js';

/**
 * A Microsoft Teams incoming-webhook message carrying an Adaptive Card, the shape Microsoft documents
 * for Teams webhooks and Workflows: a `message` with one attachment of content type
 * application/vnd.microsoft.card.adaptive.
 */
export const teams: WebhookFormat = {
  name: 'teams',
  render(payload, context) {
    const summary = summarize(payload, context);
    const body: unknown[] = [
      { type: 'TextBlock', text: escape(summary.title), weight: 'Bolder', size: 'Medium', wrap: true },
    ];
    if (summary.text) body.push({ type: 'TextBlock', text: escape(summary.text), wrap: true });
    if (summary.severities) {
      body.push({ type: 'FactSet', facts: summary.severities.map(({ severity, count }) => ({ title: severity, value: String(count) })) });
    }
    for (const line of summary.findings) body.push({ type: 'TextBlock', text: escape(line), wrap: true, spacing: 'Small' });
    return {
      type: 'message',
      attachments: [{
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'View in Scanyard', url: summary.link }],
        },
      }],
    };
  },
};
