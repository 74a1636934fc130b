import type { WebhookFormat } from './types.js';
import { summarize } from './summary.js';
import { slackMrkdwn as escape } from '../../markup.js';

/**
 * A Slack incoming-webhook message: `text` (the notification and fallback) and Block Kit `blocks`
 * (https://api.slack.com/messaging/webhooks).
 */
export const slack: WebhookFormat = {
  name: 'slack',
  render(payload, context) {
    const summary = summarize(payload, context);
    const blocks: unknown[] = [
      { type: 'header', text: { type: 'plain_text', text: summary.title.slice(0, 150) } },
    ];
    // verbatim: Slack would otherwise turn names in the text into channel links and mentions.
    if (summary.text) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escape(summary.text).slice(0, 3000), verbatim: true } });
    if (summary.severities) {
      blocks.push({
        type: 'section',
        fields: summary.severities.map(({ severity, count }) => ({ type: 'mrkdwn', text: `*${severity}*\n${count}` })),
      });
    }
    if (summary.findings.length) {
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: summary.findings.map((line) => `• ${escape(line)}`).join('\n').slice(0, 3000), verbatim: true } });
    }
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${summary.link}|View in Scanyard>` } });
    return { text: `${escape(summary.title)}: ${summary.link}`, blocks };
  },
};
